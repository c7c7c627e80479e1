"""``coschedlab validate``: check a schedule's invariants, from coschedlab or any simulator.

PATH is a result directory written by ``simulate`` (its jobs.parquet and its Batsim jobs.csv
are each checked on their own), a jobs.parquet, or a Batsim ``jobs.csv`` written by any
simulator. The machine comes from ``metrics.json`` beside the file, else from ``--nodes`` (and
``--cores-per-node``, else the ``cores_per_node`` column of a jobs.csv of cores), else from
the highest allocated node id (a note says so); the guarantees to check from that
metrics.json's ``guarantees`` list, else from ``--guarantee``.

Exit codes: 0 every invariant holds, 1 an invariant is broken (each violation is printed),
2 the input is malformed (one line ``error: FILE:LINE: what``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..bundled import read_json
from ..errors import InputError, check_counts
from ..platform import Cluster
from ..validator import GUARANTEES, Report, check_jobs, run_time_violations

if TYPE_CHECKING:  # pragma: no cover (pandas is imported where a file is read)
    import pandas as pd

PARQUET = "jobs.parquet"
CSV = "jobs.csv"
META = "metrics.json"


def validate(
    path: Annotated[
        Path,
        typer.Argument(
            help="a result directory written by simulate, a jobs.parquet, or a Batsim jobs.csv "
            "from any simulator"
        ),
    ],
    nodes: Annotated[
        int | None,
        typer.Option(
            help="machine size in nodes (Batsim resources, or their nodes when the jobs.csv's "
            "resource_unit is core); default: metrics.json, else the highest allocated node "
            "id + 1"
        ),
    ] = None,
    cores_per_node: Annotated[
        int | None,
        typer.Option(
            help="cores per node (shared nodes); default: metrics.json, else the jobs.csv's "
            "cores_per_node column"
        ),
    ] = None,
    guarantee: Annotated[
        list[str] | None,
        typer.Option(
            "--guarantee",
            "-g",
            help=f"a promise to check ({', '.join(GUARANTEES)}); repeat; replaces the "
            "guarantees listed in metrics.json",
        ),
    ] = None,
    max_errors: Annotated[int, typer.Option(help="violations to report per file")] = 20,
    trace: Annotated[
        str | None,
        typer.Option(
            help="the input trace (SWF) the result was simulated from: each job's run time "
            "is checked against it (a file holds none to compare with)"
        ),
    ] = None,
    pool: Annotated[
        Path | None,
        typer.Option(
            help="with --trace, for a run on shared nodes: the ELiSE pool JSON it ran with; "
            "each spread job's run time must lie between its work at the fastest and at the "
            "slowest speedup the pool allows it"
        ),
    ] = None,
) -> None:
    """Check the schedule invariants of a result directory, a jobs.parquet or a Batsim jobs.csv
    (exit 1 if any is broken, 2 on malformed input)."""
    check_counts(must="at least 1", max_errors=max_errors)
    files, meta_path = _targets(path)
    meta = read_json(meta_path) if meta_path is not None else None
    if meta is not None and not isinstance(meta, dict):
        raise InputError("not a coschedlab metrics.json (expected an object)", where=str(meta_path))
    cluster = _cluster(meta, meta_path, nodes, cores_per_node, files[0])
    # a machine told by metrics.json or --cores-per-node; else a jobs.csv of cores tells it
    cpn_given = cores_per_node is not None or bool(meta and isinstance(meta.get("cluster"), dict))
    guarantees, note = _guarantees(meta, meta_path, guarantee)
    if note:
        typer.echo(note)
    options = meta.get("options") if meta else None
    truncated = isinstance(options, dict) and bool(options.get("truncated"))
    if truncated:
        guarantees = ()
        typer.echo(
            f"{meta_path}: the run was stopped at t={options.get('until')}: the jobs it never "
            "started are left out, and so are the scheduler's guarantees (they need the whole "
            "queue)"
        )
    scheduler = str(meta.get("scheduler", "")) if meta else ""
    if pool is not None and trace is None:
        raise InputError("--pool goes with --trace (the jobs' applications are in the trace)")
    runs = _input_runs(trace, pool) if trace is not None else None
    capped = isinstance(options, dict) and options.get("kill_at_walltime") is True
    broken = False
    for f in files:
        table, notes = _load(f, cluster)
        if truncated:
            import numpy as np
            import pandas as pd

            table = table[np.isfinite(pd.to_numeric(table["start"], errors="coerce"))]
        known = cluster if cluster is not None else _inferred(table, cores_per_node, f, notes)
        machine = _machine_of(table, known, cpn_given, f)
        try:
            rep = check_jobs(
                table, machine, guarantees=guarantees, scheduler=scheduler,
                max_errors=max_errors,
            )  # fmt: skip
        except InputError as exc:
            raise InputError(str(exc), where=str(f)) from None
        if runs is not None:
            _check_run_times(table, runs, rep, str(trace), machine.cores_per_node, capped)
        broken |= not rep.ok
        _print(f, rep, notes)
    if broken:
        raise typer.Exit(1)


def _input_runs(trace: str, pool: Path | None) -> dict[Any, tuple[float, Any]]:
    """Each job's run time in the input trace, by job id (``--trace``), with the speed model
    of ``pool`` (``--pool``) and the job's row in its heatmap (else None and -1)."""
    import numpy as np

    from ..workload.swf import read_swf

    w = read_swf(trace)
    ids = np.asarray(w.columns["id"]).tolist()
    run = np.asarray(w.columns["run"], dtype=float).tolist()
    if pool is None:
        return {i: (r, None, -1) for i, r in zip(ids, run, strict=True)}
    from ..coloc import load_pool
    from ..coloc.speed import ColocationSpeed, app_rows_of

    # both rules of the spread-alone speedup (ours, ELiSE's): bounds that hold for either
    models = [ColocationSpeed.from_pool(load_pool(pool), rule) for rule in ("measured", "elise")]
    rows = app_rows_of(w, list(models[0].heatmap.names)).tolist()
    return {i: (r, models, a) for i, r, a in zip(ids, run, rows, strict=True)}


