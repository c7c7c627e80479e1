"""The compiled stable order and event sweep (``coschedlab._core.order``) against NumPy:
``stable_argsort`` is ``np.argsort(kind="stable")``'s permutation and ``step_sum`` the NumPy
sweep it replaced (the events' stable argsort, the ends' weights negated, ``np.cumsum``), bit
for bit but a NaN's sign, on random columns with ties, signed zeros, infinities and NaNs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab._core.order import stable_argsort
from coschedlab.metrics import step_sum

#: values with many ties, both zeros, both infinities and NaN
FLOATS = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, 1e300, -1e-300, math.inf, -math.inf, math.nan]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**40), 2**40).map(float),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(FLOATS, max_size=200))
def test_stable_argsort_is_numpys(values):
    a = np.array(values, dtype=np.float64)
    got = stable_argsort(a)
    assert got.dtype == np.int64
    assert got.tolist() == np.argsort(a, kind="stable").tolist()


def test_stable_argsort_on_a_large_column():
    rng = np.random.default_rng(7)
    a = np.round(rng.random(300_000) * 1e7)  # times: whole seconds, many ties
    a[::5] = a[::5] + rng.random(len(a[::5]))
    a[::97] = math.nan
    assert np.array_equal(stable_argsort(a), np.argsort(a, kind="stable"))


def _numpy_step_sum(starts, ends, weights):
    """The NumPy sweep step_sum replaced: (times, levels)."""
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), starts.shape)
    times = np.concatenate((starts, ends))
    ok = np.isfinite(times)
    delta = np.concatenate((w, -w))[ok]
    times = times[ok]
    if not len(times):
        return [], []
    order = np.argsort(times, kind="stable")
    times = times[order]
    with np.errstate(invalid="ignore"):  # (inf - inf)
        level = np.cumsum(delta[order])
    last = np.r_[times[1:] != times[:-1], True]
    v = level[last]
    v[np.abs(v) < 1e-9 * max(1.0, float(np.abs(w).max(initial=0)))] = 0.0
    return times[last].tolist(), v.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(FLOATS, FLOATS, FLOATS), max_size=60),
    st.one_of(st.none(), st.sampled_from([1.0, 1.5, -0.0, 3e9])),
)
def test_step_sum_is_the_numpy_sweep(jobs, scalar):
    starts = np.array([j[0] for j in jobs], dtype=np.float64)
    ends = np.array([j[1] for j in jobs], dtype=np.float64)
    weights = scalar if scalar is not None else np.array([j[2] for j in jobs], dtype=float)
    s = step_sum(starts, ends, weights)
    t, v = _numpy_step_sum(starts, ends, weights)
    assert s.t.tobytes() == np.array(t, dtype=np.float64).tobytes()
    got, want = s.v.copy(), np.array(v, dtype=np.float64)
    got[np.isnan(got)] = want[np.isnan(want)] = math.nan  # (a NaN's sign: IEEE leaves it open)
    assert got.tobytes() == want.tobytes()


def _spoiled(order: np.ndarray, data: st.DataObject) -> np.ndarray:
    """A copy of ``order`` that is no column's stable order: two neighbours swapped (equal
    values too: their rows out of order), a row twice, or one out of range."""
    bad = order.copy()
    i = data.draw(st.integers(0, len(bad) - 2))
    how = data.draw(st.sampled_from(["swap", "twice", "range"]))
    if how == "swap":
        bad[[i, i + 1]] = bad[[i + 1, i]]
    elif how == "twice":
        bad[i + 1] = bad[i]
    else:
        bad[i] = len(bad) + data.draw(st.integers(0, 3))
    return bad


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(FLOATS, FLOATS, FLOATS), min_size=1, max_size=60), st.data())
def test_step_sum_from_given_orders_is_the_same_and_refuses_a_wrong_order(jobs, data):
    """The sweep from the orders made already (the validator's) gives the same bytes as the
    one that sorts; an order that is not its column's stable order is refused."""
    starts = np.array([j[0] for j in jobs], dtype=np.float64)
    ends = np.array([j[1] for j in jobs], dtype=np.float64)
    weights = np.array([j[2] for j in jobs], dtype=float)
    orders = {"start": stable_argsort(starts), "end": stable_argsort(ends)}
    want = step_sum(starts, ends, weights)
    got = step_sum(starts, ends, weights, orders=orders)
    assert got.t.tobytes() == want.t.tobytes()
    g, w = got.v.copy(), want.v.copy()
    g[np.isnan(g)] = w[np.isnan(w)] = math.nan  # (a NaN's sign: IEEE leaves it open)
    assert g.tobytes() == w.tobytes()
    if len(jobs) < 2:
        return
    name = data.draw(st.sampled_from(["start", "end"]))
    bad = _spoiled(orders[name], data)
    with pytest.raises(ValueError):
        step_sum(starts, ends, weights, orders={**orders, name: bad})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(FLOATS, FLOATS), max_size=120))
