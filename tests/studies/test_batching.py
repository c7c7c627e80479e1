"""Optimal batching (SimX Section 4.2): the seed's two examples and a brute force over every
partition."""

from __future__ import annotations

import math
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.studies import ScalingTable, batch_time, optimal_batches, parse_scaling

SEED = parse_scaling("4:1.95,8:1.14,16:0.80,32:0.60,64:1.82")  # Table 4, seconds per timestep


def test_the_seeds_examples():
    six = optimal_batches(6, SEED, 32)
    assert six.sizes == (2, 4) and six.groups == (16, 8)
    assert six.time == pytest.approx(1.94)
    seven = optimal_batches(7, SEED, 32)
    assert seven.sizes == (7,) and seven.groups == (4,)
    assert seven.time == pytest.approx(1.95)
    # the printed recurrence forces a split: 7 jobs would cost 2.28n (REFERENCE.md)
    assert min(batch_time(i, SEED, 32) + batch_time(7 - i, SEED, 32) for i in range(1, 7)) == (
        pytest.approx(2.28)
    )


def test_a_batch_gets_the_largest_tabulated_group_that_fits():
    assert SEED.group(1, 32) == 32  # 64 does not fit
    assert SEED.group(3, 32) == 8
    assert SEED.group(8, 32) == 4
    assert SEED.group(9, 32) is None
    assert math.isinf(batch_time(9, SEED, 32))


def brute_force(n: int, table: ScalingTable, procs: int) -> float:
    """The best total over every partition of n into batch sizes."""

    @lru_cache(None)
    def best(m: int, largest: int) -> float:
        if m == 0:
            return 0.0
        return min(
            (batch_time(k, table, procs) + best(m - k, k) for k in range(1, min(m, largest) + 1)),
            default=math.inf,
        )

    return best(n, n)


tables = st.dictionaries(
    st.integers(1, 64), st.floats(0.05, 10.0, allow_nan=False), min_size=1, max_size=6
).map(ScalingTable.of)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10), tables, st.integers(1, 96))
def test_equals_brute_force_over_all_partitions(n, table, procs):
    if table.group(1, procs) is None:
        with pytest.raises(InputError):
            optimal_batches(n, table, procs)
        return
    got = optimal_batches(n, table, procs)
    assert got.time == pytest.approx(brute_force(n, table, procs))
    assert sum(got.sizes) == n
    assert got.time == pytest.approx(sum(batch_time(k, table, procs) for k in got.sizes))


@pytest.mark.parametrize(
    "text, says",
    [
        ("", "empty"),
        ("4", "PROCESSORS:SECONDS"),
        ("4:x", "PROCESSORS:SECONDS"),
        ("0:1", "processors must be whole numbers from 1 to"),
        ("4:-1", "positive"),
        ("4:1,4:2", "given twice"),
        ("4:inf", "positive"),
    ],
)
def test_bad_scaling_tables(text, says):
    with pytest.raises(InputError, match=None) as e:
        parse_scaling(text)
    assert says in str(e.value)


def test_cli_batch_from_a_csv_file(tmp_path):
    from _cli import cli_here

    f = tmp_path / "arches.csv"
    f.write_text("processors,seconds_per_timestep\n4,1.95\n8,1.14\n16,0.80\n32,0.60\n64,1.82\n")
    done = cli_here("study", "batch", "--scaling", str(f), "--jobs", "6", "--procs", "32")
    assert done.returncode == 0, done.stderr
    assert "optimal: 1.94n s in 2 batches" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


def test_cli_batch_of_a_large_study_reads_at_a_glance():
    """Equal batches in a row share one line; big times and counts never in e-notation."""
    from _cli import cli_here

    done = cli_here(
        "study", "batch", "--scaling", "4:1.95,8:1.14,16:0.80,32:0.60", "-n", "60000", "-p", "32"
    )
    assert done.returncode == 0, done.stderr
    assert "│ 1-7,500 │" in done.stdout and "in 7,500 batches" in done.stdout
    assert "60,000 runs" in done.stdout and "36,000n s" in done.stdout
    assert "e+" not in done.stdout and len(done.stdout.splitlines()) < 15