def _check_run_times(
    table: pd.DataFrame,
    runs: dict[Any, tuple[float, Any, int]],
    rep: Report,
    trace: str,
    cpn: int,
    capped: bool,
) -> None:
    """``--trace``: each job ran for its run time in the trace (:func:`run_time_violations`,
    the check of every simulation). On shared nodes, a job on whole nodes ran at speedup 1;
    a spread one between the speedups ``--pool`` allows it (without: not bounded, a note
    says so). ``capped`` (the run killed jobs at their walltime): none ran past it."""
    import numpy as np
    import pandas as pd

    ids = table["job_id"].tolist()
    known = np.fromiter((i in runs for i in ids), dtype=bool, count=len(ids))
    if not known.all():
        first = ids[int(np.flatnonzero(~known)[0])]
        more = int((~known).sum()) - 1
        rep.violations.append(
            f"job {first} is not in {trace}" + (f" (nor {more} more jobs)" if more else "")
        )
    t = table[known]
    if "killed" in t.columns:
        killed = t["killed"].fillna(False).to_numpy(dtype=bool)
    elif "final_state" in t.columns:
        killed = (t["final_state"] == "COMPLETED_WALLTIME_REACHED").to_numpy(dtype=bool)
    else:
        killed = np.zeros(len(t), dtype=bool)
    inputs = [runs[i] for i in t["job_id"].tolist()]
    speeds = None
    if "node_cores" in t.columns:
        speeds = _speed_bounds(t, inputs, cpn, rep)
    rep.violations += run_time_violations(
        t["job_id"], pd.to_numeric(t["start"], errors="coerce"),
        pd.to_numeric(t["end"], errors="coerce"), pd.to_numeric(t["requested_time"]),
        killed, [r[0] for r in inputs], f"in this file (the input is {trace})", speeds, capped,
    )  # fmt: skip
    rep.checked.append("run times")


def _speed_bounds(t: pd.DataFrame, inputs: list, cpn: int, rep: Report) -> tuple[Any, Any]:
    """``(slowest, fastest)`` speedup of each job of a run on shared nodes: 1 on whole nodes;
    a spread job's from the pool's model (:meth:`.coloc.speed.ColocationSpeed.speed_bounds`,
    the least and the greatest of its rules), else 0 and inf (a note)."""
    import numpy as np
    import pandas as pd

    compact = pd.to_numeric(t["node_cores"], errors="coerce").to_numpy() == cpn
    models = inputs[0][1] if inputs else None
    if models is None:
        spread = int((~compact).sum())
        if spread:
            rep.notes.append(
                f"{spread} spread jobs' run times not bounded (their speedups depend on the "
                "pool: give --pool)"
            )
        return np.where(compact, 1.0, 0.0), np.where(compact, 1.0, np.inf)
    rows = [r[2] for r in inputs]
    bounds = [m.speed_bounds(rows, compact) for m in models]
    return np.minimum(*(b[0] for b in bounds)), np.maximum(*(b[1] for b in bounds))


