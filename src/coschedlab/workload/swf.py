"""Read and write the Standard Workload Format (SWF v2.2, Parallel Workloads Archive).

The format (Chapin et al., "Benchmarks and standards for the evaluation of parallel job
schedulers", 1999; the Parallel Workloads Archive's definition, version 2.2): one job per
line, 18 whitespace-separated fields, ``-1`` means unknown, and a line whose first non-blank
character is ``;`` is a comment. Comment lines of the form ``; Key: value`` form the header.

Conventions this module follows (the common ones of the archive's users):

* **processors** = field 8 (requested processors); when field 8 is ``-1`` (or any value <= 0)
  field 5 (allocated processors) is used instead.
* **requested time** = field 9; when field 9 <= 0 the run time (field 4) is used instead.
* **dropped jobs**: a job is left out, and counted in :attr:`Workload.dropped` under the first
  reason that applies, in this order: ``"unknown run time"`` (field 4 < 0),
  ``"no processors"`` (processors <= 0 after the fallback), ``"unknown submit time"``
  (field 2 < 0), ``"larger than the machine"`` (processors > ``max_procs``, or > the
  ``cluster``'s total cores when ``max_procs`` is not given; nothing is dropped for size
  when neither is given).
* **negative values**: ``-1`` means unknown; any other negative time, processor count or
  preceding job (``-5`` processors, a think time of ``-50``) is a corrupt line, an error
  naming ``PATH:LINE``.
* **submit times are not shifted**: use :meth:`Workload.shifted` for a trace starting at 0.
* **numbers**: integer fields (job number, processors, status, user, group, executable,
  queue, partition, preceding job) accept integral floats such as ``4.0``; submit, wait, run,
  CPU time, memory, requested time and think time are kept as floats. ``nan``, ``inf`` and
  anything that is not a plain decimal number is an error.
* **other fields** are kept in :attr:`Workload.extra` as NumPy arrays so that a workload
  survives a write/read round trip: ``trace_wait`` (field 3), ``alloc_procs`` (5),
  ``avg_cpu`` (6), ``used_mem`` (7), ``req_procs`` (8), ``req_mem`` (10). Any of these, a
  label (status, user, group, executable, queue, partition), the preceding job or the think
  time with one value throughout (most traces leave several at -1) is, with
  ``read_swf(..., compact=True)``, that value broadcast: a read-only array with no memory per
  job (by default an array of its own). The preceding job
  (17) and think time (18) are the ``preceding`` and ``think_time`` columns; the kernel
  enforces them when asked (``simulate(..., dependencies=True)``, ``--dependencies``: a job
  starts no earlier than its preceding job's end plus the think time).
* **header**: keys as written, values stripped. A key given several times (``Note``, ``Queue``)
  keeps all its values joined by newlines, and an indented comment line right after a key line
  (the archive's multi-line notes) is appended to that key's value on a new line.
* **machine**: :func:`cluster_from_header` reads the standard ``MaxNodes`` and ``MaxProcs``
  plus two comments of ours, ``CoresPerNode`` and ``SocketsPerNode`` (plain ``; Key: value``
  comment lines, so the file stays valid SWF), which generated workloads and simulated runs
  carry (:func:`cluster_header`).
* **comments**: ``;`` anywhere on a line starts a comment (so a trailing ``; ...`` after the 18
  fields is ignored); blank lines are skipped; ``\\n``, ``\\r\\n`` and ``\\r`` all end a line.
* Files may be plain or gzip-compressed (detected by the magic bytes, whatever the name).

Reading is compiled: the parse loop (:mod:`coschedlab._core.swf_parse`, Cython) turns the job
lines into one float array and notes each one's line number, stopping at the first bad line,
reported as an :class:`InputError` whose ``where`` is ``PATH:LINE`` (1-based physical line
number, header lines included); the checks on the parsed values are vectorised (no pandas).

Writing (:func:`write_swf`) prints integer values as integers and other numbers with at most 6
decimals, trailing zeros removed, so an integer trace stays integer and a workload read from SWF
reads back the same (for times with at most 6 decimals). ``integers=True`` writes whole numbers
only, times rounded consistently (:func:`integer_times`), for readers that parse integers only.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._core.swf_parse import parse_jobs, trim_heap
from .._core.textrows import write_fixed_width
from ..bundled import local_path
from ..errors import InputError, gunzip, refuse_device
from ..jobs import COLUMNS, MAX_LABEL, MAX_PROCS, MAX_TIME, Workload
from ..platform import Cluster

__all__ = [
    "FIELD_NAMES",
    "cluster_from_header",
    "integer_times",
    "cluster_header",
    "read_swf",
    "write_swf",
    "write_workload_swf",
]

#: The 18 SWF fields, in file order (field number = index + 1).
FIELD_NAMES: tuple[str, ...] = (
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
)
N_FIELDS = 18
# 0-based indices of the fields that must hold integers.
_INT_FIELDS = (0, 4, 7, 10, 11, 12, 13, 14, 15, 16)
_KEY_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):(?:\s+(.*))?$")
_LEADING_INT = re.compile(r"\s*(\d+)")

# Sane ranges (MAX_TIME, MAX_PROCS: coschedlab.jobs', which every Workload keeps): a value
# beyond them is a corrupt line, not a job. Largest values seen in the Parallel Workloads
# Archive: times 2.1e9 (requested "unlimited"), processors 9,216, memory 3.9e7.
MAX_ANY = 1e15
# 0-based indices: times (submit, wait, run, requested, think) and processor counts
_TIME_FIELDS = (1, 2, 3, 8, 17)
_PROC_FIELDS = (4, 7)
# 0-based indices: the labels (status, user, group, executable, queue, partition), 32-bit
# columns held to MAX_LABEL
_LABEL_FIELDS = (10, 11, 12, 13, 14, 15)
# 0-based indices of the fields read as times, processor counts or the preceding job: SWF
# writes -1 for unknown, and no other negative value (-5 processors is a corrupt line, not an
# unknown count). The status (and the ids of users, queues...) may be other negatives.
_MINUS_ONE_FIELDS = (*_TIME_FIELDS, *_PROC_FIELDS, 16)

# Workload.extra name -> (0-based field index, dtype)
_EXTRA_FIELDS: dict[str, tuple[int, type]] = {
    "trace_wait": (2, np.float64),
    "alloc_procs": (4, np.int32),
    "avg_cpu": (5, np.float64),
    "used_mem": (6, np.float64),
    "req_procs": (7, np.int32),
    "req_mem": (9, np.float64),
}


# ------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------
def _read_bytes(path: Path) -> bytes:
    refuse_device(path)
    with open(path, "rb") as f:  # FileNotFoundError propagates to the caller
        data = f.read()
    return gunzip(data, str(path))


def _text(raw: bytes) -> str:
    """Bytes as text: UTF-8 when valid, else Latin-1 (old traces), never failing."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _comment_lines(data: bytes) -> list[str]:
    """The text of every whole-line comment (after its ';'), in file order; fast on big files
    (only looks around the ';' characters)."""
    out: list[str] = []
    if b"\r" in data and b"\n" not in data:  # old Mac line ends
        data = data.replace(b"\r", b"\n")
    pos = data.find(b";")
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        cr = data.rfind(b"\r", start, pos)
        if cr >= 0:
            start = cr + 1
        end = data.find(b"\n", pos)
        if end < 0:
            end = len(data)
        if not data[start:pos].strip():
            line = data[pos + 1 : end]
            out.append(_text(line).rstrip("\r"))
        pos = data.find(b";", end)
    return out


