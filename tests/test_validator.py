"""The validator finds each kind of broken schedule (and accepts the real ones)."""

from __future__ import annotations

from conftest import workload

from coschedlab import Cluster, simulate, validate_jobs


def micro(spec="easy"):
    w = workload((1, 10, 100, 100, 3), (2, 11, 100, 100, 4), (3, 12, 1000, 1000, 1))
    return simulate(w, Cluster(4), spec)


def test_real_schedules_are_valid():
    for spec in ("fcfs", "easy", "conservative"):
        assert micro(spec).validate() == []


def test_a_delayed_easy_head_is_caught():
    r = micro()
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [150.0, 250.0]
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [250.0, 1250.0]
    errors = validate_jobs(jobs, r.cluster, scheduler="easy")
    assert any("EASY delayed head job 2" in e and "shadow time 110" in e for e in errors)
    # the same table is fine for FCFS, which makes no promise
    assert validate_jobs(jobs, r.cluster, scheduler="fcfs") == []


def test_over_allocation_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [50.0, 150.0]  # overlaps job 1's nodes
    errors = validate_jobs(jobs, r.cluster)
    assert any("nodes in use" in e for e in errors)


def test_wrong_node_count_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 1, "alloc"] = "0-1"
    errors = validate_jobs(jobs, r.cluster)
    assert any("holds 2 nodes" in e for e in errors)


def test_unfinished_job_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 3, "end"] = float("nan")
    assert any("never started or never ended" in e for e in validate_jobs(jobs, r.cluster))