def _targets(path: Path) -> tuple[list[Path], Path | None]:
    """The files to check and the metrics.json that describes them (None when absent)."""
    if path.is_dir():
        meta = path / META
        files = [path / name for name in (PARQUET, CSV) if (path / name).is_file()]
        if not files:
            also = "" if meta.is_file() else " (and no metrics.json)"
            raise InputError(
                f"no {PARQUET} or {CSV} here{also}; give a directory written by simulate, "
                "a jobs.parquet or a Batsim jobs.csv",
                where=str(path),
            )
        return files, meta if meta.is_file() else None
    if not path.exists():
        raise InputError("no such file or directory", where=str(path))
    if path.suffix not in (".parquet", ".csv"):
        raise InputError(
            "not a jobs.parquet or a Batsim jobs.csv (expected a .parquet or .csv file, or a "
            "result directory)",
            where=str(path),
        )
    meta = path.parent / META
    return [path], meta if meta.is_file() else None


def _cluster(
    meta: dict | None, meta_path: Path | None, nodes: int | None, cpn: int | None, first: Path
) -> Cluster | None:
    """The machine from --nodes/--cores-per-node, else metrics.json; None when neither tells
    its size (:func:`_inferred` reads it from the allocations)."""
    check_counts(must="positive", nodes=nodes, cores_per_node=cpn)
    stored: dict[str, Any] = {}
    if meta is not None:
        stored = meta.get("cluster") or {}
        if not isinstance(stored, dict):
            raise InputError("'cluster' is not an object", where=str(meta_path))
    if nodes is None and "nodes" not in stored:
        return None
    try:
        size = nodes if nodes is not None else int(stored["nodes"])
        if cpn is not None:
            return Cluster(size, 1, cpn)
        sockets = int(stored.get("sockets_per_node", 1))
        return Cluster(size, sockets, int(stored.get("cores_per_socket", 1)))
    except (TypeError, ValueError, OverflowError) as exc:
        given = [n for n, v in (("--nodes", nodes), ("--cores-per-node", cpn)) if v is not None]
        if given or meta_path is None:  # the options' machine (there was "None: bad cluster")
            raise InputError(f"{' / '.join(given)}: {exc}") from None
        raise InputError(f"bad cluster ({exc})", where=str(meta_path)) from None


def _inferred(table: pd.DataFrame, cpn: int | None, f: Path, notes: list[str]) -> Cluster:
    """The machine of a file given without its size: as many nodes as the highest allocated
    node id says (every check still runs: the overlaps, the times, the dependencies; no node
    beyond that id was used), said in one note. A file whose jobs do not all record their
    allocation cannot tell it: the size is needed then."""
    import numpy as np
    import pandas as pd

    from ..intervals import parse_alloc_column

    started = np.isfinite(pd.to_numeric(table["start"], errors="coerce").to_numpy(float))
    allocs = table["alloc"].tolist() if "alloc" in table.columns else [None] * len(table)
    recorded = np.array([isinstance(a, str) and bool(a.strip()) for a in allocs], dtype=bool)
    if not len(table):  # nothing to place on any machine
        notes.append("no jobs: no machine size needed")
        return Cluster(1, 1, cpn or 1)
    if not (recorded | ~started).all() or not recorded.any():
        raise InputError(
            "the machine size is needed: give --nodes N (no metrics.json beside the file, and "
            "not every job records its allocation, from which it could be read)",
            where=str(f),
        )
    _rows, first, count = parse_alloc_column(allocs)
    highest = int((first + count).max()) - 1
    widest = int(pd.to_numeric(table["nodes"], errors="coerce").max())
    size = max(highest + 1, widest, 1)
    notes.append(
        f"no machine size given (--nodes, or a metrics.json beside the file): {size:,} nodes, "
        f"from the highest allocated node id ({highest:,})"
    )
    return Cluster(size, 1, cpn or 1)


