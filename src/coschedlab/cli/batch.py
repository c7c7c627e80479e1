"""The work of ``coschedlab simulate`` (read, simulate, validate, write, print), without
typer: the command line's fast path (:func:`coschedlab.cli.main.main`) calls
:func:`run_simulate` with a plain command line's values; the typer command
(:func:`coschedlab.cli.core.simulate`) calls it with any other."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, check_counts
from .progress import text_console

if TYPE_CHECKING:  # pragma: no cover (imported where used: the CLI starts fast)
    from rich.console import Console

    from ..engine.result import Result
    from ..jobs import Workload
    from ..platform import Cluster
    from ..tables import Col


def __getattr__(name: str) -> Console:
    """``console`` and ``err_console``: the rich consoles on stdout and stderr, made on first
    use (PEP 562): a plain command's lines are printed without rich when rich would print
    plain text (:mod:`coschedlab.cli.plainout`)."""
    if name not in ("console", "err_console"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = globals()[name] = text_console(stderr=name == "err_console")
    return made


def _console(name: str = "console") -> Console:
    """The module's ``console`` (or ``err_console``), made if not yet."""
    return globals().get(name) or __getattr__(name)


def _write_plain(plain: str | None, err: bool = False) -> bool:
    """Write ``plain`` and a newline on stdout (``err``: stderr), flushed as rich's console
    does after each print; False (nothing written) when it is None: rich must print it."""
    if plain is None:
        return False
    stream = sys.stderr if err else sys.stdout
    stream.write(plain + "\n")
    stream.flush()
    return True


def say(text: str, err: bool = False) -> None:
    """Print ``text`` as it is (no markup) on stdout (``err``: stderr), word-wrapped at the
    console's width, as ``console.print(escape(text))`` does: without rich when rich would
    print plain text."""
    from .plainout import plain_width, wrapped

    width = plain_width(stderr=err)
    if not _write_plain(wrapped(text, width) if width is not None else None, err):
        from rich.markup import escape

        _console("err_console" if err else "console").print(escape(text))


def say_table(title: str, cols: list[Col], rows: list[list[str]]) -> None:
    """Print :func:`coschedlab.tables.fit_table`'s table on stdout, fitted to the console's
    width: without rich when rich would draw plain text."""
    from .plainout import plain_table, plain_width

    width = plain_width()
    if not _write_plain(plain_table(title, cols, rows, width) if width is not None else None):
        from ..tables import fit_table

        console = _console()
        console.print(fit_table(title, cols, rows, console.width))


#: the folder :func:`run_simulate` has written its result to, whole (an interrupt after it
#: says so, not that nothing was written)
written: Path | None = None