def _parse_header(comments: list[str]) -> dict[str, str]:
    header: dict[str, str] = {}
    last: str | None = None
    for text in comments:
        body = text.strip()
        if not body:
            last = None
            continue
        m = _KEY_LINE.match(body)
        if m:
            key, value = m.group(1), (m.group(2) or "").strip()
            header[key] = f"{header[key]}\n{value}" if key in header else value
            last = key
        elif last is not None and text[:1].isspace():
            header[last] = f"{header[last]}\n{body}"
        else:
            last = None
    return header


#: What the compiled parser's error kinds say about a field.
_FIELD_ERRORS = {"number": "not a number", "finite": "not a finite number",
                 "integer": "not an integer"}  # fmt: skip


#: one physical line (the parser's: ends at LF, CR LF or a lone CR), for an error's hint
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|[\r\n]|\Z)")


def fields_message(tokens: list[bytes]) -> str:
    """What a job line of ``tokens`` (its fields, ';' comment cut) that are not 18 says, with
    a hint for what a newcomer writes: a '#' comment, commas between the fields."""
    n = len(tokens)
    text = f"has {n} field{'' if n == 1 else 's'}, SWF needs {N_FIELDS}"
    if tokens[0].startswith((b"#", b"//")):
        return f"{text} (a comment? SWF comment lines start with ';')"
    if any(b"," in t for t in tokens):
        return f"{text} (SWF separates its fields by spaces, not commas)"
    return text


