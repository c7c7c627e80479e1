"""``coschedlab coupled ...``: co-scheduling across coupled systems (hold / yield; issue 12)."""

from __future__ import annotations

import calendar
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from .options import ExecutorOpt, JobsOpt, SweepOutOpt

app = typer.Typer(
    help="Paired jobs on coupled systems (a machine and its analysis cluster) start together.",
    no_args_is_help=True,
)

_SYSTEM_KEYS = (
    "name", "nodes", "scheme", "hold_cap", "release", "release_age", "max_yields", "month",
    "load",
)  # fmt: skip
DEFAULT_SYSTEMS = ["theta:scheme=hold", "kth:load=0.5,scheme=hold"]


def parse_system(text: str) -> tuple[str, dict[str, str]]:
    """``TRACE[:key=value,...]`` -> (trace, options); TRACE is a path, ``theta`` or ``kth``."""
    trace, opts = text, ""
    head, sep, tail = text.rpartition(":")
    if sep and head and ("=" in tail or not Path(text).exists()):
        trace, opts = head, tail
    if not trace:
        raise InputError(f"--system {text!r}: give a trace (a file, theta or kth)")
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in opts.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not value:
            raise InputError(f"--system {text!r}: expected key=value, got {item!r}")
        if key not in _SYSTEM_KEYS:
            raise InputError(
                f"--system {text!r}: unknown key {key!r}; use {', '.join(_SYSTEM_KEYS)}"
            )
        if key in out:
            raise InputError(f"--system {text!r}: {key} given twice")
        out[key] = value
    return trace, out


#: names a system may not take (they are files of the output directory)
_RESERVED = {".", "..", "holds.csv", "pairs.csv", "coupled.json"}


def _system_name(text: str, opts: dict[str, str], trace: str) -> str:
    import re

    name = opts.get("name") or (
        trace if trace in ("theta", "kth") else Path(trace).name.split(".")[0] or "system"
    )
    if not re.fullmatch(r"[A-Za-z0-9_.+=,-]+", name) or name in _RESERVED:
        raise InputError(
            f"--system {text!r}: name {name!r} names a directory of the output: use letters, "
            "digits and _ . + = , - (not . .. holds.csv pairs.csv coupled.json)"
        )
    return name


def _num(
    text: str, key: str, where: str, *, integer: bool = False, minimum: float = 0,
    none: tuple[str, ...] = (),
):  # fmt: skip
    """The number ``text`` of option ``key`` (``none``: words meaning "none")."""
    if text.lower() in none:
        return None
    try:
        v = int(text) if integer else float(text)
    except ValueError:
        v = None
    if v is None or v != v or v in (float("inf"), float("-inf")) or v < minimum:
        kind = "a whole number" if integer else "a number"
        extra = f" or {' / '.join(none)}" if none else ""
        raise InputError(
            f"--system {where!r}: {key} must be {kind} >= {minimum:g}{extra}, got {text!r}"
        )
    return v


def _system(
    text: str,
    trace: str,
    opts: dict[str, str],
    name: str,
    sched: str | None,
    seed: int,
    span: float | None,
) -> tuple[Any, float | None]:
    """One ``--system`` spec (``text``, parsed into its trace, options and name) as a
    :class:`~coschedlab.coupled.System` (and the span of its month, for traces with epoch
    times)."""
    from ..coupled.system import System
    from ..coupled.workloads import KTH, THETA, cluster_of, month_of, stretch_to_load
    from ..schedulers import get_scheduler
    from ..workload.swf import cluster_from_header, read_swf

    path = {"theta": THETA, "kth": KTH}.get(trace, trace)
    if Path(path).is_dir():
        raise InputError(f"--system {text!r}: {trace} is a directory, not a trace file")
    if not Path(path).is_file():
        raise InputError(f"--system {text!r}: no such trace file {trace!r}")
    n = _num(opts["nodes"], "nodes", text, integer=True, minimum=1) if "nodes" in opts else None
    month_span = None
    if "month" in opts or trace == "theta":
        month = _num(opts.get("month", "1"), "month", text, integer=True, minimum=1)
        if month > 12:
            raise InputError(f"--system {text!r}: month must be 1..12, got {month}")
        w = month_of(path, 2022, month, n)
        n = n or (4360 if trace == "theta" else None)
        month_span = calendar.monthrange(2022, month)[1] * 86400.0
    else:
        w = read_swf(path, max_procs=n)
    if n is None:
        c = cluster_from_header(w.header)
        if c is None:
            raise InputError(f"--system {text!r}: the trace has no MaxNodes; give nodes=N")
        n = c.nodes
        w = w.drop_oversized(n)
    if not len(w):
        raise InputError(f"--system {text!r}: no job fits {n} nodes")
    if "load" in opts:
        load = _num(opts["load"], "load", text)
        if not 0 < load <= 2:
            raise InputError(f"--system {text!r}: load must be in (0, 2], got {load:g}")
        w, _ = stretch_to_load(w, n, load, span or month_span or 31 * 86400.0, seed)
    if sched is not None and not sched.strip():
        raise InputError("--scheduler: an empty scheduler spec")
    system = System(
        name,
        w,
        cluster_of(n),
        scheduler=get_scheduler(sched) if sched else None,
        scheme=opts.get("scheme", "hold"),
        hold_cap=_num(opts.get("hold_cap", "0.6"), "hold_cap", text),
        release=_num(opts.get("release", "1200"), "release", text, none=("none", "off")),
        release_age=_num(opts.get("release_age", "600"), "release_age", text),
        max_yields=_num(
            opts.get("max_yields", "none"), "max_yields", text, integer=True, none=("none",)
        ),
    )
    return system, month_span


