"""The golden cases: what runs, how, and how its jobs.csv is compared (see the test module).

A case is run the way the command line runs it and gives one or more ``jobs.csv`` texts (a
coupled run one per system, a workflow run one per mode), each with its headline metrics:

* ``trace/...``: a bundled real trace (or the shared SDSC-SP2 the tests read) cut to its first
  ``PREFIX`` job lines (the full trace under ``@pytest.mark.slow``), read by the command's own
  :func:`coschedlab.cli.batch.load_trace`, simulated by :func:`coschedlab.api.simulate` (what
  ``coschedlab simulate`` calls) and written by :meth:`Result.to_batsim_csv` (what
  ``Result.write`` writes as jobs.csv); the co-schedulers with the bundled ARIS NPB pool on the
  trace's machine as 4-core nodes of 2 sockets (``--nodes N --cores-per-node 4 --sockets 2``);
* ``coloc/...``: the README's co-location workload (``coschedlab generate`` from the bundled
  ARIS pool) and one from the grvingt pool, simulated with ``--pool --kill-at-walltime``;
* ``elise/...``: the ELiSE golden experiment ``smoke`` (tests/coloc/elise) through ELiSE's run
  path (:func:`coschedlab.coloc.elise.run.simulate_run`), without and with ``--compat all``;
* ``workflows/...``: the workflow CLI test's workload (``workflows generate`` then ``workflows
  simulate``, in process through the command-line app), every mode;
* ``coupled/...``: the Cobalt Qsim golden inputs (tests/coupled/test_cobalt_golden.py's run:
  every hold/yield combination, our rules and ``compat="cobalt"``) and the coupled CLI test's
  two small traces through ``coupled simulate``.

jobs.csv holds nothing that varies between runs (no wall time): the whole file is hashed.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import io
import json
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parent
DATA = HERE / "data"
ROWS = DATA / "rows"
GOLDEN_CSV = DATA / "golden.csv"
BUNDLED = ROOT / "src" / "coschedlab" / "data"
SHARED_SWF = Path("/work/shared/data/swf")
POOL = BUNDLED / "pools" / "lm-aris.compute-NAS.json"

#: job lines kept of each trace in the fast run (the slow run takes the whole trace)
PREFIX = 1000
#: the traces: name -> (file, nodes of 4 cores with which the co-schedulers share nodes)
TRACES = {
    "kth": (BUNDLED / "KTH-SP2-1996-2.1-cln.swf.gz", 25),
    "theta": (BUNDLED / "theta_2022.swf.gz", 1090),
    "sdsc": (SHARED_SWF / "SDSC-SP2-1998-4.2-cln.swf.gz", 32),
}
#: the built-in batch schedulers (whole nodes), then non-default options of each family
BATCH = (
    "fcfs", "sjf", "firstfit", "easy", "backfill", "conservative", "slurm", "elise-conservative",
    "fcfs:order=sjf", "firstfit:order=sjf", "easy:order=sjf", "easy:order=wfp",
    "easy:extra=false,depth=50", "easy:interval=300", "backfill:reservations=2",
    "backfill:reservations=4,order=sjf", "conservative:compress=true", "slurm:bf_interval=120",
    "slurm:priority=fifo,bf_max_job_test=20", "elise-conservative:depth=10,backfill=false",
)  # fmt: skip
#: the co-schedulers (with a pool), then non-default options
COSCHED = (
    "easy-coloc", "filler", "ranks", "bester", "jungle", "slowdown", "best-pair",
    "easy-coloc:placement=compact", "easy-coloc:fallback=true,depth=20", "ranks:backfill=false",
    "filler:extra=false",
)  # fmt: skip
#: the key columns of jobs.csv kept (gzipped) for the fast cases, to show differing rows
KEY_COLUMNS = ("job_id", "starting_time", "finish_time", "allocated_resources")
#: allocations longer than this are kept as their start and a checksum
LONG = 64
METRICS = ("n_jobs", "makespan", "utilization", "wait_mean", "bounded_slowdown_mean")


@dataclass(frozen=True)
class Case:
    """One run: ``name`` (a path-like label), ``fast`` (in the default run) and ``run``, which
    takes a scratch directory and yields (label, jobs.csv bytes, metrics) per jobs.csv."""

    name: str
    fast: bool
    run: Callable[[Path], Iterator[tuple[str, bytes, dict]]]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _short(text: str) -> str:
    """A long allocation (cores of hundreds of nodes) as its start and a checksum."""
    if len(text) <= LONG:
        return text
    return f"{text[:24]}...[{len(text)} chars, crc32 {zlib.crc32(text.encode()):08x}]"


def key_rows(data: bytes) -> list[list[str]]:
    """The :data:`KEY_COLUMNS` of a jobs.csv text, as written (header first; an allocation
    longer than :data:`LONG` characters shortened to its start and a checksum)."""
    reader = csv.reader(io.StringIO(data.decode()))
    header = next(reader)
    idx = [header.index(c) if c in header else None for c in KEY_COLUMNS]
    head = [c if i is not None else f"(no {c})" for c, i in zip(KEY_COLUMNS, idx, strict=True)]
    return [head] + [["-" if i is None else _short(row[i]) for i in idx] for row in reader]


def rows_file(digest: str, rows_dir: Path = ROWS) -> Path:
    """The stored key columns of the jobs.csv whose sha256 is ``digest`` (identical outputs,
    such as easy's and backfill's defaults, share one file)."""
    return rows_dir / f"{digest[:16]}.csv.gz"


def write_rows(data: bytes, rows_dir: Path = ROWS) -> Path:
    """Store the key columns of ``data`` (gzip, no time stamp: the same bytes every time)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(key_rows(data))
    path = rows_file(sha256(data), rows_dir)
    path.write_bytes(gzip.compress(buf.getvalue().encode(), 9, mtime=0))
    return path