def _fields_error(data: bytes, lineno: int, count: int) -> str:
    """:func:`fields_message` for physical line ``lineno`` of ``data`` (the parser found
    ``count`` fields there; a line that does not agree gets the plain message)."""
    for i, m in enumerate(_LINE.finditer(data), start=1):
        if i == lineno:
            tokens = m.group().split(b";", 1)[0].split()
            if len(tokens) == count:
                return fields_message(tokens)
            break
    return f"has {count} field{'' if count == 1 else 's'}, SWF needs {N_FIELDS}"


def _parse_jobs(data: bytes, where: str) -> tuple[list[np.ndarray], np.ndarray]:
    """All job lines as 18 float arrays, one per field, and their physical line numbers
    (compiled: :func:`coschedlab._core.swf_parse.parse_jobs`); an :class:`InputError` naming
    ``where:LINE`` at the first bad line."""
    values, linenos, error = parse_jobs(data)
    if error is None:
        return values, linenos
    lineno, kind, index, token = error
    loc = f"{where}:{lineno}"
    if kind == "fields":
        raise InputError(_fields_error(data, lineno, index), where=loc)
    text = _text(token)
    quoted = repr(text) if len(text) <= 40 else f"{text[:30]!r}... ({len(text):,} characters)"
    raise InputError(
        f"field {index + 1} ({FIELD_NAMES[index]}) is {quoted}, {_FIELD_ERRORS[kind]}", where=loc
    )


def _check_ranges(fields: list[np.ndarray], linenos: np.ndarray, where: str) -> None:
    """Refuse (file:line) the first value (in file order: line, then field) beyond
    :data:`MAX_TIME`, :data:`MAX_PROCS` or :data:`MAX_ANY` in magnitude, and the first negative
    value other than -1 (unknown) in a time, a processor count or the preceding job. ``fields``:
    :func:`_parse_jobs`' (a field at a time: no temporary beyond one field's)."""
    limits = np.full(N_FIELDS, MAX_ANY)
    limits[list(_TIME_FIELDS)] = MAX_TIME
    limits[list(_PROC_FIELDS)] = MAX_PROCS
    limits[list(_LABEL_FIELDS)] = MAX_LABEL
    first: tuple[int, int] | None = None  # (row, field) of the first bad value
    for field, a in enumerate(fields):
        if a.strides == (0,):  # one value throughout (broadcast): its first row says it
            a = a[:1]
        bad = np.abs(a) > limits[field]
        if field in _MINUS_ONE_FIELDS:
            bad |= (a < 0) & (a != -1)
        if bad.any():
            row = int(np.argmax(bad))
            if first is None or row < first[0]:
                first = (row, field)
    if first is None:
        return
    row, field = first
    value = fields[field][row]
    if value < 0 and value != -1 and field in _MINUS_ONE_FIELDS:
        raise InputError(
            f"field {field + 1} ({FIELD_NAMES[field]}) is {value:g}: SWF writes "
            "-1 for unknown and no other negative value; a corrupt line?",
            where=f"{where}:{linenos[row]}",
        )
    unit = " s" if field in _TIME_FIELDS else ""
    raise InputError(
        f"field {field + 1} ({FIELD_NAMES[field]}) is {value:g}, beyond the sane "
        f"range (|value| <= {limits[field]:,.0f}{unit}); a corrupt line?",
        where=f"{where}:{linenos[row]}",
    )


