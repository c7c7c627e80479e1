"""The SWF reader's columns: each its own array of its type (labels and processor counts
32-bit, the parse array not kept), independent arrays with the values of the file;
``drop_oversized`` keeps the workload when nothing is dropped."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from coschedlab.jobs import COLUMNS
from coschedlab.workload.swf import read_swf

# id submit wait run alloc cpu mem req_procs req_time req_mem status user group app queue
# partition preceding think
LINES = [
    "1 0 5 100 4 -1 -1 4 200 -1 1 3 2 7 1 1 -1 -1",
    "2 10 -1 50 -1 1.5 -1 2 -1 -1 0 4 2 7 1 1 1 30",
    "3 20 0 70 8 -1 2.5 -1 80 9 1 5 1 6 2 1 -1 -1",
]
WANT = {
    "id": [1, 2, 3],
    "submit": [0.0, 10.0, 20.0],
    "run": [100.0, 50.0, 70.0],
    "requested_time": [200.0, 50.0, 80.0],  # the run time where none is asked for
    "procs": [4, 2, 8],  # requested processors, else the allocated ones
    "status": [1, 0, 1],
    "user": [3, 4, 5],
    "group": [2, 2, 1],
    "app": [7, 7, 6],
    "queue": [1, 1, 2],
    "partition": [1, 1, 1],
    "preceding": [-1, 1, -1],
    "think_time": [-1.0, 30.0, -1.0],
}
EXTRA = {"trace_wait": [5.0, -1.0, 0.0], "alloc_procs": [4, -1, 8], "req_procs": [4, 2, -1],
         "avg_cpu": [-1.0, 1.5, -1.0], "used_mem": [-1.0, -1.0, 2.5],
         "req_mem": [-1.0, -1.0, 9.0]}  # fmt: skip


@pytest.mark.parametrize("dropped", [False, True])
def test_read_columns_are_independent_arrays(tmp_path, dropped):
    lines = LINES + (["4 30 -1 -1 2 -1 -1 2 60 -1 1 1 1 1 1 1 -1 -1"] if dropped else [])
    path = tmp_path / "t.swf"
    path.write_text("; MaxNodes: 16\n" + "\n".join(lines) + "\n")
    w = read_swf(path)
    assert dict(w.dropped) == ({"unknown run time": 1} if dropped else {})
    cols = {**w.columns, **w.extra}
    for name, want in {**WANT, **EXTRA}.items():
        assert cols[name].tolist() == want, name
    for name, dtype in COLUMNS.items():
        assert cols[name].dtype == dtype, name
    for name in ("alloc_procs", "req_procs"):
        assert cols[name].dtype == np.int32
    for name, c in cols.items():  # its own memory: the parse array is not kept alive
        assert c.base is None and c.flags.writeable, name  # (partition, of one value, too)
    for (a, x), (b, y) in itertools.combinations(cols.items(), 2):
        assert not np.shares_memory(x, y), (a, b)
    before = {name: c.copy() for name, c in cols.items()}
    cols["user"][:] = 99  # one column written: no other changes
    cols["submit"][:] = -5.0
    for name, c in cols.items():
        if name not in ("user", "submit"):
            assert np.array_equal(c, before[name]), name


def test_drop_oversized_keeps_the_workload_when_nothing_is_dropped(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("\n".join(LINES) + "\n")
    w = read_swf(path)
    assert w.drop_oversized(8) is w
    smaller = w.drop_oversized(4)
    assert smaller is not w and smaller.columns["id"].tolist() == [1, 2]
    assert smaller.dropped["larger than the machine"] == 1 and not w.dropped


def test_a_field_of_one_value_is_kept_as_that_value(tmp_path):
    """A field the trace leaves at one value (-1, as most) holds no memory per job:
    that value broadcast, read-only; a field with two values (or -0.0 beside 0.0) is an array
    of its own. The values, a write/read round trip and a run's outputs are the same."""
    from coschedlab.platform import Cluster
    from coschedlab.simulation import run_simulation
    from coschedlab.workload.swf import write_workload_swf

    lines = [f"{k} {10 * k} -1 {50 + k} 2 -1 {'-0' if k == 2 else '0'} 2 100 7 1 1 1 1 1 1 -1 -1"
             for k in range(1, 6)]  # fmt: skip
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    w = read_swf(path, compact=True)
    cols = {**w.columns, **w.extra}
    plain = read_swf(path)  # (the default: every column an array of its own, writable)
    for name, a in {**plain.columns, **plain.extra}.items():
        assert a.flags.writeable and a.strides != (0,) and np.array_equal(a, cols[name]), name
    plain.columns["user"][0] = 9  # a user's edit in place
    assert w.columns["user"][0] == 1
    one_value = ("trace_wait", "avg_cpu", "alloc_procs", "req_procs", "req_mem", "status",
                 "user", "group", "app", "queue", "partition", "preceding",
                 "think_time")  # fmt: skip
    for name in one_value:
        a = cols[name]
        assert a.strides == (0,) and not a.flags.writeable, name
    for name in ("id", "submit", "run", "requested_time", "procs"):  # the kernel's: C arrays
        assert cols[name].flags.c_contiguous and cols[name].strides != (0,), name
    assert w.columns["user"].tolist() == [1] * 5 and w.columns["preceding"].dtype == np.int64
    assert w.extra["trace_wait"].tolist() == [-1.0] * 5
    assert w.extra["req_mem"].tolist() == [7.0] * 5 and w.extra["alloc_procs"].dtype == np.int32
    used = w.extra["used_mem"]  # 0.0 and -0.0: not one value, bit for bit
    assert used.strides == (8,) and np.signbit(used).tolist() == [False, True, False, False, False]
    write_workload_swf(tmp_path / "back.swf", w)
    back = read_swf(tmp_path / "back.swf")
    for name, a in w.extra.items():
        assert np.array_equal(back.extra[name], a), name
    some = w.select(np.array([True, False, True, True, False]))  # (drop_oversized's way)
    assert some.columns["id"].tolist() == [1, 3, 4]
    for name in one_value:
        a = {**some.columns, **some.extra}[name]
        assert a.strides == (0,) and a.tolist() == [cols[name][0]] * 3, name
    assert (
        some.extra["used_mem"].tolist() == [0.0, 0.0, 0.0] and some.extra["used_mem"].base is None
    )
    r = run_simulation(w, Cluster(nodes=4), "easy", dependencies=True)
    r.write(tmp_path)
    assert r.validate() == []
    assert r.jobs["avg_cpu"].tolist() == [-1.0] * 5 and r.jobs["user"].tolist() == [1] * 5
    assert r.groups("user").index.tolist() == [1] and r.groups("user")["jobs"].tolist() == [5]