def read_rows(digest: str) -> list[list[str]] | None:
    """The stored key columns of the jobs.csv whose sha256 is ``digest`` (None: not kept)."""
    path = rows_file(digest)
    if not path.exists():
        return None
    return list(csv.reader(io.StringIO(gzip.decompress(path.read_bytes()).decode())))


def first_differences(stored: list[list[str]], now: list[list[str]], k: int = 5) -> str:
    """The first ``k`` rows where the key columns differ, stored against now, one job a line."""
    lines = []
    if stored[0] != now[0]:
        lines.append(f"  header: stored {stored[0]} now {now[0]}")

    def row(rows: list[list[str]], i: int) -> list[str] | None:
        return rows[i] if i < len(rows) else None

    differ = [i for i in range(1, max(len(stored), len(now))) if row(stored, i) != row(now, i)]
    if len(stored) != len(now):
        lines.append(f"  {len(stored) - 1} rows stored, {len(now) - 1} now")
    if not differ:
        lines.append("  the key columns agree: the difference is in another column")
    for i in differ[:k]:
        lines.append(f"  row {i} stored: {','.join(stored[i]) if i < len(stored) else '-'}")
        lines.append(f"  row {i}    now: {','.join(now[i]) if i < len(now) else '-'}")
    if len(differ) > k:
        lines.append(f"  ... {len(differ)} rows differ in all")
    lines.insert(0, "  columns: " + ",".join(KEY_COLUMNS))
    return "\n".join(lines)


def read_golden(path: Path = GOLDEN_CSV) -> dict[str, dict[str, str]]:
    """golden.csv: label -> its row (sha256, rows, the metrics)."""
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {r["case"]: r for r in csv.DictReader(f)}


def metric_cells(metrics: dict) -> dict[str, str]:
    return {m: ("" if metrics.get(m) is None else f"{float(metrics[m]):.10g}") for m in METRICS}


# -- running as the command line does -------------------------------------------------------
def cli_in_process(*args: str) -> None:
    """``coschedlab ARGS`` through the command-line app, in this process (output discarded);
    a failure raises."""
    from coschedlab.cli.main import app

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = app(args=list(args), standalone_mode=False, prog_name="coschedlab")
    if code not in (None, 0):
        raise RuntimeError(f"coschedlab {' '.join(args)} exited {code}")


def prefix_swf(trace: Path, n: int | None, target: Path) -> Path:
    """The header and first ``n`` job lines of ``trace`` (all with None) as a plain SWF."""
    if n is None:
        return trace
    out = []
    jobs = 0
    with gzip.open(trace, "rt") if trace.suffix == ".gz" else open(trace) as f:
        for line in f:
            if line.lstrip().startswith(";") or not line.strip():
                out.append(line)
                continue
            if jobs == n:
                break
            out.append(line)
            jobs += 1
    target.write_text("".join(out))
    return target


def run_trace(
    trace: Path,
    spec: str,
    tmp: Path,
    n: int | None,
    machine: tuple[int | None, int | None, int | None] = (None, None, None),
    pool: Path | None = None,
    kill: bool = False,
) -> tuple[bytes, dict]:
    """``coschedlab simulate TRACE -s SPEC [--nodes --cores-per-node --sockets] [--pool]
    [--kill-at-walltime]``'s jobs.csv, run in process by the command's own functions."""
    from coschedlab.api import simulate
    from coschedlab.cli.batch import load_trace
    from coschedlab.cli.coloc import load_pool_option

    path = prefix_swf(trace, n, tmp / f"{trace.name.split('.')[0]}-{n}.swf")
    workload, cluster = load_trace(path, *machine)
    the_pool = load_pool_option(pool, None, None)
    r = simulate(workload, cluster, spec, kill_at_walltime=kill, pool=the_pool)
    csv_path = tmp / "jobs.csv"
    r.to_batsim_csv(csv_path)
    return csv_path.read_bytes(), r.metrics