def _take(fields: list, i: int, dtype: Any, rows: np.ndarray | None, compact: bool) -> np.ndarray:
    """Field ``i`` of :func:`_parse_jobs`' fields as a column of ``dtype`` (the parsed array
    itself when it is one already; a field of one value is that value broadcast, read-only,
    when ``compact``, else an array of its own), only ``rows`` (row indices) when given; the
    parsed array leaves ``fields`` (it goes now unless it is the column)."""
    a = fields[i]
    fields[i] = None
    if a.strides == (0,) and len(a) > 1:  # one value throughout: broadcast, as parsed
        shape = a.shape if rows is None else rows.shape
        if not compact:
            return np.full(shape, a[0], dtype=dtype)
        return np.broadcast_to(a[:1].astype(dtype), shape)
    if rows is not None:
        a = a.take(rows)
    return a.astype(dtype, copy=False)


def read_swf(
    path: str | os.PathLike,
    *,
    max_procs: int | None = None,
    cluster: Cluster | None = None,
    strict: bool = False,
    compact: bool = False,
) -> Workload:
    """Read an SWF file (plain or gzip) into a :class:`~coschedlab.jobs.Workload`.

    See the module docstring for the conventions (processor and requested-time fallbacks,
    which jobs are dropped and how they are counted). ``max_procs`` (else
    ``cluster.total_cores``) is the machine size used to drop oversized jobs.

    ``compact``: a field with one value throughout (a label, the preceding job, the think
    time or an extra field; most traces leave several at -1) is that value broadcast, a
    read-only array with no memory per job (what the ``simulate`` command reads, its workload
    being read-only anyway); by default every column is an array of its own that code may
    edit in place.

    Raises :class:`FileNotFoundError` for a missing file and :class:`InputError` (with
    ``where="PATH:LINE"`` for a bad line) for a malformed, empty or job-less file.
    """
    workload = _read_swf(path, max_procs=max_procs, cluster=cluster, strict=strict, compact=compact)
    trim_heap()  # the text and the parse array are gone: their pages go back to the system
    return workload


