"""The compiled per-group Kahan sums (``coschedlab._core.kahan``, under
:func:`coschedlab.metrics._group_sums`) against the Python loop they replaced: the same bits
for any values (so metrics.json keeps pandas' groupby numbers)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab._core.kahan import group_sums
from coschedlab.metrics import _group_sums


def _python(labels: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    s = [0.0] * n
    c = [0.0] * n
    for g, x in zip(labels.tolist(), values.tolist(), strict=True):
        y = x - c[g]
        t = s[g] + y
        c[g] = (t - s[g]) - y
        s[g] = t
    return np.asarray(s, dtype=np.float64)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.tuples(
    st.integers(0, n - 1), st.floats(-1e12, 1e12) | st.floats(-1, 1)), max_size=60))))  # fmt: skip
def test_same_bits_as_the_python_loop(case):
    n, pairs = case
    labels = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([x for _, x in pairs], dtype=np.float64)
    want = _python(labels, values, n)
    assert group_sums(labels, values, n).tobytes() == want.tobytes()
    assert _group_sums(labels, values, n).tobytes() == want.tobytes()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.tuples(
    st.integers(0, n - 1), st.integers(-(2**40), 2**40) | st.integers(-3, 3)),
    max_size=60))))  # fmt: skip
def test_whole_numbers_are_the_plain_sums(case):
    # the exact sums np.bincount gives whole numbers (the path _group_sums took for them)
    n, pairs = case
    labels = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([x for _, x in pairs], dtype=np.float64)
    want = np.bincount(labels, weights=values, minlength=n)
    assert _group_sums(labels, values, n).tobytes() == want.tobytes()


def test_compensation_is_kept():
    """1 + many tiny values: the compensated sum differs from the naive one (not vacuous)."""
    values = np.array([1.0] + [1e-16] * 1000)
    labels = np.zeros(len(values), dtype=np.int64)
    naive = 0.0
    for x in values.tolist():
        naive += x  # 1 + 1e-16 is 1: the tiny values vanish
    assert naive == 1.0
    assert group_sums(labels, values, 1)[0] == _python(labels, values, 1)[0] > 1.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, 1.0, 2.5, -3.0, 7.0])),
                min_size=1, max_size=80))  # fmt: skip
def test_ordered_by_group_is_the_numpy_sort(rows):
    """The counting sort of the groups' p95 against the NumPy sort it replaced."""
    from coschedlab._core.kahan import ordered_by_group

    labels = np.array([g for g, _ in rows], dtype=np.int64)
    values = np.array([x for _, x in rows], dtype=np.float64)
    labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)  # 0, 1, ... all used
    count = np.bincount(labels).astype(np.int64)
    by_value = np.argsort(values, kind="stable")
    want = values[by_value[np.argsort(labels[by_value], kind="stable")]]
    assert ordered_by_group(labels, values, by_value, count).tobytes() == want.tobytes()
