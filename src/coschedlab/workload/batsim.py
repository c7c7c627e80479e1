"""Batsim's ``jobs.csv``: write a simulated schedule as one (readable by evalys' JobSet), and
read one written by any simulator into the validator's job table.

Batsim's output columns, in order: job_id, workload_name, profile, submission_time,
requested_number_of_resources, requested_time, success, final_state, starting_time,
execution_time, finish_time, waiting_time, turnaround_time, stretch, allocated_resources,
consumed_energy, metadata.

Mapping from a coschedlab result frame (columns ``job_id`` or ``id``, ``submit``, ``start``,
``end``, ``procs``, optionally ``nodes``, ``requested_time``, ``status``, ``app``/``profile``,
``alloc``):

* requested_number_of_resources = ``nodes`` if present, else ``procs``;
* execution_time = end - start, waiting_time = start - submit, turnaround_time = end - submit;
* stretch = turnaround_time / execution_time, as Batsim computes it: ``inf`` when the execution
  time is 0 (and empty, i.e. NaN, when the turnaround is 0 too);
* success / final_state: a job with ``killed`` true (stopped at its requested time) ->
  0, COMPLETED_WALLTIME_REACHED; otherwise from the trace's SWF ``status`` (1 or missing ->
  1, COMPLETED_SUCCESSFULLY; 5 -> 0, COMPLETED_KILLED; anything else -> 0, COMPLETED_FAILED);
* profile = the ``profile`` column, else the SWF application number ``app`` (empty when -1);
* allocated_resources = the ``alloc`` column, Batsim's interval-set text (space-separated
  closed intervals, e.g. ``"0-3 7"``); an alloc given as a list of integers is converted;
  empty when unknown (evalys then needs ``resource_bounds`` to read the file);
* consumed_energy = -1 (Batsim's value when energy is not simulated), metadata empty.

Shared nodes (co-location: a ``node_cores`` column, and ``cores_per_node`` given): the resources
are cores, so that jobs sharing a node hold disjoint resources (evalys draws one row per
resource and would otherwise draw them on top of each other). allocated_resources then holds
core ids, core k of node n being ``n * cores_per_node + k``, given by
:func:`coschedlab.core_ids.assign_core_ids` (each job takes the lowest free cores of each of its
nodes, in time order); requested_number_of_resources is the cores held (nodes x cores per
node); two columns follow Batsim's (:data:`CORE_COLUMNS`): ``resource_unit`` = ``core`` and
``cores_per_node``. A run on whole nodes keeps node ids and Batsim's 17 columns.

Reading (:func:`read_jobs_csv`) gives the table :func:`coschedlab.validator.validate_jobs`
checks: ``job_id, submit, start, end, requested_time, nodes, alloc, final_state, line``.

* Batsim writes a job once it is complete, in one of the final states COMPLETED_SUCCESSFULLY,
  COMPLETED_FAILED, COMPLETED_WALLTIME_REACHED, COMPLETED_KILLED (a job is killed only once
  started) or REJECTED. Every completed job held its ``allocated_resources`` from
  ``starting_time`` to ``finish_time`` and is checked, killed and failed ones too. A REJECTED
  job never ran (empty times, empty allocation): it is left out of the table and counted in the
  notes. A job in a non-final state (NOT_SUBMITTED, SUBMITTED, RUNNING; Batsim never writes one,
  another simulator may) keeps its row with no end, so the validator reports it as never ended;
  so does a completed job with an empty starting or finish time. Without a ``final_state``
  column every job is taken as completed.
* nodes = ``requested_number_of_resources``: a job must hold exactly as many resources as it
  asked for (Batsim's rule unless the scheduler gives a custom executor mapping).
* job_id is kept as text (``"w0!3"``) unless every id is a whole number; ids repeated across
  workloads are made unique as ``workload_name!job_id``.
* Rows are put in queue order (submission time, then id) whatever the file's order (Batsim
  writes jobs as they complete); ``line`` is each job's line in the file.
* ``requested_time`` may be absent (the guarantees that need it are then not checked).
* A file whose ``resource_unit`` column is ``core`` holds core ids: each job's cores are read
  back as its nodes (``alloc``, ``nodes``) and the cores it holds on each (``node_cores``);
  the table's ``attrs["cores_per_node"]`` is the file's ``cores_per_node``. A job must hold
  the same number of cores on each of its nodes, as many in all as its
  requested_number_of_resources. Without the column (or with ``node``) the ids are nodes.

A malformed file is an :class:`~coschedlab.errors.InputError` naming ``file:line``: a missing
column, a row with the wrong number of fields, a value that is not a number, a bad allocation
text (parsed by :func:`coschedlab.intervals.parse_intervals`), an unknown final state, a core
file whose resource_unit, cores_per_node or cores per job break the rules above.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.textrows import ALLOC, CODE, CONST, FLOAT, INT, QUOTED_INT, TEXT, write_rows
from ..core_ids import assign_core_ids, core_ids_to_nodes
from ..errors import InputError
from ..intervals import AllocColumn, parse_intervals
from ..metrics import column
from .swf import MAX_PROCS, MAX_TIME

if TYPE_CHECKING:  # pragma: no cover (the reader imports pandas and pyarrow)
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "BATSIM_COLUMNS",
    "CORE_COLUMNS",
    "FINAL_STATES",
    "interval_set",
    "read_jobs_csv",
    "write_jobs_csv",
]

BATSIM_COLUMNS: tuple[str, ...] = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)

#: Two columns after Batsim's in a jobs.csv of a run on shared nodes: ``resource_unit`` is
#: ``core`` and ``cores_per_node`` the machine's; ``allocated_resources`` then holds core ids
#: (core k of node n is ``n * cores_per_node + k``) and ``requested_number_of_resources`` the
#: cores a job holds (its nodes times its cores on each).
CORE_COLUMNS: tuple[str, ...] = ("resource_unit", "cores_per_node")


def interval_set(resources: Iterable[int]) -> str:
    """Batsim's text for a set of resource ids: ``[0, 1, 2, 3, 7]`` -> ``"0-3 7"``."""
    ids = sorted({int(r) for r in resources})
    parts = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(parts)


