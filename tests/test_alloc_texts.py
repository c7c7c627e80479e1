"""A run's ``alloc`` column (:class:`coschedlab.intervals.AllocColumn`, made by the node
accounting's ``alloc_column``: intervals, formatted in compiled code when written) against
:func:`coschedlab.intervals.format_intervals` of each allocation, and what the writers and the
validator read of it against the same column as a list of texts."""

from __future__ import annotations

import io

import numpy as np
from conftest import workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster
from coschedlab._core.textrows import ALLOC, TEXT, write_rows
from coschedlab.engine.kernel import Simulation
from coschedlab.intervals import AllocColumn, format_intervals, parse_alloc_column
from coschedlab.schedulers import get_scheduler


def _run(w, nodes, stop):
    # fragmented machines give jobs several intervals; a stopped run leaves jobs unstarted
    sim = Simulation(
        w, Cluster(nodes, 1, 1), get_scheduler("firstfit"), until=60.0 if stop else None
    )
    sim.run()
    return sim


@settings(max_examples=100, deadline=None)
@given(w=workloads(max_jobs=40, max_procs=12), nodes=st.integers(12, 16), stop=st.booleans())
def test_alloc_texts_are_the_formatted_intervals(w, nodes, stop):
    sim = _run(w, nodes, stop)
    acct = sim.acct
    col = acct.alloc_column(sim.n)
    want = [format_intervals(acct.allocation(j)) for j in range(sim.n)]
    assert isinstance(col, AllocColumn)
    assert col.tolist() == want
    assert [col[j] for j in range(len(col))] == want
    assert np.asarray(col).tolist() == want
    assert col.held() == any(want)
    # the validator's intervals: as parsed back from the texts
    for got, expected in zip(col.ranges(), parse_alloc_column(want), strict=True):
        assert got.tolist() == expected.tolist()
    # the texts in chunks, as jobs.parquet takes them
    cut = len(col) // 2
    for a, b in ((0, len(col)), (0, cut), (cut, len(col))):
        offsets, data = col.text_buffers(a, b)
        text = bytes(data).decode()
        assert [text[offsets[k] : offsets[k + 1]] for k in range(b - a)] == want[a:b]
    # jobs.csv's rows: the compiled intervals as the texts would be written
    rows = {}
    for kind, values in ((ALLOC, col.arrays()), (TEXT, want)):
        out = io.BytesIO()
        write_rows(out.write, len(want), [(kind, values, str)])
        rows[kind] = out.getvalue()
    assert rows[ALLOC] == rows[TEXT]


def test_alloc_column_of_intervals_big_ids_and_gaps():
    held = [[(0, 4), (7, 8)], [], [(2_000_000_000, 2_000_000_002)], [(5, 6)]]
    col = AllocColumn.from_intervals(held)
    want = [format_intervals(h) for h in held]
    assert col.tolist() == want == ["0-3 7", "", "2000000000-2000000001", "5"]
    assert col[-1] == "5"
    assert np.asarray(col)[[0, 2]].tolist() == [want[0], want[2]]


def test_the_alloc_column_reads_as_the_object_array_it_replaced():
    """User code written for the object array of texts (``Result.columns['alloc']`` before it
    held intervals): comparisons item by item, the array's reading methods, its printing;
    an edit in place is refused with a clear error, never a silent no-op on a copy. (``==``
    was ``False``: an identity test; ``.size``, ``.astype``, ``.copy`` did not exist.)"""
    import copy
    import pickle

    import pytest

    col = AllocColumn.from_intervals([[(0, 2)], [(2, 4)], [(0, 4)], []])
    texts = np.array(["0-1", "2-3", "0-3", ""], dtype=object)
    assert (col == "0-3").tolist() == (texts == "0-3").tolist() == [False, False, True, False]
    assert (col != "0-3").tolist() == [True, True, False, True]
    assert (col == texts).all() and (texts == col).all()
    assert np.flatnonzero(col == "2-3").tolist() == [1]
    assert col.size == 4 and col.copy().tolist() == texts.tolist()
    assert col.astype(str).tolist() == texts.astype(str).tolist()
    assert np.unique(col).tolist() == np.unique(texts).tolist()
    assert repr(col) == repr(texts) and str(col) == str(texts)
    assert col[-1] == "" and col[-4] == "0-1" and col[1:3].tolist() == ["2-3", "0-3"]
    assert col[True].tolist() == texts[True].tolist()  # a bool is a mask, as for the array
    for back in (pickle.loads(pickle.dumps(col)), copy.deepcopy(col), copy.copy(col)):
        assert (back == texts).all()
    with pytest.raises(TypeError, match="cannot be changed in place"):
        col[0] = "5"
    for method in ("fill", "sort", "put"):
        with pytest.raises(TypeError, match="cannot be changed in place"):
            getattr(col, method)
    with pytest.raises(TypeError):
        hash(col)  # as an array's
    col.tolist = None  # a probe for what no array has makes no texts (nor a copy's method)
    assert getattr(col, "iloc", None) is None and getattr(col, "to_numpy", None) is None