def _trace_case(name: str, trace: Path, spec: str, n: int | None, **kw) -> Case:
    def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
        data, metrics = run_trace(trace, spec, tmp, n, **kw)
        yield name, data, metrics

    return Case(name, n is not None, run)


def trace_cases(full: bool) -> list[Case]:
    """Every scheduler on every trace: the prefix (``full=False``) or the whole trace."""
    n = None if full else PREFIX
    scope = "full" if full else f"first{PREFIX}"
    out = []
    for tname, (path, nodes4) in TRACES.items():
        for spec in BATCH:
            out.append(_trace_case(f"trace/{tname}-{scope}/{spec}", path, spec, n))
        for spec in COSCHED:
            name = f"trace/{tname}-{scope}/{spec}"
            out.append(_trace_case(name, path, spec, n, machine=(nodes4, 4, 2), pool=POOL))
    return out


# -- co-location workloads --------------------------------------------------------------------
COLOC_WORKLOADS = {
    # the README's: 500 ARIS NPB jobs, Poisson 15 s, 100 nodes of 2 x 24 cores
    "aris500": ("pools/lm-aris.compute-NAS.json", ["--jobs", "500", "--arrival", "poisson:15",
                "--seed", "1", "--nodes", "100", "--cores-per-node", "48", "--sockets", "2"]),
    # grvingt NPB (its own machine: 2 x 16 cores), 300 jobs, uniform arrivals
    "grvingt300": ("pools/lm-remake-g5k.nancy.grvingt-NAS.json",
                   ["--jobs", "300", "--arrival", "uniform:20", "--seed", "4", "--nodes", "32"]),
}  # fmt: skip
COLOC_SCHEDULERS = ("fcfs", "easy", "conservative", "elise-conservative") + COSCHED


def _coloc_case(wname: str, spec: str) -> Case:
    pool, args = COLOC_WORKLOADS[wname]
    name = f"coloc/{wname}/{spec}"

    def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
        swf = tmp / f"{wname}.swf"
        if not swf.exists():
            cli_in_process("generate", "--pool", f"coschedlab:{pool}", *args, "--out", str(swf))
        data, metrics = run_trace(swf, spec, tmp, None, pool=BUNDLED / pool, kill=True)
        yield name, data, metrics

    return Case(name, True, run)


def coloc_cases() -> list[Case]:
    return [_coloc_case(w, s) for w in COLOC_WORKLOADS for s in COLOC_SCHEDULERS]


# -- ELiSE's experiment file ------------------------------------------------------------------
ELISE_CASE = "smoke"


def elise_cases() -> list[Case]:
    """The ELiSE golden experiment, each run as ``coschedlab elise run`` runs it."""

    def run_with(compat_name: str) -> Callable[[Path], Iterator[tuple[str, bytes, dict]]]:
        def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
            sys.path.insert(0, str(TESTS / "coloc" / "elise"))
            try:
                from _golden import run_tasks
            finally:
                sys.path.remove(str(TESTS / "coloc" / "elise"))
            from coschedlab.coloc.elise.experiment import COMPAT
            from coschedlab.coloc.elise.run import simulate_run

            compat = frozenset(COMPAT) if compat_name == "all" else frozenset()
            for _case, r, s, task in run_tasks(ELISE_CASE, compat):
                result = simulate_run(task)[0]
                result.to_batsim_csv(tmp / "jobs.csv")
                label = f"elise/{ELISE_CASE}-compat-{compat_name}/{r.inp}-{r.k}-{s.spec(compat)}"
                yield label, (tmp / "jobs.csv").read_bytes(), result.metrics

        return run

    return [Case(f"elise/{ELISE_CASE}-compat-{c}", True, run_with(c)) for c in ("none", "all")]


# -- workflows ------------------------------------------------------------------------------------
#: tests/workflows/test_workflow_cli.py's workload, and the bundled CyberShake on a small machine
WORKFLOW_WORKLOADS = {
    "B4": ["-w", "B4", "--share", "0.3", "--machine", "80x24", "--window", "21600",
           "--warmup", "3600", "--target-wait", "1800"],
    "cybershake": ["-w", "coschedlab:workflows/CyberShake_1000.xml.gz", "--coarse", "all",
                   "--period", "7200", "--machine", "64x24", "--window", "21600", "--warmup",
                   "3600", "--target-wait", "1800", "--seed", "2"],
}  # fmt: skip


