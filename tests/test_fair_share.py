"""The fair-share example (examples/fair_share.py): a user policy built on the view's users,
with known answers computed by hand and valid schedules on random workloads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _cli import cli_here
from conftest import workloads
from hypothesis import given
from hypothesis import strategies as st

from coschedlab import Cluster, InputError, Workload, simulate
from coschedlab.schedulers import get_scheduler

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "fair_share.py"
H, L = 1, 2  # a heavy and a light user


def fair_share(**options):
    return get_scheduler(str(EXAMPLE), **options)


def jobs(*rows) -> Workload:
    """(id, submit, run, requested, procs, user[, group]) rows."""
    cols = ("id", "submit", "run", "requested_time", "procs", "user", "group")
    return Workload.from_records([dict(zip(cols, r, strict=False)) for r in rows])


def starts(result) -> dict[int, float]:
    return result.jobs.set_index("job_id").start.to_dict()


def flood() -> Workload:
    # H holds the 4-node machine from 0 to 100 and queues four more whole-machine jobs at
    # t = 1..4; L submits two 2-node jobs at t = 5 and 6
    return jobs(
        (1, 0, 100, 100, 4, H), (2, 1, 100, 100, 4, H), (3, 2, 100, 100, 4, H),
        (4, 3, 100, 100, 4, H), (5, 4, 100, 100, 4, H), (6, 5, 50, 50, 2, L),
        (7, 6, 50, 50, 2, L),
    )  # fmt: skip


def test_a_light_user_waits_less_than_under_fcfs_and_easy():
    w = flood()
    # FCFS and EASY: nothing can pass a whole-machine job, so L waits for all of H's
    behind = {1: 0, 2: 100, 3: 200, 4: 300, 5: 400, 6: 500, 7: 500}
    for spec in ("fcfs", "easy"):
        assert starts(simulate(w, Cluster(4), spec)) == behind
    # fair share: at t = 100 H has used 4 x 100 core-seconds, L nothing: L's two jobs go first
    r = simulate(w, Cluster(4), fair_share())
    assert starts(r) == {1: 0, 2: 150, 3: 250, 4: 350, 5: 450, 6: 100, 7: 100}
    light = r.jobs[r.jobs.user == L].wait.mean()
    assert light == pytest.approx(94.5)  # (95 + 94) / 2, against (495 + 494) / 2
    assert r.validate() == []
    assert r.scheduler == "fair-share"


@pytest.mark.parametrize(("half_life", "first"), [(10, 3), (1000, 4)])
def test_the_half_life_decides_whether_old_usage_still_counts(half_life, first):
    # user 1 ran 4 x 1000 core-seconds ending at t = 1000, user 2 then 4 x 100 ending at 1100;
    # at 1100 user 1's usage is 4000 * 2^(-100 / half_life): 3.9 < 400 with half_life 10, so
    # its job 3 goes first; 3732 > 400 with half_life 1000, so user 2's job 4 goes first
    w = jobs((1, 0, 1000, 1000, 4, 1), (2, 0, 100, 100, 4, 2), (3, 1040, 100, 100, 4, 1),
             (4, 1050, 100, 100, 4, 2))  # fmt: skip
    r = simulate(w, Cluster(4), fair_share(half_life=half_life))
    second = 7 - first
    assert starts(r) == {1: 0, 2: 1000, first: 1100, second: 1200}
    assert r.validate() == []


def test_backfills_easy_style_behind_the_first_job_in_usage_order():
    # H runs 3 of 4 nodes until 100; at t = 3 L's whole-machine job 3 is first (no usage) and
    # gets the shadow time 100; H's 4-node job 2 cannot start, H's 1-node job 4 ends by 100
    # and is backfilled at once
    w = jobs((1, 0, 100, 100, 3, H), (2, 1, 100, 100, 4, H), (3, 2, 100, 100, 4, L),
             (4, 3, 50, 50, 1, H))  # fmt: skip
    r = simulate(w, Cluster(4), fair_share())
    assert starts(r) == {1: 0, 2: 200, 3: 100, 4: 3}
    assert r.validate() == []


def test_an_end_nobody_waited_for_counts_until_the_estimated_end():
    # user 1's job 1 really ends at 10 but nobody waits then, so no pass sees it: at the next
    # pass (t = 50) it is charged until min(50, its estimated end 100) = 50, 4 x 50 = 200.
    # User 2's job 2 ends at 150 while jobs wait (seen exactly): 1 x 100 = 100 < 200, so
    # user 2's job 4 goes before user 1's job 3 (with the real 4 x 10 it would be the reverse)
    w = jobs((1, 0, 10, 100, 4, 1), (2, 50, 100, 100, 1, 2), (3, 60, 100, 100, 4, 1),
             (4, 70, 100, 100, 4, 2))  # fmt: skip
    r = simulate(w, Cluster(4), fair_share())
    assert starts(r) == {1: 0, 2: 50, 3: 250, 4: 150}


def test_by_group_shares_among_groups():
    # users 1 and 3 are in group 10, user 2 in group 20; user 1's job 1 holds the machine until
    # 100. By user, users 3 and 2 have no usage: queue order, job 2 first; by group, group 10
    # has used 4 x 100 core-seconds and group 20 nothing: user 2's job 3 first
    w = jobs((1, 0, 100, 100, 4, 1, 10), (2, 1, 100, 100, 4, 3, 10), (3, 2, 100, 100, 4, 2, 20))
    assert starts(simulate(w, Cluster(4), fair_share())) == {1: 0, 2: 100, 3: 200}
    assert starts(simulate(w, Cluster(4), fair_share(by="group"))) == {1: 0, 2: 200, 3: 100}


def test_options_are_checked_like_the_built_ins():
    assert fair_share(half_life=3600).describe() == "fair-share:half_life=3600"
    assert get_scheduler(f"{EXAMPLE}:by=group").by == "group"
    with pytest.raises(InputError, match="option half_life must be a positive number"):
        fair_share(half_life=0)
    with pytest.raises(InputError, match="'half_life' .* is 'nan', not a finite number"):
        get_scheduler(f"{EXAMPLE}:half_life=nan")  # refused when read, like every option
    with pytest.raises(InputError, match="option by must be one of user, group"):
        fair_share(by="queue")
    with pytest.raises(InputError, match="has no option 'halflife'"):
        get_scheduler(f"{EXAMPLE}:halflife=1")


def test_through_the_command_line(tmp_path):
    trace = tmp_path / "t.swf"
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    for jid, submit, run, procs, user in ((1, 0, 100, 4, 1), (2, 1, 100, 4, 1), (3, 2, 50, 2, 2)):
        lines.append(
            f"{jid} {submit} -1 {run} {procs} -1 -1 {procs} {run} -1 1 {user} 1 -1 1 -1 -1 -1"
        )
    trace.write_text("\n".join(lines) + "\n")

    p = cli_here(
        "simulate", str(trace), "-s", f"{EXAMPLE}:half_life=60", "--out", str(tmp_path / "o")
    )
    assert p.returncode == 0, p.stderr
    assert "fair-share:half_life=60" in p.stdout
    p = cli_here(
        "simulate", str(trace), "-s", f"{EXAMPLE}:half_life=-5", "--out", str(tmp_path / "x")
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [
        "error: option half_life must be a positive number, got -5"
    ]


clusters = st.builds(Cluster, st.integers(1, 8), st.integers(1, 2), st.integers(1, 2))


@given(w=workloads(), cluster=clusters, data=st.data(), half_life=st.sampled_from([1, 50, 1e9]))
def test_fair_share_schedules_are_valid(w, cluster, data, half_life):
    w = w.select(w.procs <= cluster.total_cores)
    users = data.draw(st.lists(st.integers(-1, 3), min_size=len(w), max_size=len(w)))
    w = Workload({**w.columns, "user": np.asarray(users, dtype=np.int64)})
    r = simulate(w, cluster, fair_share(half_life=half_life))
    assert len(r.jobs) == len(w) and r.jobs.start.notna().all()
    assert r.validate() == []


@given(w=workloads(), cluster=clusters)
def test_with_one_user_fair_share_is_easy(w, cluster):
    # every job has the same usage: ties in queue order, so the schedule is EASY's
    w = w.select(w.procs <= cluster.total_cores)
    assert starts(simulate(w, cluster, fair_share())) == starts(simulate(w, cluster, "easy"))