def _read_swf(
    path: str | os.PathLike,
    *,
    max_procs: int | None = None,
    cluster: Cluster | None = None,
    strict: bool = False,
    compact: bool = False,
) -> Workload:
    where = str(path)
    path = local_path(path)
    data = _read_bytes(path).removeprefix(b"\xef\xbb\xbf")  # an editor's UTF-8 BOM
    if not data or data.isspace():  # (not strip(): a copy of the whole text)
        raise InputError("the file is empty, expected SWF job lines", where=where)
    header = _parse_header(_comment_lines(data))
    fields, linenos = _parse_jobs(data, where)
    del data  # the file's text (a million jobs: ~80 MB) is parsed: it goes now
    n_lines = len(linenos)
    if n_lines == 0:
        raise InputError("no job lines found (only comments or blank lines)", where=where)

    _check_ranges(fields, linenos, where)
    job_id = fields[0].astype(np.int64)
    fields[0] = None
    if not (job_id[1:] > job_id[:-1]).all():  # increasing numbers (most traces): no duplicate
        ids, counts = np.unique(job_id, return_counts=True)
        if (counts > 1).any():
            dup = ids[counts > 1][0]
            rows = np.flatnonzero(job_id == dup)
            raise InputError(
                f"job number {int(dup)} appears again (first on line {linenos[rows[0]]})",
                where=f"{where}:{linenos[rows[1]]}",
            )

    submit = fields[1]
    run = fields[3]
    alloc, req = fields[4], fields[7]  # (whole numbers within MAX_PROCS: exact as floats)
    procs = np.where(req > 0, req, alloc).astype(np.int64)
    del alloc, req
    requested = fields[8]  # field 9 is no column of its own: the requested time written over it
    fields[8] = None
    if requested.flags.writeable:
        np.copyto(requested, run, where=~(requested > 0))
    else:  # (one value throughout: broadcast, as parsed)
        requested = np.where(requested > 0, requested, run)

    limit = max_procs if max_procs is not None else (cluster.total_cores if cluster else None)
    dropped: Counter = Counter()
    keep = np.ones(n_lines, dtype=bool)
    reasons = [
        ("unknown run time", run < 0),
        ("no processors", procs <= 0),
        ("unknown submit time", submit < 0),
    ]
    if limit is not None:
        reasons.append(("larger than the machine", procs > limit))
    if strict:  # the first job (in file order) that cannot run, with its first reason
        bad_any = np.logical_or.reduce([bad for _, bad in reasons])
        if bad_any.any():
            row = int(np.flatnonzero(bad_any)[0])
            reason = next(r for r, bad in reasons if bad[row])
            raise InputError(
                f"job {int(job_id[row])} cannot run: {reason} ({int(bad_any.sum())} job(s) "
                "cannot; without --strict they are dropped and counted)",
                where=f"{where}:{linenos[row]}",
            )
    for reason, bad in reasons:
        hit = bad & keep
        n = int(hit.sum())
        if n:
            dropped[reason] += n
            keep &= ~hit
    del reasons, bad, hit
    if not keep.any():
        why = ", ".join(f"{n} {r}" for r, n in sorted(dropped.items()))
        raise InputError(f"no usable jobs: all {n_lines} were dropped ({why})", where=where)
    del submit, run, linenos

    names = {"status": 10, "user": 11, "group": 12, "app": 13, "queue": 14, "partition": 15,
             "preceding": 16, "think_time": 17}  # fmt: skip
    # each field's parsed array is its column (the float ones) or is converted to the column's
    # type (the labels and processor counts 32-bit) and goes, one at a time: a million jobs
    # hold the parse (144 MB) or the columns (120 MB), never both;
    # with dropped jobs, the kept rows as one index array (a mask indexing each column would
    # find them again)
    rows = None if keep.all() else np.flatnonzero(keep)
    del keep

    def kept(a: np.ndarray) -> np.ndarray:
        return a if rows is None else a.take(rows)

    columns = {"id": kept(job_id), "submit": _take(fields, 1, np.float64, rows, False),
               "run": _take(fields, 3, np.float64, rows, False), "requested_time": kept(requested),
               "procs": kept(procs)}  # fmt: skip
    del job_id, requested, procs
    for name, i in names.items():
        columns[name] = _take(fields, i, COLUMNS[name], rows, compact)
    extra = {
        name: _take(fields, i, dtype, rows, compact) for name, (i, dtype) in _EXTRA_FIELDS.items()
    }
    del fields
    return Workload(columns=columns, header=header, dropped=dropped, source=where, extra=extra)


#: Header comments for what the standard header cannot say: SWF's MaxNodes and MaxProcs give
#: the nodes and the cores, these give the cores per node and the sockets of a node (written by
#: :func:`cluster_header`; the Parallel Workloads Archive's traces do not have them).
CORES_PER_NODE_KEY = "CoresPerNode"
SOCKETS_KEY = "SocketsPerNode"


def _leading_int(header: dict, key: str) -> int | None:
    """The leading positive integer of ``header[key]`` (``"184  ( 6,  171)"`` -> 184)."""
    value = header.get(key)
    if value is None:
        return None
    m = _LEADING_INT.match(str(value))
    if not m or int(m.group(1)) < 1:
        return None
    return int(m.group(1))