def _alloc_text(value: object) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Iterable):
        return interval_set(value)
    return str(int(value))


def write_jobs_csv(
    path: str | os.PathLike,
    frame: Any,
    *,
    workload_name: str = "w0",
    cores_per_node: int | None = None,
    per_job: Mapping[str, np.ndarray] | None = None,
) -> None:
    """Write ``frame`` (a simulated result: a DataFrame or a mapping of column arrays) as a
    Batsim ``jobs.csv`` (see module docstring).

    With ``cores_per_node`` and a ``node_cores`` column (a run on shared nodes), the resources
    are cores: ``allocated_resources`` holds core ids (see :data:`CORE_COLUMNS`).
    ``per_job``: the frame's ``wait``, ``response`` and ``run`` columns
    (:func:`~coschedlab.metrics.job_columns`) when already made, used as they are (a
    simulated result's: no second copy of each).
    """
    missing = [c for c in ("submit", "start", "end", "procs") if c not in frame]
    if missing:
        raise InputError(f"jobs frame is missing column(s) {missing} for a Batsim jobs.csv")

    def num(col: str) -> np.ndarray:
        return column(frame, col)

    submit, start, end = num("submit"), num("start"), num("end")
    n = len(submit)
    if "job_id" in frame:
        job_id = np.asarray(frame["job_id"])
    elif "id" in frame:
        job_id = np.asarray(frame["id"])
    else:
        job_id = np.arange(n)
    execution = end - start if per_job is None else per_job["run"]
    turnaround = end - submit if per_job is None else per_job["response"]
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = turnaround / execution
    raw = frame.get("status")
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "iu":
        status = raw  # whole numbers: none missing, compared as they are
    else:
        status = num("status") if raw is not None else np.ones(n)
        status = np.where(np.isnan(status), 1.0, status)
    del raw
    if "killed" in frame:
        k = frame["killed"]
        fillna = getattr(k, "fillna", None)  # pandas: a missing value is not killed
        killed = fillna(False).to_numpy(dtype=bool) if fillna else np.asarray(k, dtype=bool)
    else:
        killed = np.zeros(n, dtype=bool)
    success = ((status == 1) & ~killed).astype(np.int64)
    # final_state: an index into _STATES
    state = np.where(status == 1, 0, np.where(status == 5, 1, 2)).astype(np.uint8)
    state[killed] = 3
    if "profile" in frame:
        profile = (TEXT, [str(v) for v in _objects(frame["profile"])], str)
    elif "app" in frame:
        app = np.asarray(frame["app"])
        if app.dtype.kind in "iu":  # "" for -1 (unknown), else the number, quoted
            profile = (QUOTED_INT, app.astype(np.int64, copy=False))
        else:
            texts = ["" if a is None or a < 0 else str(a) for a in _objects(frame["app"])]
            profile = (TEXT, texts, str)
    else:
        profile = (CONST, b'""')
    resources = np.asarray(frame["nodes"] if "nodes" in frame else frame["procs"])
    requested = num("requested_time") if "requested_time" in frame else execution
    if "alloc" not in frame:
        alloc: tuple = (CONST, b'""')
    elif isinstance(frame["alloc"], AllocColumn):  # a run's intervals, formatted as written
        alloc = (ALLOC, frame["alloc"].arrays())
    else:
        alloc = (TEXT, _objects(frame["alloc"]), _alloc_text)
    by_core = cores_per_node is not None and "node_cores" in frame
    if by_core:
        node_cores = np.asarray(frame["node_cores"], dtype=np.int64)
        texts = [_alloc_text(a) for a in _objects(frame["alloc"])]
        alloc = (TEXT, assign_core_ids(start, end, texts, node_cores, int(cores_per_node)), str)
        resources = np.asarray(resources, dtype=np.int64) * node_cores
    out: dict[str, tuple] = {
        "job_id": _number(job_id),
        "workload_name": (CONST, _quoted(workload_name)),
        "profile": profile,
        "submission_time": (FLOAT, submit),
        "requested_number_of_resources": _number(resources),
        "requested_time": (FLOAT, requested),
        "success": (INT, success),
        "final_state": (CODE, state, _STATES),
        "starting_time": (FLOAT, start),
        "execution_time": (FLOAT, execution),
        "finish_time": (FLOAT, end),
        "waiting_time": (FLOAT, start - submit if per_job is None else per_job["wait"]),
        "turnaround_time": (FLOAT, turnaround),
        "stretch": (FLOAT, stretch),
        "allocated_resources": alloc,
        "consumed_energy": (CONST, b"-1"),
        "metadata": (CONST, b'""'),
    }
    if by_core:
        out["resource_unit"] = (CONST, b'"core"')
        out["cores_per_node"] = (CONST, str(int(cores_per_node)).encode())
    # compiled: the rows are formatted in chunks straight to the file (the text pyarrow's CSV
    # writer gave: shortest round-trip floats, NaN as an empty field, text quoted)
    with open(Path(path), "wb") as f:
        f.write((",".join(out) + "\n").encode())
        write_rows(f.write, n, list(out.values()))