def machine_options(
    nodes: int | None,
    cores_per_node: int | None,
    sockets: int | None,
    default: Cluster | None,
    missing: str,
) -> Cluster:
    """The machine of ``--nodes/--cores-per-node/--sockets``, each part not given taken from
    ``default`` (a trace header's or a pool's machine): cores per node else 1, sockets else
    ``default``'s when they divide the cores per node, else 1. No nodes anywhere: InputError
    ``missing``."""
    from ..platform import Cluster

    check_counts(must="positive", nodes=nodes, cores_per_node=cores_per_node, sockets=sockets)
    if nodes is None and default is None:
        raise InputError(missing)
    n = nodes if nodes is not None else default.nodes
    cpn = cores_per_node or (default.cores_per_node if default else 1)
    if sockets is None:
        kept = default.sockets_per_node if default else 1
        sockets = kept if cpn % kept == 0 else 1
    if cpn % sockets:
        raise InputError(f"--cores-per-node {cpn} does not split into {sockets} sockets")
    return Cluster(n, sockets, cpn // sockets)


#: blocks of this size or more are mapped on their own and given back to the system when freed
#: (glibc's mmap threshold: its own starts at 128 KB and rises, up to 32 MB, only as mapped
#: blocks are freed; fixed here at that ceiling). Smaller blocks come from the heap and are
#: used again by the next step without faulting their pages in again, which mapped blocks are,
#: page by page, each time: with 1 MB (mem8) a trace of 60,000 jobs took ~14,000 page faults
#: and one of 250,000 jobs ~120,000 (0.3 s of system time); with 32 MB, 11,000 and 33,000. A
#: million jobs' peak: 241 -> 248 MB (the heap's free top is given back above 16 MB)
BIG_BLOCK = 32 << 20


def load_trace(
    path: Path,
    nodes: int | None,
    cores_per_node: int | None,
    sockets: int | None = None,
    strict: bool = False,
) -> tuple[Workload, Cluster]:
    """Read an SWF trace; the machine comes from the options, each part not given from the
    header (:func:`machine_options`). Jobs that cannot run are dropped and counted, or with
    ``strict`` the first is an error (file:line)."""
    from .._core.swf_parse import map_big_blocks
    from ..bundled import local_path
    from ..workload.swf import cluster_from_header, read_swf

    map_big_blocks(BIG_BLOCK)  # each step's freed big blocks go back to the system
    # and Arrow's too (jobs.parquet's encoder): the C library's allocator, not mimalloc, which
    # keeps freed blocks (a million jobs: ~20 MB lower at that step, the same CPU); read when
    # pyarrow first allocates, a user's own setting kept
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    workload = read_swf(path, compact=True)  # its columns are read-only anyway (freeze)
    try:
        from_header = cluster_from_header(workload.header)
    except InputError as exc:
        if nodes is None or cores_per_node is None:
            raise InputError(f"the header's machine: {exc.what}", where=str(path)) from None
        from_header = None  # the options give the whole machine: the header is not read
    given = [f"{k} {str(workload.header[k]).strip()!r}" for k in ("MaxNodes", "MaxProcs")
             if k in workload.header]  # fmt: skip
    verb = "are not positive whole numbers" if len(given) > 1 else "is not a positive whole number"
    missing = (
        f"{path}: the header's {' and '.join(given)} {verb}"
        if given
        else f"{path}: no MaxNodes/MaxProcs in the header"
    )
    cluster = machine_options(
        nodes, cores_per_node, sockets, from_header, f"{missing}; give --nodes"
    )
    if strict and (workload.dropped or (workload.procs > cluster.total_cores).any()):
        if local_path(path).is_file():  # read again: names the first such job's line
            read_swf(path, cluster=cluster, strict=True)
        raise InputError(_cannot_run(workload, cluster), str(path))  # a pipe: read once
    workload = workload.drop_oversized(cluster.total_cores).freeze()  # results share it
    from .._core.swf_parse import trim_heap

    trim_heap()  # the reader's and the drop's temporaries: their pages back to the system
    if not len(workload):
        raise InputError(f"{path}: no job left to simulate ({workload.summary()})")
    return workload, cluster


def _cannot_run(workload: Workload, cluster: Cluster) -> str:
    """--strict's refusal of a trace read once (a pipe: no second reading names a line)."""
    why = dict(workload.dropped)
    over = int((workload.procs > cluster.total_cores).sum())
    if over:
        why["larger than the machine"] = why.get("larger than the machine", 0) + over
    parts = ", ".join(f"{n:,} {reason}" for reason, n in sorted(why.items()))
    return (
        f"{sum(why.values()):,} job(s) cannot run ({parts}; not a regular file, read once: no "
        "line named); without --strict they are dropped and counted"
    )


def _progress_run(workload: Workload, cluster: Cluster, spec: str, **options: object) -> Result:
    """One simulation (``options``: :func:`coschedlab.api.simulate`'s), with a progress bar
    (jobs done, elapsed, ETA) on a terminal."""
    from ..api import simulate as run_simulation
    from .plainout import plain_width
    from .progress import progress_bar

    # not a terminal (rich would draw plain text there): no bar, and no rich console
    shown = None if plain_width(stderr=True) is not None else _console("err_console")
    with progress_bar(shown, f"{spec}", len(workload), unit="jobs") as update:
        return run_simulation(workload, cluster, spec, progress=update, **options)


def metrics_rows(results: dict[str, Result]) -> tuple[list[Col], list[list[str]]]:
    """The columns and rows of the end table, one row per scheduler: the headline metrics
    and the simulator's speed; with co-location also the mean job speedup, the share slower
    than compact, the share spread and (with more than one scheduler) the makespan gain over
    the first one (``-`` on its own row)."""
    from ..metrics import improvement
    from ..tables import Col
    from ..tables import number as _fmt

    coloc = any("speedup_mean" in r.metrics for r in results.values())
    gains = coloc and len(results) > 1  # one scheduler: no baseline to gain over
    names = ["makespan h", "util %", "wait mean h", "wait p95 h", "bsld mean", "bsld p95"]
    if coloc:
        names += ["speedup", "slower %", "spread %"] + (["gain %"] if gains else [])
    names += ["valid", "sim s", "jobs/s", "days/hour"]
    cols = [Col("scheduler", "left", wrap=True), *(Col(n) for n in names)]
    base = next(iter(results.values()), None)
    rows = []
    for name, r in results.items():
        m = r.metrics
        valid = getattr(r, "_violations", None)
        extra = []
        if coloc:
            extra = [
                _fmt(m.get("speedup_mean", math.nan), 3),
                _fmt(100 * m.get("slower_than_compact", math.nan)),
                _fmt(100 * m.get("spread_share", math.nan)),
            ]
            if gains:
                gain = None if r is base else improvement(r.jobs, base.jobs)
                extra.append("-" if gain is None else _fmt(gain["makespan_improvement"], 1))
        rows.append(
            [
                name,
                _fmt(m["makespan"] / 3600),
                _fmt(100 * m["utilization"]),
                _fmt(m["wait_mean"] / 3600, 2),
                _fmt(m["wait_p95"] / 3600, 2),
                _fmt(m["bounded_slowdown_mean"], 2),
                _fmt(m["bounded_slowdown_p95"], 2),
                *extra,
                "-" if valid is None else ("yes" if not valid else f"NO ({len(valid)})"),
                _fmt(r.wall_time, 3),
                _fmt(m.get("jobs_per_s", math.nan), 0),
                _fmt(m.get("days_per_hour", math.nan), 0),
            ]
        )
    return cols, rows


def coloc_notice(name: str, metrics: dict, cluster: Cluster) -> str | None:
    """One line when co-scheduler ``name`` could not co-locate anything, with the reason
    (from :func:`coschedlab.metrics.spread_reasons`); None when it could."""
    from ..platform import spread_cores

    n = int(metrics.get("n_jobs", 0))
    if not n or "spread_share" not in metrics:
        return None
    if metrics["spread_share"] == 0:
        why = []
        large = int(metrics.get("too_large_to_spread", 0))
        if large:
            half = spread_cores(cluster)
            why.append(
                f"{large:,} too large to spread on {cluster.nodes:,} nodes "
                f"(at most {cluster.nodes * half:,} processors at {half} cores per node)"
            )
        chosen = int(metrics.get("compact_by_choice", 0))
        if chosen:
            why.append(f"{chosen:,} placed compact when nothing was free to spread them")
        return f"note: {name} spread no job" + (f": {'; '.join(why)}" if why else "")
    if metrics.get("shared_share", 1) == 0:
        return (
            f"note: {name} spread {metrics['spread_share']:.0%} of the jobs but no two ever "
            "shared a node (never a partner waiting beside a running job)"
        )
    if metrics.get("unknown_app", 0) == n:
        return (
            f"note: {name}: no job's application is in the pool (SWF field 14 and the "
            "Applications header), so every job ran at speedup 1"
        )
    return None


def run_simulate(
    trace: Path | str,
    scheduler: list[str],
    nodes: int | None = None,
    cores_per_node: int | None = None,
    sockets: int | None = None,
    pool: Path | None = None,
    heatmap: Path | None = None,
    compact_times: Path | None = None,
    kill_at_walltime: bool = False,
    dependencies: bool = False,
    strict: bool = False,
    out: Path | None = None,
    force: bool = False,
    pass_timeout: float | None = None,
    wake_limit: int | None = None,
    validate: bool = True,
    swf_integers: bool = False,
) -> int:
    """``coschedlab simulate`` with its options' values (:func:`coschedlab.cli.core.simulate`
    says what each means; ``trace``: the word ``-`` reads standard input); the exit code: 1
    when a run broke an invariant, else 0."""
    from .. import api  # noqa: F401 (the compiled core: not built or stale is said first)
    from ..bundled import file_name, local_path
    from ..engine.watchdog import check_limit, check_wake_limit
    from ..outputs import atomic_dir, check_target, slug
    from ..schedulers import get_scheduler

    trace = stdin_trace(trace)
    check_limit(pass_timeout)
    check_wake_limit(wake_limit)
    # fail fast on a bad name or option; co-schedulers that spread get a notice if they can't
    policies = [get_scheduler(s) for s in scheduler]
    spreads = [getattr(p, "placement", None) == "spread" for p in policies]  # co-schedulers
    folders = [slug(p.describe()).lstrip(".") or "scheduler" for p in policies]
    for k, folder in enumerate(folders):
        if folder in folders[:k]:
            raise InputError(
                f"schedulers {scheduler[folders.index(folder)]!r} and {scheduler[k]!r} both "
                f"describe themselves as {policies[k].describe()!r}: their results would share "
                "one folder; give them different names"
            )
    the_pool = None
    if pool is not None or heatmap is not None or compact_times is not None:
        from .coloc import load_pool_option  # the co-location package (and typer's module)

        the_pool = load_pool_option(pool, heatmap, compact_times)
    if not local_path(trace).exists():  # said first, not "--out holds a result; --force"
        raise InputError(f"{trace}: No such file or directory")
    target = out if out is not None else new_output_dir(Path("out/simulate"), trace)
    read = (trace, pool, heatmap, compact_times)  # --force replaced a result.swf it read
    check_target(target, force, whole=True, inputs=read)  # before the work, not after
    workload, cluster = load_trace(trace, nodes, cores_per_node, sockets, strict)
    say(f"{workload.summary()} on {cluster}")
    if the_pool is not None:
        from ..engine.accounting import check_shared  # (before any run, not at the first)

        check_shared(cluster.nodes, cluster.cores_per_node)
        _check_apps(workload, the_pool, trace, strict)
    results = {}
    notices = []
    run_options = dict(
        kill_at_walltime=kill_at_walltime,
        dependencies=dependencies,
        pass_timeout=pass_timeout,
        wake_limit=wake_limit,
    )
    # our own default folder, taken meanwhile by a parallel run: the result goes beside it
    written_dir = atomic_dir(target, force, beside=out is None)
    with written_dir as tmp:
        for k, (spec, spread, folder) in enumerate(zip(scheduler, spreads, folders, strict=True)):
            r = _progress_run(workload, cluster, spec, pool=the_pool, **run_options)
            if k == len(scheduler) - 1:  # the workload's last reference: the columns the result
                del workload  # does not share (run, preceding, think_time: 1M jobs, 22 MB) go
            if spread:
                notices.append(coloc_notice(r.scheduler, r.metrics, cluster))
            if validate:
                r._violations = r.validate()
            r.input_run = None  # (the validator's: 1M jobs, 8 MB not kept while writing)
            sub = tmp if len(scheduler) == 1 else tmp / folder
            sub.mkdir(exist_ok=True)
            r.write(sub, swf_integers)
            results[r.scheduler] = r
    target = written_dir.final
    global written
    written = target
    say_table(file_name(trace), *metrics_rows(results))
    for line in filter(None, notices):
        _console().print(line, highlight=False, soft_wrap=True)
    say(f"outputs in {target}/")
    bad = [name for name, r in results.items() if getattr(r, "_violations", None)]
    for name in bad:
        for v in results[name]._violations[:5]:
            from rich.markup import escape

            _console("err_console").print(f"[red]{escape(f'{name}: {v}')}[/red]")
    return 1 if bad else 0


def _check_apps(workload: Workload, pool: object, trace: Path, strict: bool) -> None:
    """Jobs whose application the pool does not know: an error with ``strict``, else said."""
    from ..coloc.speed import unknown_app_jobs

    names = list(pool.heatmap.names)  # type: ignore[attr-defined]
    unknown = unknown_app_jobs(workload, names)
    if not len(unknown):
        return
    first = int(unknown[0])
    job, app = int(workload.columns["id"][first]), int(workload.columns["app"][first])
    what = (
        f"{len(unknown):,} of {len(workload):,} jobs have an application the pool does not know "
        f"(first: job {job}, application {app})"
    )
    if strict:
        raise InputError(f"{what}; without --strict they run at speedup 1", str(trace))
    _console("err_console").print(
        f"note: {what}: they run at speedup 1 beside any neighbour (--strict refuses them)",
        soft_wrap=True,
    )


def stdin_trace(trace: Path | str) -> Path:
    """``trace`` as a path, or for the word ``-`` standard input (gzip or plain, as a file
    is): ``/dev/stdin``; a file named ``-`` is ``./-`` (or ``Path("-")``). Standard input
    closed, or a terminal (nothing piped in: the command would wait for typing), is an
    :class:`InputError`."""
    if not isinstance(trace, str) or trace != "-":
        return Path(trace)
    try:
        tty = sys.stdin is not None and sys.stdin.isatty()
        there = sys.stdin is not None and os.path.exists("/dev/stdin")
    except (OSError, ValueError):  # (closed)
        tty, there = False, False
    if tty or not there:
        state = "a terminal" if tty else "closed"
        raise InputError(
            f"standard input is {state}: pipe a trace into it (zcat t.swf.gz | coschedlab "
            "simulate -), or give ./- for a file named -",
            "-",
        )
    return Path("/dev/stdin")


def new_output_dir(parent: Path, source: Path) -> Path:
    """A directory under ``parent`` named after ``source`` (``KTH-SP2`` for
    ``KTH-SP2.swf.gz``) that does not exist yet: ``NAME``, else ``NAME-2``, ``NAME-3``, ...;
    control characters of the name (a line end, an escape) become ``_``, and a name of dots
    alone is ``run``."""
    from ..bundled import file_name
    from ..outputs import MAX_NAME

    name = file_name(source)
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    name = "".join("_" if ord(c) < 32 or ord(c) == 127 else c for c in name)
    if not name.strip("."):
        name = ""
    while len(os.fsencode(name)) > MAX_NAME - 8:  # a long trace name: room for "-99999"
        name = name[:-1]
    candidate = parent / (name or "run")
    k = 2
    while os.path.lexists(candidate):  # (a dangling link too: not followed)
        candidate = parent / f"{name}-{k}"
        k += 1
    return candidate