def cluster_from_header(header: dict) -> Cluster | None:
    """A :class:`Cluster` from the SWF header's ``MaxNodes`` / ``MaxProcs`` (None if neither).

    The leading integer of each value is used, so ``"184  ( 6,  171,   7)"`` reads as 184.
    Both given and MaxProcs a multiple of MaxNodes: ``MaxNodes`` nodes of
    ``MaxProcs // MaxNodes`` cores; only MaxProcs (or not a multiple): ``MaxProcs`` one-core
    nodes, or ``MaxProcs / CoresPerNode`` nodes when the header has a ``CoresPerNode`` that
    divides it; only MaxNodes: ``MaxNodes`` nodes of ``CoresPerNode`` cores (1 if not given).
    ``SocketsPerNode`` (when it divides the cores per node) splits each node into sockets, else
    a node is one socket. A ``CoresPerNode`` that contradicts MaxNodes and MaxProcs is ignored:
    the standard fields win.
    """
    nodes, procs = _leading_int(header, "MaxNodes"), _leading_int(header, "MaxProcs")
    cpn = _leading_int(header, CORES_PER_NODE_KEY)
    if nodes and procs and procs % nodes == 0:
        per_node = procs // nodes
    elif procs and not nodes and cpn and procs % cpn == 0:
        nodes, per_node = procs // cpn, cpn
    elif procs:
        nodes, per_node = procs, 1
    elif nodes:
        per_node = cpn or 1
    else:
        return None
    sockets = _leading_int(header, SOCKETS_KEY) or 1
    if per_node % sockets:
        sockets = 1
    return Cluster(nodes=nodes, sockets_per_node=sockets, cores_per_socket=per_node // sockets)


def cluster_header(cluster: Cluster) -> dict[str, str]:
    """The header fields that describe ``cluster`` (read back by :func:`cluster_from_header`):
    the standard ``MaxNodes`` and ``MaxProcs`` (cores), and ``CoresPerNode`` and
    ``SocketsPerNode`` comments."""
    return {
        "MaxNodes": str(cluster.nodes),
        "MaxProcs": str(cluster.total_cores),
        CORES_PER_NODE_KEY: str(cluster.cores_per_node),
        SOCKETS_KEY: str(cluster.sockets_per_node),
    }


# ------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------
def _cell_text(v: float) -> str:
    """One number's cell as :func:`_format_python` writes it."""
    if v == round(v):
        return str(int(v))
    text = f"{v:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _format_python(a: np.ndarray) -> np.ndarray:
    """Slow path of :func:`_number_cells` for huge values: right-aligned text cells."""
    col = np.array([_cell_text(v) for v in a.tolist()], dtype="S")
    width = int(np.strings.str_len(col).max())
    return np.strings.rjust(col, width).astype(f"S{width}").view(np.uint8).reshape(len(a), width)


def _fixed_width_columns(columns: list[np.ndarray], release: bool = False) -> list:
    """The columns as :func:`~coschedlab._core.textrows.write_fixed_width` takes them: a column
    of one value (all -1, say) as its one cell, one with a value of 9e12 or more in magnitude
    as cells formatted in Python, any other as the numbers (formatted there). ``release``:
    empty ``columns`` as it goes (each input column freed once converted: a million-row file
    does not hold every column twice)."""
    out = []
    for k, values in enumerate(columns):
        if release:
            columns[k] = None
        if callable(values):
            values = values()
        a = np.asarray(values, dtype=np.float64)
        del values
        finite = np.isfinite(a)
        if not finite.all():
            a = np.where(finite, a, -1.0)
        del finite
        if len(a) and (a == a[0]).all():
            out.append(_cell_text(float(a[0])).encode())  # (no numpy.strings import)
        elif len(a) and np.abs(a).max() >= 9e12:
            out.append(_format_python(a))
        else:
            out.append(a)
    return out


def _header_lines(header: dict | None, n: int) -> list[str]:
    from .. import __version__

    header = dict(header or {})
    lines = ["Version: 2.2"]
    for key in ("Computer", "Installation"):
        if header.get(key):
            lines.append(f"{key}: {header[key]}")
    lines += [f"MaxJobs: {n}", f"MaxRecords: {n}"]
    for key in ("MaxNodes", "MaxProcs", CORES_PER_NODE_KEY, SOCKETS_KEY, "UnixStartTime",
                "TimeZoneString", "Applications", "Pool"):  # fmt: skip
        if header.get(key):
            lines.append(f"{key}: {header[key]}")
    note = f"produced by coschedlab {__version__}"
    scheduler = header.get("Scheduler") or header.get("scheduler")
    if scheduler:
        note += f", scheduler {scheduler}"
    lines.append(f"Note: {note}")
    out = []
    for line in lines:
        first, *rest = str(line).split("\n")
        out.append(f"; {first}")
        out += [f";       {r}" for r in rest]
    return out


def _swf_fields(
    frame: Any, n: int, integers: bool, per_job: Mapping[str, np.ndarray] | None = None
) -> list[np.ndarray]:
    """The 18 SWF fields of :func:`write_swf`'s rows, as float arrays (the function's locals
    go with it: only the list holds them); the fields taken as they are from a column are
    callables that make the array when :func:`_fixed_width_columns` reaches them (most are
    all -1, one cell once converted: a million-row file does not hold them all at once).
    ``per_job``: :func:`write_swf`'s."""
    from ..metrics import column

    def col(*names: str, default: float = -1.0) -> np.ndarray:
        for name in names:
            if name in frame:
                return column(frame, name)
        return np.full(n, default, dtype=np.float64)

    if "job_id" in frame or "id" in frame:
        job_id = col("job_id", "id")
    else:
        job_id = np.arange(1, n + 1, dtype=np.float64)
    submit = col("submit")
    procs = col("procs")
    if "start" in frame and "end" in frame:
        start, end = col("start"), col("end")
        wait = start - submit if per_job is None else per_job["wait"]
        run = end - start if per_job is None else per_job["run"]
        alloc = procs
    else:
        wait = col("wait", "trace_wait")
        run = col("run")
        alloc = col("alloc_procs", "procs")
    requested = col("requested_time")
    if integers:
        submit, wait, run, requested = integer_times(submit, wait, run, requested)
    req_procs = procs
    if "req_procs" in frame:
        # keep the trace's own "unknown" marker where the fallback rule gives procs back
        orig = col("req_procs")
        same = (orig <= 0) & (alloc == procs)
        if same.any():  # (else the processors as they are: no copy)
            req_procs = procs.copy()
            req_procs[same] = orig[same]
        del orig, same

    def later(name: str) -> Callable[[], np.ndarray]:
        return lambda: col(name)

    fields: list = [
        job_id,
        submit,
        wait,
        run,
        alloc,
        later("avg_cpu"),
        later("used_mem"),
        req_procs,
        requested,
        later("req_mem"),
        later("status"),
        later("user"),
        later("group"),
        later("app"),
        later("queue"),
        later("partition"),
        later("preceding"),
        later("think_time"),
    ]
    if integers:
        fields = [_whole(f) for f in fields]
    return fields


def _whole(field: Any) -> Any:
    """A field of :func:`_swf_fields` rounded to whole numbers (NaN and infinities: -1), made
    when :func:`_fixed_width_columns` asks for it if it was to be made then."""
    if callable(field):
        return lambda: _whole(field())
    return np.where(np.isfinite(field), np.rint(field), -1.0)


def write_swf(
    path: str | os.PathLike,
    frame: Any,
    header: dict | None = None,
    *,
    integers: bool = False,
    per_job: Mapping[str, np.ndarray] | None = None,
) -> None:
    """Write jobs as an SWF v2.2 file (gzip-compressed when the name ends in ``.gz``).

    ``frame`` is either a simulated result (``job_id, submit, start, end, procs, ...``: field 3
    = start - submit, field 4 = end - start, field 5 = procs) or a workload frame
    (:data:`coschedlab.jobs.COLUMNS` plus, optionally, the ``extra`` columns of
    :func:`read_swf`: ``trace_wait`` -> field 3, ``run`` -> field 4, ``alloc_procs`` (else
    ``procs``) -> field 5). Whatever the frame lacks is written as ``-1``, and so are NaNs.
    ``header`` supplies Computer, Installation, MaxNodes, MaxProcs, UnixStartTime,
    TimeZoneString and Scheduler (named in the Note); MaxJobs and MaxRecords are the number of
    rows written.

    ``integers=True`` writes whole numbers only (for readers that parse integers only), by the
    rule of :func:`integer_times`: the instants submit, start (submit + wait) and end
    (start + run) are rounded to the nearest second and the wait and run are their differences,
    so submit + wait + run is the rounded end, the start is never before the submit nor the
    end before the start. The requested time is rounded too, but never below the written run
    of a job that ran within its request; every other field is rounded to the nearest integer.

    ``per_job``: a simulated result's ``wait`` and ``run`` columns
    (:func:`~coschedlab.metrics.job_columns`), used as they are (no second copy of each).
    """
    from ..metrics import rows

    n = rows(frame)  # a DataFrame or a mapping of column arrays
    fields = _swf_fields(frame, n, integers, per_job)
    head = ("\n".join(_header_lines(header, n)) + "\n").encode("utf-8")
    columns = _fixed_width_columns(fields, release=True)
    path = Path(path)
    with open(path, "wb") as raw:
        if path.suffix == ".gz":
            import gzip  # (here: a command writing plain SWF does not load it)

            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz:
                gz.write(head)
                write_fixed_width(gz.write, n, columns)
        else:  # the rows in chunks, formatted in compiled code
            raw.write(head)
            write_fixed_width(raw.write, n, columns)


def integer_times(
    submit: np.ndarray, wait: np.ndarray, run: np.ndarray, requested: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """SWF times in whole seconds: ``(submit, wait, run, requested)`` rounded consistently.

    The instants submit, start = submit + wait and end = start + run are rounded to the nearest
    second (halves to even, NumPy's ``rint``); wait and run are the differences of the rounded
    instants. Rounding keeps order, so a start not before its submit stays so, and an end not
    before its start. An unknown wait (< 0) leaves the run rounded on its own; an unknown value
    (< 0 or NaN) stays -1. The requested time is rounded, then raised to the written run where
    the job ran within its request (rounding never makes a job overrun its request).
    """
    submit = np.asarray(submit, dtype=np.float64)
    wait = np.asarray(wait, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    requested = np.asarray(requested, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        known_submit = submit >= 0
        known_wait = known_submit & (wait >= 0)
        known_run = run >= 0
        t0 = np.rint(submit)
        start = np.rint(submit + wait)
        end = np.rint(submit + wait + run)
        int_wait = np.where(known_wait, start - t0, -1.0)
        int_run = np.where(
            known_run, np.where(known_wait & known_run, end - start, np.rint(run)), -1.0
        )
        int_req = np.where(requested >= 0, np.rint(requested), -1.0)
        within = known_run & (requested >= 0) & (run <= requested)
        int_req = np.where(within, np.maximum(int_req, int_run), int_req)
        int_submit = np.where(known_submit, t0, -1.0)
    return int_submit, int_wait, int_run, int_req


def write_workload_swf(path: str | os.PathLike, workload: Workload) -> None:
    """Write a :class:`Workload` (its columns, its ``extra`` arrays and its header) as SWF."""
    frame = workload.to_frame()
    for name, values in workload.extra.items():
        if name not in frame.columns and len(values) == len(frame):
            frame[name] = values
    write_swf(path, frame, header=workload.header)