def _machine_of(table: pd.DataFrame, cluster: Cluster, given: bool, f: Path) -> Cluster:
    """The machine to check ``table`` on: a jobs.csv of cores (``resource_unit`` core) names
    its cores per node, which must be the machine's when that is known."""
    cpn = table.attrs.get("cores_per_node")
    if cpn is None or cpn == cluster.cores_per_node:
        return cluster
    if given:
        raise InputError(
            f"cores_per_node is {cpn} in the file, but the machine has {cluster.cores_per_node} "
            "cores per node",
            where=str(f),
        )
    return Cluster(cluster.nodes, 1, cpn)


def _guarantees(
    meta: dict | None, meta_path: Path | None, given: list[str] | None
) -> tuple[tuple[str, ...], str]:
    if given:
        return tuple(given), ""
    if meta is None:
        return (), ""
    if "guarantees" not in meta:
        return (), (
            f"{meta_path}: lists no guarantees (written before they were recorded): only the "
            "invariants of every schedule are checked; give --guarantee to check more"
        )
    stored = meta["guarantees"]
    if not isinstance(stored, list) or not all(isinstance(g, str) for g in stored):
        raise InputError("'guarantees' is not a list of names", where=str(meta_path))
    return tuple(stored), ""


def _load(f: Path, cluster: Cluster | None) -> tuple[pd.DataFrame, list[str]]:
    """The job table of ``f`` and notes about how it was read."""
    if f.suffix == ".parquet":
        try:
            import pandas as pd

            return pd.read_parquet(f), []
        except Exception as exc:  # pyarrow raises several kinds on a broken file
            raise InputError(f"not a readable parquet file ({exc})", where=str(f)) from None
    from ..workload.batsim import read_jobs_csv

    table, notes = read_jobs_csv(f)
    parquet = f.parent / PARQUET
    if parquet.is_file() and f.name == CSV:
        _add_from_parquet(table, notes, parquet, cluster)
    return table, notes


#: per-job facts a Batsim jobs.csv cannot hold: cores used on each node (shared nodes, unless
#: the file's resources are cores), the parents and the think time (dependencies)
FROM_PARQUET = {"node_cores": "cores per node", "deps": "dependencies", "think": "think times"}


def _add_from_parquet(table: pd.DataFrame, notes: list[str], parquet: Path, cluster) -> None:
    """Complete a result directory's jobs.csv with what only its jobs.parquet can say; the
    times and allocations checked stay the csv's own."""
    import pyarrow.parquet as pq

    try:
        names = pq.ParquetFile(parquet).schema_arrow.names
        cols = [c for c in FROM_PARQUET if c in names and c not in table.columns]
        if "job_id" not in names or not cols:
            return
        import pandas as pd

        extra = pd.read_parquet(parquet, columns=["job_id", *cols]).set_index("job_id")
    except Exception:  # an unreadable parquet file is reported when it is checked itself
        return
    if extra.index.has_duplicates:
        return
    ids = table["job_id"]
    if "node_cores" in cols:
        fill = cluster.cores_per_node if cluster is not None else 1
        table["node_cores"] = ids.map(extra["node_cores"]).fillna(fill)
        table["node_cores"] = table["node_cores"].astype("int64")
    for col, fill in (("deps", ""), ("think", 0.0)):
        if col in cols:
            table[col] = ids.map(extra[col]).fillna(fill)
    what = ", ".join(FROM_PARQUET[c] for c in cols)
    notes.append(
        f"{what} of each job from {parquet.name} (a Batsim jobs.csv has no place for them)"
    )


def _print(f: Path, rep: Report, notes: list[str]) -> None:
    checked = f"checked: {', '.join(rep.checked)}"
    if rep.ok:
        typer.echo(f"{f}: {rep.n_jobs:,} jobs, all invariants hold ({checked})")
    else:
        for v in rep.violations:
            typer.echo(f"{f}: {v}")
        typer.echo(
            f"{f}: {rep.n_jobs:,} jobs, {len(rep.violations)} violation(s) shown ({checked})"
        )
    for item in rep.not_checked:
        typer.echo(f"{f}: not checked: {item}")
    for note in notes + rep.notes:
        typer.echo(f"{f}: note: {note}")