def _read_result(d: Path) -> tuple[bytes, dict]:
    meta = json.loads((d / "metrics.json").read_text())
    return (d / "jobs.csv").read_bytes(), meta["metrics"]


def _workflow_case(wname: str, scheduler: str) -> Case:
    name = f"workflows/{wname}/{scheduler}"

    def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
        wl, out = tmp / f"wl-{wname}", tmp / f"r-{wname}-{scheduler}"
        if not wl.exists():
            cli_in_process("workflows", "generate", *WORKFLOW_WORKLOADS[wname], "--out", str(wl))
        cli_in_process("workflows", "simulate", str(wl), "-s", scheduler, "--out", str(out))
        for mode in sorted(p.name for p in out.iterdir() if (p / "jobs.csv").is_file()):
            yield (f"{name}/{mode}", *_read_result(out / mode))

    return Case(name, True, run)


def workflow_cases() -> list[Case]:
    return [
        _workflow_case("B4", "slurm"),
        _workflow_case("B4", "easy"),
        _workflow_case("cybershake", "slurm"),
    ]


# -- coupled systems ----------------------------------------------------------------------------
def _cobalt_case(bg: str, cl: str, compat: str | None) -> Case:
    name = f"coupled/cobalt-{bg}-{cl}-compat-{compat or 'none'}"

    def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
        sys.path.insert(0, str(TESTS / "coupled"))
        try:
            from test_cobalt_golden import SYSTEMS, _ours
        finally:
            sys.path.remove(str(TESTS / "coupled"))
        _c, r = _ours(bg, cl, compat)
        for system, res in zip(SYSTEMS, r.results, strict=True):
            res.to_batsim_csv(tmp / "jobs.csv")  # what CoupledResult.write writes per system
            yield f"{name}/{system}", (tmp / "jobs.csv").read_bytes(), res.metrics

    return Case(name, True, run)


#: the coupled CLI test's traces (tests/coupled/test_coupled_cli.py, fixture ``traces``)
SMALL_COUPLED = {
    "big": (8, [(0, 100, 4), (5, 50, 8), (30, 40, 2), (60, 100, 6)]),
    "small": (4, [(2, 60, 2), (6, 30, 4), (40, 20, 1), (61, 10, 4)]),
}


def _small_swf(path: Path, nodes: int, rows: list) -> Path:
    lines = [f"; MaxNodes: {nodes}", f"; MaxProcs: {nodes}"]
    for i, (s, run, n) in enumerate(rows, 1):
        lines.append(f"{i} {s} -1 {run} {n} -1 -1 {n} {run + 10} -1 1 -1 -1 -1 -1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


def _coupled_cli_case(name: str, args: list[str] | None, fast: bool = True) -> Case:
    """``coupled simulate`` through the command-line app: the CLI test's traces (``args``
    None) or the given arguments."""
    label = f"coupled/cli-{name}"

    def run(tmp: Path) -> Iterator[tuple[str, bytes, dict]]:
        if args is None:
            a, b = (_small_swf(tmp / f"{k}.swf", *v) for k, v in SMALL_COUPLED.items())
            given = ["--system", f"{a}:scheme=hold,name=big", "--system",
                     f"{b}:scheme=yield,name=small", "--pairs", "vicinity:10"]  # fmt: skip
        else:
            given = args
        out = tmp / f"coupled-{name}"
        cli_in_process("coupled", "simulate", *given, "--no-baseline", "--out", str(out))
        systems = json.loads((out / "coupled.json").read_text())["systems"]
        for system in systems:
            yield (f"{label}/{system}", *_read_result(out / system))

    return Case(label, fast, run)


def coupled_cases() -> list[Case]:
    out = [
        _cobalt_case(bg, cl, compat)
        for compat in (None, "cobalt")
        for bg, cl in (("hold", "hold"), ("hold", "yield"), ("yield", "hold"), ("yield", "yield"))
    ]
    out.append(_coupled_cli_case("small", None))
    # the command's default: theta (January 2022) + kth at load 0.5, easy:order=wfp
    out.append(_coupled_cli_case("default", []))
    return out


def all_cases(full: bool = False) -> list[Case]:
    """The fast cases (``full=False``) or the whole-trace ones."""
    if full:
        return trace_cases(True)
    return trace_cases(False) + coloc_cases() + elise_cases() + workflow_cases() + coupled_cases()