#: final_state's texts, quoted, in the order of write_jobs_csv's codes
_STATES = tuple(
    f'"{s}"'.encode()
    for s in ("COMPLETED_SUCCESSFULLY", "COMPLETED_KILLED", "COMPLETED_FAILED",
              "COMPLETED_WALLTIME_REACHED")
)  # fmt: skip


def _quoted(text: str) -> bytes:
    """``text`` as a quoted CSV field (a quote inside doubled)."""
    return ('"' + text.replace('"', '""') + '"').encode()


def _number(values: Any) -> tuple:
    """A numeric column for :func:`write_rows`: whole numbers as integers, else floats."""
    a = np.asarray(values)
    if a.dtype.kind in "iub":
        return (INT, a.astype(np.int64, copy=False))
    if a.dtype.kind == "f":
        return (FLOAT, a)
    return (TEXT, [str(v) for v in a.tolist()], str)


def _objects(values: Any) -> list:
    """A column (pandas or NumPy) as a list of Python objects."""
    tolist = getattr(values, "tolist", None)
    return tolist() if tolist is not None else list(values)


# -- reading -------------------------------------------------------------------------------------

#: Batsim's final job states (a job is written to jobs.csv once in one of them).
FINAL_STATES: tuple[str, ...] = (
    "COMPLETED_SUCCESSFULLY",
    "COMPLETED_FAILED",
    "COMPLETED_WALLTIME_REACHED",
    "COMPLETED_KILLED",
    "REJECTED",
)
#: States of a job that has not completed (never in a jobs.csv Batsim wrote itself).
UNFINISHED_STATES: tuple[str, ...] = ("NOT_SUBMITTED", "SUBMITTED", "RUNNING")

#: Columns the reader needs (``requested_time``, ``final_state``, ``workload_name`` optional).
READ_COLUMNS: tuple[str, ...] = (
    "job_id",
    "submission_time",
    "requested_number_of_resources",
    "starting_time",
    "finish_time",
    "allocated_resources",
)

_USED = frozenset(READ_COLUMNS) | {"requested_time", "final_state", "workload_name", *CORE_COLUMNS}
_WHOLE = r"^[+-]?[0-9]+$"