def test_two_stable_orders_are_lexsort(pairs):
    """The validator's order of intervals (by start, then end, then row), as two stable
    orders, against ``np.lexsort`` it replaced."""
    s = np.array([p[0] for p in pairs], dtype=np.float64)
    e = np.array([p[1] for p in pairs], dtype=np.float64)
    order = stable_argsort(e)
    order = order[stable_argsort(s[order])]
    assert order.tolist() == np.lexsort((np.arange(len(s)), e, s)).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(FLOATS, max_size=60), st.lists(FLOATS, max_size=60), st.data())
def test_merged_order_is_numpys_on_both_columns_and_refuses_a_wrong_order(a, b, data):
    """merged_order of two stable orders is the stable order of the columns end to end (the
    first column's rows first at equal values and among NaNs); an order that is not its
    column's stable order (two rows swapped, a row twice, one out of range) is refused."""
    from coschedlab._core.order import merged_order

    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    got = merged_order(a, stable_argsort(a), b, stable_argsort(b))
    assert got.tolist() == np.argsort(np.concatenate([a, b]), kind="stable").tolist()
    for col in (a, b):
        if len(col) < 2:
            continue
        bad = _spoiled(stable_argsort(col), data)
        with pytest.raises(ValueError):
            if col is a:
                merged_order(a, bad, b, stable_argsort(b))
            else:
                merged_order(a, stable_argsort(a), b, bad)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(FLOATS, FLOATS, st.integers(0, 5)), max_size=60), st.integers(0, 8),
       st.data())  # fmt: skip
def test_first_over_is_the_cumulative_sum_of_the_merged_events(jobs, capacity, data):
    """The capacity's sweep (the ends then the starts merged, each end taking its weight away)
    against NumPy's cumulative sum over merged_order; a wrong order is refused even when the
    level went over before the wrong row."""
    from coschedlab._core.order import first_over, merged_order

    start = np.array([j[0] for j in jobs], dtype=np.float64)
    end = np.array([j[1] for j in jobs], dtype=np.float64)
    w = np.array([j[2] for j in jobs], dtype=np.int64)
    n = len(jobs)
    by_s, by_e = stable_argsort(start), stable_argsort(end)
    order = merged_order(end, by_e, start, by_s)
    starting = order >= n
    level = np.cumsum(np.where(starting, w[order % max(n, 1)], -w[order % max(n, 1)]))
    over = np.flatnonzero(level > capacity)
    got = first_over(end, by_e, start, by_s, w, capacity)
    if not len(over):
        assert got is None
    else:
        i = over[0]
        assert got == (int(order[i] % n), bool(starting[i]), int(level[i]))
    if n >= 2:
        bad = by_s.copy()
        i = data.draw(st.integers(0, n - 2))
        bad[i + 1] = bad[i]  # a row twice (one missing)
        with pytest.raises(ValueError):
            first_over(end, by_e, start, bad, w, capacity)


@settings(max_examples=300, deadline=None)
@given(st.lists(FLOATS, max_size=80), st.data())
def test_stable_argsort_from_a_hint_is_numpys_whatever_the_hint(values, data):
    """A hint (the kernel's order of starts or ends: by value, ties as they came) gives the
    stable order from one pass; a wrong hint (out of order, a row twice, short, out of range)
    gives it all the same, by the sort."""
    a = np.array(values, dtype=np.float64)
    want = np.argsort(a, kind="stable").tolist()
    hint = np.argsort(a, kind="stable")
    # the rows of each run of equal values shuffled (NaNs and both zeros tie)
    key = [None if math.isnan(v) else v for v in a[hint].tolist()]
    starts = [0] + [i for i in range(1, len(a)) if key[i] != key[i - 1]] + [len(a)]
    for s, e in zip(starts[:-1], starts[1:], strict=True):
        hint[s:e] = data.draw(st.permutations(hint[s:e].tolist()))
    assert stable_argsort(a, hint).tolist() == want
    if len(a) >= 2:
        bad = hint.copy()
        how = data.draw(st.sampled_from(["swap", "twice", "short", "range"]))
        i = data.draw(st.integers(0, len(a) - 2))
        if how == "swap":
            bad[[i, i + 1]] = bad[[i + 1, i]]
        elif how == "twice":
            bad[i + 1] = bad[i]
        elif how == "short":
            bad = bad[:-1]
        else:
            bad[i] = len(a) + 1
        assert stable_argsort(a, bad).tolist() == want


def test_stable_argsort_from_a_hint_with_a_long_run_out_of_row_order():
    """A run of equal values longer than the in-place sort takes: the sort, the same order."""
    a = np.zeros(500)
    a[::7] = 1.0
    hint = np.argsort(a, kind="stable")[::-1].copy()
    hint = np.concatenate([hint[a[hint] == 0], hint[a[hint] == 1]])
    assert stable_argsort(a, hint).tolist() == np.argsort(a, kind="stable").tolist()