def build_systems(specs: list[str], schedulers: list[str], seed: int) -> list[Any]:
    """The :class:`~coschedlab.coupled.System` of each ``--system`` spec; what each dropped
    is printed."""
    from rich.console import Console

    if len(specs) < 2:
        raise InputError("give at least two --system options (a coupled set has two machines)")
    if len(schedulers) not in (0, 1, len(specs)):
        raise InputError(
            f"--scheduler: give one (for every system) or one per system ({len(specs)}), "
            f"got {len(schedulers)}"
        )
    names: dict[str, str] = {}
    parsed = []
    for text in specs:
        trace, opts = parse_system(text)
        name = _system_name(text, opts, trace)
        if name in names:
            raise InputError(
                f"--system {text!r} and --system {names[name]!r} are both named {name!r}; "
                "give name= to tell them apart"
            )
        names[name] = text
        parsed.append((text, trace, opts, name))
    systems: list[Any] = []
    span: float | None = None
    err = Console(stderr=True)
    for i, (text, trace, opts, name) in enumerate(parsed):
        sched = schedulers[0] if len(schedulers) == 1 else schedulers[i] if schedulers else None
        try:
            system, month_span = _system(text, trace, opts, name, sched, seed, span)
        except InputError as exc:
            if exc.where or exc.what.startswith(("--system", "--scheduler")):
                raise
            raise InputError(f"--system {text!r}: {exc.what}") from None
        span = span or month_span
        if system.workload.dropped:
            err.print(f"{system.name}: {system.workload.summary()}", soft_wrap=True)
        systems.append(system)
    return systems


def _fmt_table(metrics: dict, baseline: dict | None) -> Any:
    from rich.table import Table

    t = Table(title="coupled run (in brackets: change against no pairing)")
    for col in ("system", "jobs", "paired", "wait min", "bsld", "util", "sync min", "SU loss"):
        t.add_column(col, justify="left" if col == "system" else "right")
    for name, m in metrics.items():
        b = (baseline or {}).get(name)

        def delta(key: str, scale: float, fmt: str, m=m, b=b) -> str:
            v = m[key] * scale
            if b is None:
                return format(v, fmt)
            return f"{format(v, fmt)} ({v - b[key] * scale:+{fmt}})"

        t.add_row(
            name,
            str(m["jobs"]),
            f"{100 * m['paired_share']:.1f}%",
            delta("wait_mean", 1 / 60, ".1f"),
            delta("bounded_slowdown_mean", 1, ".1f"),
            f"{m['utilization']:.3f}",
            f"{m['sync_mean'] / 60:.1f}",
            f"{m['su_loss_node_hours']:,.0f} nh {100 * m['su_loss_share']:.1f}%",
        )
    return t