def read_jobs_csv(path: str | os.PathLike) -> tuple[pd.DataFrame, list[str]]:
    """Read a Batsim ``jobs.csv`` (from any simulator) into the validator's job table.

    Returns ``(table, notes)``; see the module docstring for the columns and for how rejected
    and unfinished jobs are treated. Raises :class:`InputError` (``file:line: what``) on a
    malformed file.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    path = Path(path)
    header, cols = _read_text_columns(path)
    missing = [c for c in READ_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"not a Batsim jobs.csv: no column(s) {', '.join(missing)} in the header",
            where=f"{path}:1",
        )
    n = len(cols["job_id"])
    notes: list[str] = []

    def where(k: int) -> str:
        return f"{path}:{_line_of(path, k)}"

    state = cols.get("final_state")
    keep = np.ones(n, dtype=bool)
    unfinished = np.zeros(n, dtype=bool)
    if state is not None:
        known = _bools(pc.is_in(state, value_set=pa.array(FINAL_STATES + UNFINISHED_STATES)))
        if not known.all():
            k = int(np.flatnonzero(~known)[0])
            raise InputError(
                f"unknown final_state {state[k].as_py()!r} (Batsim's: {', '.join(FINAL_STATES)})",
                where=where(k),
            )
        keep = ~_bools(pc.equal(state, "REJECTED"))
        unfinished = _bools(pc.is_in(state, value_set=pa.array(UNFINISHED_STATES)))
        if (~keep).any():
            notes.append(f"{int((~keep).sum())} rejected job(s) left out (they never ran)")
        if unfinished.any():
            k = int(np.flatnonzero(unfinished)[0])
            notes.append(
                f"{int(unfinished.sum())} job(s) did not complete (first: line "
                f"{_line_of(path, k)}, {state[k].as_py()})"
            )

    submit = _numbers(cols, "submission_time", where, required=True, limit=MAX_TIME)
    start = _numbers(cols, "starting_time", where, limit=MAX_TIME)
    end = _numbers(cols, "finish_time", where, limit=MAX_TIME)
    requested = (
        _numbers(cols, "requested_time", where, limit=MAX_TIME)
        if "requested_time" in cols
        else np.full(n, np.nan)
    )
    res = _numbers(
        cols, "requested_number_of_resources", where, required=True, mask=keep, limit=MAX_PROCS
    )
    bad = np.flatnonzero(keep & (res != np.round(res)))
    if len(bad):
        k = int(bad[0])
        raise InputError(
            "requested_number_of_resources is not a whole number: "
            f"{cols['requested_number_of_resources'][k].as_py()!r}",
            where=where(k),
        )
    alloc = cols["allocated_resources"]
    for text in pc.unique(alloc.filter(pa.array(keep))).to_pylist():
        try:
            parse_intervals(text)
        except InputError as exc:
            k = int(np.flatnonzero(keep & _bools(pc.equal(alloc, text)))[0])
            raise InputError(f"allocated_resources: {exc}", where=where(k)) from None
    end = np.where(unfinished, np.nan, end)

    ids = _job_ids(cols, keep, path, where)
    rows = np.flatnonzero(keep)
    take = pa.array(rows)
    alloc_kept = alloc.take(take).to_numpy(zero_copy_only=False)
    nodes = res[rows].astype(np.int64)
    cpn = _cores_per_node(cols, keep, where)
    if cpn is not None:
        alloc_kept, nodes, node_cores = _cores_as_nodes(alloc_kept, nodes, cpn, rows, where)
        notes.append(
            f"allocated_resources are core ids ({cpn} cores per node): read as each job's "
            "nodes and the cores it holds on each"
        )
    table = pd.DataFrame(
        {
            "job_id": ids[rows],
            "submit": submit[rows],
            "start": start[rows],
            "end": end[rows],
            "requested_time": requested[rows],
            "nodes": nodes,
            "alloc": alloc_kept,
            "line": _row_lines(path, n)[rows],
        }
    )
    if state is not None:
        table["final_state"] = state.take(take).to_numpy(zero_copy_only=False)
    if cpn is not None:
        table["node_cores"] = node_cores
    # queue order: submission time, then the id when ids are whole numbers, else the file order
    idk = table["job_id"].to_numpy()
    if np.issubdtype(idk.dtype, np.number):
        order = np.lexsort((table["line"].to_numpy(), idk, table["submit"].to_numpy()))
    else:
        order = np.argsort(table["submit"].to_numpy(), kind="stable")
    table = table.iloc[order].reset_index(drop=True)
    if cpn is not None:
        table.attrs["cores_per_node"] = cpn
    return table, notes


def _cores_per_node(cols, keep, where) -> int | None:
    """The ``cores_per_node`` of a file whose ``resource_unit`` is ``core``; None for nodes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    unit = cols.get("resource_unit")
    if unit is None:
        return None
    known = _bools(pc.is_in(unit, value_set=pa.array(["core", "node"])))
    if not known.all():
        k = int(np.flatnonzero(~known)[0])
        raise InputError(
            f"resource_unit is {unit[k].as_py()!r}, expected 'core' or 'node'", where=where(k)
        )
    core = _bools(pc.equal(unit, "core"))
    if not core.any():
        return None
    if not core.all():
        k = int(np.flatnonzero(~core)[0])
        raise InputError("resource_unit is 'node' in a file of cores", where=where(k))
    if "cores_per_node" not in cols:
        raise InputError("resource_unit is 'core' but there is no cores_per_node column",
                         where=where(0))  # fmt: skip
    cpn = _numbers(cols, "cores_per_node", where, required=True, limit=MAX_PROCS)
    bad = np.flatnonzero((cpn != cpn[0]) | (cpn < 1) | (cpn != np.round(cpn)))
    if len(bad):
        k = int(bad[0])
        raw = cols["cores_per_node"][k].as_py()
        what = "differs from the first row's" if cpn[k] != cpn[0] else "is not a positive integer"
        raise InputError(f"cores_per_node {raw!r} {what}", where=where(k))
    return int(cpn[0])