HEAP_TOP = r"""
import resource, sys
import numpy as np
from coschedlab._core.swf_parse import map_big_blocks, trim_heap
map_big_blocks(1 << 20, int(sys.argv[1]))
hold = np.ones(1 << 16)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    a = np.ones(1 << 16)  # 512 KB at the heap's top, freed
    del a
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, trim_heap(1 << 40))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_heaps_free_top_is_kept_below_the_threshold():
    """``map_big_blocks`` keeps up to 16 MB of the heap's free top (glibc's trim threshold,
    else fixed at 128 KB once the mmap threshold is set): a 512 KB array made and freed 50
    times faults its pages in once, not 50 times; ``trim_heap`` gives nothing back when less
    than its ``least`` bytes are free."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = {}
    for keep in (128 << 10, 16 << 20):
        out = subprocess.run([sys.executable, "-c", HEAP_TOP, str(keep)], env=env,
                             capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
        runs[keep] = int(out[0])
        assert out[1] == "False"
    assert runs[16 << 20] < 600 < 50 * 128 * 0.5 < runs[128 << 10]  # 4 KB pages, 128 a run


STEPS = r"""
import resource, sys
from pathlib import Path
import numpy as np
from coschedlab.cli.batch import load_trace
load_trace(Path(sys.argv[1]), None, None)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(30):
    a = np.ones(1 << 18)  # 2 MB (a column of 250,000 jobs), freed: the next step's block
    del a
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_commands_blocks_of_a_few_mb_are_used_again(tmp_path):
    """The simulate command's reader (``load_trace``) has blocks of up to 32 MB taken from the
    heap: a 2 MB array made and freed 30 times faults its pages in once (~512 faults), not 30
    times, as a block mapped on its own would (a 1 MB threshold: ~15,000)."""
    path = tmp_path / "t.swf"
    path.write_text("; MaxNodes: 16\n" + "\n".join(LINES) + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", STEPS, str(path)], env=env,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert int(out) < 3_000 < 30 * 512 // 2


def test_columns_a_workload_is_not_given_are_one_value_broadcast():
    """A column left out (labels, status, preceding, think time) is its default broadcast:
    no memory per job, read-only; a run out of queue order keeps it so in its result
    (:func:`coschedlab.jobs.take`), with the same values as the per-job rows."""
    from coschedlab.jobs import Workload, take
    from coschedlab.platform import Cluster
    from coschedlab.simulation import run_simulation

    ids = np.array([1, 2, 3, 4])
    w = Workload({"id": ids, "submit": np.array([30.0, 0, 20, 10]), "run": np.full(4, 5.0),
                  "procs": np.ones(4, np.int64)})  # fmt: skip
    defaults = {"user": -1, "group": -1, "app": -1, "queue": -1, "partition": -1, "status": 1,
                "preceding": -1, "think_time": -1.0}  # fmt: skip
    for name, value in defaults.items():
        a = w.columns[name]
        assert a.strides == (0,) and not a.flags.writeable and a.tolist() == [value] * 4, name
    assert w.columns["think_time"].dtype == np.float64 and w.columns["user"].dtype == np.int32
    order = np.array([1, 3, 2, 0])
    for index, rows in ((order, 4), (np.array([True, False, True, False]), 2),
                        (slice(1, None), 3)):  # fmt: skip
        got = take(w.columns["status"], index)
        assert got.strides == (0,) and got.tolist() == [1] * rows
    assert take(ids, order).tolist() == [2, 4, 3, 1]
    r = run_simulation(w, Cluster(nodes=2), "fcfs")
    assert r.validate() == []
    assert r.jobs["job_id"].tolist() == [2, 4, 3, 1]  # queue order: the workload's is not
    assert r.jobs["user"].tolist() == [-1] * 4 and r.jobs["status"].tolist() == [1] * 4
    assert np.asarray(r.columns["status"]).strides == (0,)