@app.command()
def simulate(
    system: Annotated[
        list[str] | None,
        typer.Option(
            "--system",
            help="TRACE[:key=value,...], one per machine (at least two). TRACE: an SWF file, "
            "theta (bundled ALCF Theta 2022, 4,360 nodes, January) or kth (bundled KTH-SP2, "
            "100 nodes). Keys: name, nodes, scheme (hold|yield), hold_cap (0.6), release "
            "(1200 s; none), release_age (600 s), max_yields, month (1-12, epoch-time traces), "
            "load (stretch arrivals to this utilization). Default: theta + kth at load 0.5.",
        ),
    ] = None,
    pairs: Annotated[
        str,
        typer.Option(
            "--pairs",
            help="vicinity:SECONDS, every:K, proportion:P, file:PATH (CSV system,job,system,job) "
            "or none",
        ),
    ] = "vicinity:120",
    scheduler: Annotated[
        list[str] | None,
        typer.Option(
            "--scheduler", "-s", help="policy per system (one for all); default easy:order=wfp"
        ),
    ] = None,
    mate_attempt: Annotated[
        str,
        typer.Option(
            "--mate-attempt",
            help="queued: the mate's system tries whenever the mate waits (the paper); yielded: "
            "only if it yielded since that system's last event (Cobalt's code)",
        ),
    ] = "queued",
    seed: Annotated[int, typer.Option("--seed", help="where load-stretched traces start")] = 0,
    baseline: Annotated[
        bool, typer.Option("--baseline/--no-baseline", help="also run without pairing")
    ] = True,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="output directory")] = None,
    force: Annotated[bool, typer.Option("--force", help="replace an older result")] = False,
) -> None:
    """Simulate coupled systems with paired jobs; print per system the wait, slowdown,
    utilization, sync time and service-unit loss, against the same run without pairing."""
    from rich.console import Console

    from ..coupled.mates import Pairs, make_pairs, paired_share
    from ..coupled.result import CoupledResult
    from ..coupled.system import ATTEMPTS, CoupledSimulation
    from ..errors import check_seed
    from ..outputs import atomic_dir, check_target

    check_seed(seed)
    if mate_attempt not in ATTEMPTS:
        raise InputError(f"--mate-attempt must be queued or yielded, got {mate_attempt!r}")
    if out is not None:
        check_target(out, force)
    systems = build_systems(system or DEFAULT_SYSTEMS, [] if scheduler is None else scheduler, seed)
    workloads = [s.workload for s in systems]
    p = make_pairs(pairs, workloads)
    err = Console(stderr=True)
    shares = paired_share(p, [len(w) for w in workloads])
    err.print(
        f"{len(p)} pairs: "
        + ", ".join(
            f"{s.name} {100 * x:.1f}% of {len(s.workload)} jobs"
            for s, x in zip(systems, shares, strict=True)
        ),
        soft_wrap=True,
    )
    base = None
    if baseline and len(p):
        import copy

        plain = [copy.copy(s) for s in systems]
        for s, orig in zip(plain, systems, strict=True):
            s.scheduler = copy.deepcopy(orig.scheduler)
        c0 = CoupledSimulation(plain, Pairs()).run()
        base = CoupledResult.from_simulation(c0).metrics()
    c = CoupledSimulation(systems, p, mate_attempt=mate_attempt).run()
    r = CoupledResult.from_simulation(c)
    problems = r.validate()
    if problems:
        raise RuntimeError(f"the coupled schedule broke an invariant: {problems[0]}")
    metrics = r.metrics()
    Console(width=80).print(_fmt_table(metrics, base))
    if out is not None:
        with atomic_dir(out, force) as tmp:
            r.write(tmp, base)
        err.print(f"wrote {out}/ (one directory per system, holds.csv, pairs.csv, coupled.json)")


@app.command()
def compare(
    spec: Annotated[Path, typer.Argument(help="sweep spec (YAML, see docs/coupled.md)")],
    jobs: JobsOpt = None,
    out: SweepOutOpt = None,
    executor: ExecutorOpt = None,
) -> None:
    """Run the scheme x load and scheme x paired-proportion sweep (resuming: finished runs are
    kept); write summary.csv and the figures (like the paper's Figs 3-10); print the table."""
    from rich.console import Console

    from ..experiments.coupled import check_output, load_coupled_spec, run_sweep
    from ..experiments.executors import parse_executor
    from .progress import report_step, run_sweep_shown

    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    where = parse_executor(executor) if executor is not None else None
    s = load_coupled_spec(spec)
    target = Path(out if out is not None else s.output)
    check_output(target, s)
    err = Console(stderr=True)

    def info(text: str) -> None:
        err.print(text, soft_wrap=True)

    summary, rows = run_sweep_shown(
        err,
        s.name,
        len(s.configs()),
        target,
        lambda **cb: run_sweep(s, target, jobs=jobs, executor=where, on_info=info, **cb),
    )
    with report_step(err, target):
        written = write_report(target, rows)
    err.print("wrote " + ", ".join(str(p) for p in written), soft_wrap=True)
    if summary.failed:
        raise InputError(f"{len(summary.failed)} runs failed (see {target}/runs/*.error.txt)")


def write_report(target: Path, rows: list) -> list[Path]:
    """summary.csv and the figures of a finished (or partial) sweep; the table on stdout."""
    from rich.console import Console
    from rich.table import Table

    from ..coupled.plots import FIGURES, study_figure
    from ..experiments.coupled import aggregate
    from ..outputs import atomic_file

    df = aggregate(rows)
    if df.empty:
        raise InputError("no coupled run finished (see runs/*.error.txt)", str(target))
    written = []
    with atomic_file(target / "summary.csv", force=True) as tmp:
        df.to_csv(tmp, index=False, float_format="%.6g")
    written.append(target / "summary.csv")
    for study in ("load", "proportion"):
        for stem, metric, label, scale, base in FIGURES:
            fig = study_figure(df, study, metric, label, scale, base)
            if fig is None:
                continue
            path = target / f"{study}_{stem}.png"
            with atomic_file(path, force=True) as tmp:
                fig.savefig(tmp, format="png", dpi=110)
            written.append(path)
    t = Table(title="mean over seeds; wait and sync in minutes; d: change vs no pairing")
    for col in ("study", "x", "sys", "combo", "wait", "d wait", "bsld", "sync", "SU loss"):
        t.add_column(col, justify="left" if col in ("study", "sys", "combo") else "right")
    for _, r in df.iterrows():
        t.add_row(
            r["study"],
            f"{r['x']:g}",
            r["system"],
            r["combo"],
            f"{r['wait_mean'] / 60:.0f}",
            f"{r['wait_mean_delta'] / 60:+.0f}",
            f"{r['bounded_slowdown_mean']:.1f}",
            f"{r['sync_mean'] / 60:.0f}",
            f"{100 * r['su_loss_share']:.2f}%",
        )
    Console(width=80).print(t)
    return written
