"""The free-node pool: lowest ids first, intervals disjoint and merged, nothing lost."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from coschedlab.engine.resources import NodePool, format_intervals, parse_intervals


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
            assert sorted(got) == sorted(set(range(n)) - used)[:k]  # lowest ids first
            used |= got
            held.append(iv)
        ivs = sorted(zip([-s for s in pool.starts], pool.ends, strict=True))
        assert sum(b - a for a, b in ivs) == pool.free == n - len(used)
        assert all(b1 < a2 for (_, b1), (a2, _) in zip(ivs, ivs[1:], strict=False))


def test_interval_text_round_trip():
    assert format_intervals([(0, 4), (7, 8)]) == "0-3 7"
    assert parse_intervals("0-3 7") == [(0, 4), (7, 8)]