def _cores_as_nodes(alloc, cores, cpn, rows, where):
    """Core-id allocations as the validator's ``(alloc, nodes, node_cores)``; each job must
    hold the same cores on each of its nodes, as many in all as its resources."""
    texts, n_nodes, fewest, most = core_ids_to_nodes(alloc.tolist(), cpn)
    held = n_nodes * fewest
    has = n_nodes > 0
    uneven = np.flatnonzero(fewest != most)
    if len(uneven):
        k = int(uneven[0])
        raise InputError(
            f"allocated_resources {alloc[k]!r} holds {fewest[k]} to {most[k]} cores on its "
            "nodes; a job holds the same number of cores on each of its nodes",
            where=where(int(rows[k])),
        )
    wrong = np.flatnonzero(has & (held != cores))
    if len(wrong):
        k = int(wrong[0])
        raise InputError(
            f"requested_number_of_resources is {cores[k]} but allocated_resources "
            f"{alloc[k]!r} holds {held[k]} cores",
            where=where(int(rows[k])),
        )
    # a job without an allocation: whole nodes (the validator reports it holds none)
    nodes = np.where(has, n_nodes, -(-cores // cpn))
    node_cores = np.where(has, fewest, cpn)
    return np.asarray(texts, dtype=object), nodes.astype(np.int64), node_cores.astype(np.int64)


def _bools(arr) -> np.ndarray:
    return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=bool)


def _read_text_columns(path: Path) -> tuple[list[str], dict[str, pa.ChunkedArray]]:
    """The columns the reader uses, as text trimmed of spaces ("" for an empty field)."""
    import csv  # (here: writing jobs.csv does not use it)

    with open(path, newline="", encoding="utf-8-sig") as f:
        try:
            first = next(csv.reader(f), None)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InputError(f"not a readable CSV file ({exc})", where=f"{path}:1") from None
    if not first or not any(c.strip() for c in first):
        raise InputError("empty file: expected a Batsim jobs.csv header", where=f"{path}:1")
    header = [c.strip() for c in first]
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise InputError(f"column {dup[0]!r} appears twice in the header", where=f"{path}:1")
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    used = [c for c in header if c in _USED]
    try:
        table = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=header, skip_rows=1),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True),
            convert_options=pa_csv.ConvertOptions(
                column_types={c: pa.string() for c in header},
                include_columns=used,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        _find_bad_row(path, len(header), exc)
    cols = {c: pc.utf8_trim_whitespace(table.column(c)) for c in used}
    return header, cols


def _find_bad_row(path: Path, width: int, exc: Exception):
    """Name the line pyarrow could not read (a row with the wrong number of fields)."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            for line, row in _records(f):
                if row and len(row) != width:
                    raise InputError(
                        f"{len(row)} fields where the header has {width}",
                        where=f"{path}:{line}",
                    )
    except UnicodeDecodeError:
        raise InputError("not a text file (not UTF-8)", where=str(path)) from None
    except csv.Error as err:
        raise InputError(f"not a readable CSV file ({err})", where=str(path)) from None
    raise InputError(f"not a readable CSV file ({exc})", where=str(path)) from None


def _row_lines(path: Path, n: int) -> np.ndarray:
    """The file line of each of the ``n`` data rows (blank lines are skipped, as pyarrow
    does; a quoted value may span lines)."""
    data = path.read_bytes()
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if lines == n + 1 and b"\n\n" not in data and b"\n\r\n" not in data:
        return np.arange(n, dtype=np.int64) + 2  # one line per row: no need to parse
    with open(path, newline="", encoding="utf-8-sig") as f:
        out = [line for line, row in _records(f) if row]
    return np.asarray(out[:n], dtype=np.int64)


def _records(f):
    """(first line, fields) of each record after the header (a blank line: no fields)."""
    import csv

    reader = csv.reader(f)
    next(reader, None)
    last = reader.line_num
    for row in reader:
        yield last + 1, row
        last = reader.line_num


def _line_of(path: Path, k: int) -> int:
    """The (first) file line of data row ``k`` (0-based, after the header)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        i = 0
        for line, row in _records(f):
            if row:
                if i == k:
                    return line
                i += 1
    return k + 2


def _numbers(cols, name, where, *, required=False, mask=None, limit=None) -> np.ndarray:
    """A column as float64: empty -> NaN (an error when ``required``, for rows in ``mask``);
    a finite value beyond ``limit`` in magnitude is an error (the SWF reader's sane ranges)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    text = cols[name]
    empty = pc.equal(text, "")
    try:
        values = pc.cast(pc.if_else(empty, None, text), pa.float64())
        values = values.to_numpy(zero_copy_only=False).astype(np.float64)
        bad = _bools(empty) if required else np.zeros(len(values), dtype=bool)
    except pa.ArrowInvalid:  # find the value that is not a number
        values = pd.to_numeric(
            pd.Series(text.to_numpy(zero_copy_only=False)), errors="coerce"
        ).to_numpy(dtype=np.float64)
        low = pc.utf8_lower(text)
        bad = np.isnan(values) & ~_bools(pc.is_in(low, value_set=pa.array(["", "nan", "-nan"])))
        if required:
            bad |= _bools(empty)
    if mask is not None:
        bad &= mask
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raw = text[k].as_py()
        what = "is empty" if raw == "" else f"is not a number: {raw!r}"
        raise InputError(f"{name} {what}", where=where(k))
    if limit is not None:
        with np.errstate(invalid="ignore"):
            over = np.abs(values) > limit
        if mask is not None:
            over &= mask
        if over.any():
            k = int(np.flatnonzero(over)[0])
            raise InputError(
                f"{name} is {text[k].as_py()}, beyond the sane range (|value| <= {limit:,.0f}); "
                "a corrupt line?",
                where=where(k),
            )
    return values


def _job_ids(cols, keep, path, where) -> np.ndarray:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = cols["job_id"]
    empty = np.flatnonzero(keep & _bools(pc.equal(ids, "")))
    if len(empty):
        raise InputError("job_id is empty", where=where(int(empty[0])))
    kept = ids.filter(pa.array(keep))
    out = ids
    if len(pc.unique(kept)) < len(kept) and "workload_name" in cols:
        qualified = pc.if_else(
            pc.match_substring(ids, "!"),
            ids,
            pc.binary_join_element_wise(cols["workload_name"], ids, "!"),
        )
        if len(pc.unique(qualified.filter(pa.array(keep)))) == len(kept):
            out = qualified  # else report the id as written
    values = out.to_numpy(zero_copy_only=False)
    dup = np.flatnonzero(keep & pd.Series(values).where(keep).duplicated(keep="first").to_numpy())
    if len(dup):
        k = int(dup[0])
        first = int(np.flatnonzero(keep & (values == values[k]))[0])
        raise InputError(
            f"job_id {values[k]!r} appears twice (also line {_line_of(path, first)})",
            where=where(k),
        )
    kept = out.filter(pa.array(keep))
    if len(kept) and _bools(pc.match_substring_regex(kept, _WHOLE)).all():
        whole = np.zeros(len(values), dtype=np.int64)
        try:
            whole[keep] = pc.cast(kept, pa.int64()).to_numpy()
        except pa.ArrowInvalid:  # a number beyond int64: the ids stay as written
            return values
        return whole
    return values
