"""The free-node pool: best fit, else lowest ids first; intervals disjoint and merged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedlab.engine.nodepool import NodePool, runs_block
from coschedlab.intervals import format_intervals, parse_intervals


@given(n=st.integers(1, 60), data=st.data())
def test_take_and_give_keep_the_pool_exact(n, data):
    pool, held, used = NodePool(n), [], set()
    for _ in range(data.draw(st.integers(1, 60))):
        if held and (pool.free == 0 or data.draw(st.booleans())):
            iv = held.pop(data.draw(st.integers(0, len(held) - 1)))
            pool.give(iv)
            used -= {x for a, b in iv for x in range(a, b)}
        else:
            k = data.draw(st.integers(1, pool.free))
            iv = pool.take(k)
            got = {x for a, b in iv for x in range(a, b)}
            assert len(got) == k and not got & used
            free = sorted(set(range(n)) - used)
            runs = [r for r in _runs(free) if len(r) >= k]
            if runs:  # best fit: the shortest run holding all k, lowest ids among equals
                best = min(runs, key=lambda r: (len(r), r[0]))
                assert sorted(got) == best[:k] and len(iv) == 1
            else:  # the longest runs whole, then best fit: as few pieces as a split allows
                lengths = sorted((len(r) for r in _runs(free)), reverse=True)
                fewest = next(i for i in range(1, len(lengths) + 1) if sum(lengths[:i]) >= k)
                assert len(iv) == fewest
            used |= got
            held.append(iv)
        ivs = sorted(zip([-s for s in pool.starts], pool.ends, strict=True))
        assert sum(b - a for a, b in ivs) == pool.free == n - len(used)
        assert pool.by_len == sorted((b - a, a) for a, b in ivs)
        assert all(b1 < a2 for (_, b1), (a2, _) in zip(ivs, ivs[1:], strict=False))


def _runs(nodes: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for x in nodes:
        if out and out[-1][-1] == x - 1:
            out[-1].append(x)
        else:
            out.append([x])
    return out


def test_best_fit_keeps_the_long_run_for_the_long_job():
    pool = NodePool(10)
    a, b, c = pool.take(2), pool.take(3), pool.take(2)  # 0-1, 2-4, 5-6; free 7-9
    pool.give(b)  # free: 2-4 (3 nodes) and 7-9 (3 nodes)
    pool.give(a)  # free: 0-4 (5 nodes) and 7-9
    assert pool.take(3) == [(7, 10)]  # best fit: the 3-node run, not the lowest ids
    assert pool.take(5) == [(0, 5)]
    assert c == [(5, 7)] and pool.free == 0


def test_interval_text_round_trip():
    assert format_intervals([(0, 4), (7, 8)]) == "0-3 7"
    assert parse_intervals("0-3 7") == [(0, 4), (7, 8)]


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 50)), max_size=4).map(
                lambda iv: format_intervals([(a, a + 1 + d) for a, d in iv])
            ),
            st.text(alphabet="0123456789- ,x", max_size=8),
        ),
        max_size=30,
    )
)
def test_vectorised_alloc_parsing_equals_the_plain_parser(texts):
    import numpy as np
    import pytest

    from coschedlab.errors import InputError
    from coschedlab.intervals import _parse_one_by_one, parse_alloc_column

    try:
        expected = _parse_one_by_one(texts)
    except InputError as exc:
        with pytest.raises(InputError, match="bad node list"):
            parse_alloc_column(texts)
        assert "bad node list" in str(exc)
        return
    got = parse_alloc_column(texts)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


@given(st.integers(1, 40), st.data())
def test_take_range_removes_exactly_those_nodes(n, data):
    pool = NodePool(n)
    free = set(range(n))
    for _ in range(20):
        if data.draw(st.booleans()) and free:
            a = data.draw(st.sampled_from(sorted(free)))
            b = a + 1
            while b in free and data.draw(st.booleans()):
                b += 1
            assert pool.holds(a, b)
            pool.take_range(a, b)
            free -= set(range(a, b))
        elif len(free) < n:
            taken = sorted(set(range(n)) - free)
            a = data.draw(st.sampled_from(taken))
            pool.give_range(a, a + 1)
            free.add(a)
        runs = sorted((-s, e) for s, e in zip(pool.starts, pool.ends, strict=True))
        assert {i for s, e in runs for i in range(s, e)} == free and pool.free == len(free)
        assert sorted(pool.by_len) == sorted((e - s, s) for s, e in runs)


def test_a_policy_can_name_whole_nodes():
    import pytest
    from conftest import workload

    from coschedlab import Cluster, Scheduler, simulate
    from coschedlab.engine.kernel import SchedulerError
    from coschedlab.engine.placement import Placement

    class Top(Scheduler):
        name = "top"

        def __init__(self, where=None):
            super().__init__()
            self.where = where

        def schedule(self, view):
            out = []
            for j in view.queue:
                k = view.nodes[j]
                if k <= view.free:
                    iv = self.where or [(view.cluster.nodes - k, view.cluster.nodes)]
                    out.append(Placement(j, intervals=iv))
                    break
            return out

    w = workload((1, 0, 10, 10, 2), (2, 20, 10, 10, 1))
    r = simulate(w, Cluster(8), Top())
    assert list(r.jobs["alloc"]) == ["6-7", "7"] and r.validate() == []
    for where, says in (([(0, 1)], "names 1 nodes for a job of 2"), ([(0, 1), (0, 1)], "twice"),
                        ([(7, 9)], "not all idle")):  # fmt: skip
        with pytest.raises(SchedulerError, match=says):
            simulate(workload((1, 0, 10, 10, 2)), Cluster(8), Top(where))


class _PoolOracle:
    """The pool's rule in plain Python: a sorted list of free runs ``[a, b)``."""

    def __init__(self, n: int) -> None:
        self.runs = [(0, n)] if n else []

    def take(self, k: int) -> list[tuple[int, int]]:
        out = []
        while k > 0:
            fits = [(b - a, a) for a, b in self.runs if b - a >= k]
            if fits:
                _, a = min(fits)
            else:  # the longest run, lowest ids
                _, a = min((-(b - a), a) for a, b in self.runs)
            b = dict(self.runs)[a]
            self.runs.remove((a, b))
            if b - a <= k:
                out.append((a, b))
                k -= b - a
            else:
                out.append((a, a + k))
                self.runs.append((a + k, b))
                k = 0
        self.runs.sort()
        return out

    def give(self, a: int, b: int) -> None:
        self.runs.append((a, b))
        self.runs.sort()
        merged: list[tuple[int, int]] = []
        for x, y in self.runs:
            if merged and merged[-1][1] == x:
                merged[-1] = (merged[-1][0], y)
            else:
                merged.append((x, y))
        self.runs = merged


@pytest.mark.parametrize("block", [64, 1, 3])
@given(n=st.integers(1, 3000), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 400))
def test_many_runs_take_and_give_as_the_oracle(block, n, seed, steps):
    """Long sequences on up to 3,000 nodes (hundreds of runs: the best-fit set in many
    blocks; with blocks of 1 to 3 keys every insert near a split, every removal near a block's
    end): every take returns the oracle's intervals, every state has the oracle's runs."""
    import random

    rng = random.Random(seed)
    old = runs_block(block)
    try:
        _pool_against_oracle(rng, n, steps)
    finally:
        runs_block(old)


def _pool_against_oracle(rng, n: int, steps: int) -> None:
    pool, oracle, held = NodePool(n), _PoolOracle(n), []
    for _ in range(steps):
        if held and (pool.free == 0 or rng.random() < 0.45):
            for a, b in held.pop(rng.randrange(len(held))):
                pool.give_range(a, b)
                oracle.give(a, b)
        else:
            k = min(pool.free, rng.choice((1, 1, 1, 2, 3, 5, 8, 40, n // 3 + 1)))
            got = pool.take(k)
            assert got == oracle.take(k)
            held.append(got)
        assert pool.intervals == oracle.runs
        assert pool.free == sum(b - a for a, b in oracle.runs)
    for a, b in oracle.runs[:3]:  # a run's nodes are held; a used node is not
        assert pool.holds(a, b) and not pool.holds(a, b + 1) or b == n


def test_giving_back_free_nodes_is_refused():
    import pytest

    pool = NodePool(10)
    pool.take_range(2, 6)
    for a, b in ((1, 3), (5, 7), (0, 11), (4, 4)):
        with pytest.raises(ValueError, match="were not all taken"):
            pool.give_range(a, b)
    pool.give_range(2, 6)
    assert pool.intervals == [(0, 10)] and pool.free == 10


def test_whole_node_allocations_past_one_block():
    """WholeNodes writes intervals in blocks of 131,072: 140,000 jobs (and a job of two pieces at
    each end) read back as they were taken, the texts too."""
    from coschedlab.engine.wholenodes import WholeNodes
    from coschedlab.platform import Cluster

    n = 140_000
    acct = WholeNodes(Cluster(nodes=7), n + 3)
    want = {}
    for j in range(n):
        k = 1 + j % 7
        acct.take(j, k, None)
        want[j] = [(0, k)]
        acct.release(j)
    for j in (n, n + 1):  # nodes 0-2, then 3 (free: 4-6 after)
        acct.take(j, 3 if j == n else 1, None)
    acct.release(n)
    acct.take(n + 2, 6, None)  # the longest runs whole, lowest ids first: 0-2, then 4-6
    want.update({n: [(0, 3)], n + 1: [(3, 4)], n + 2: [(0, 3), (4, 7)]})
    assert [acct.allocation(j) for j in range(n + 3)] == [want[j] for j in range(n + 3)]
    texts = acct.alloc_column(n + 3).tolist()
    assert texts[:8] == ["0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "0"]
    assert texts[n:] == ["0-2", "3", "0-2 4-6"]


def test_an_empty_pool_holds_nothing():
    import pytest

    pool = NodePool(0)
    assert pool.free == 0 and pool.intervals == [] and not pool.holds(0, 1)
    with pytest.raises(ValueError, match="1 free|0 free"):
        pool.take(1)
    with pytest.raises(ValueError, match="were not all taken"):
        pool.give_range(0, 1)
    with pytest.raises(ValueError, match="not all free"):
        pool.take_range(0, 1)
