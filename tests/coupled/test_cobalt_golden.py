"""Our coupled schedule against Cobalt's Qsim (the authors' simulator), job by job.

The golden files in tests/coupled/data/cobalt/ come from Qsim itself (Cobalt commit 20bbed61,
the paper's revision, run under Python 2.7 by benchmarks/cobalt_qsim/; README.md there): a
Blue Gene of 8 midplanes (120 one-midplane jobs) coupled with a 23-node cluster (100 four-node
jobs of the same requested time), every 4th job of each paired by submission order (Qsim's
``-r 0.25``), each combination of hold and yield. We run the same jobs with Cobalt's settings:
firstfit in WFP order on both machines (one midplane is one node of ours), ``mate_attempt=
"yielded"``, hold cap 0.6, release every 1200 s (+1 s on the cluster) of holds older than 600 s.

What must agree, and does: the pairs (our ``pair_every`` is Qsim's ratio pairing), every pair
starting together, and the whole schedule, holds that end in a start included, up to Qsim's
first release or yield. After it the schedules part where the simulators' rules differ
(benchmarks/cobalt_qsim/cobalt_rules.md): Qsim's scheduler does not offer a job again for
60 s after it was handed to run_jobs (a yield included; bgsched.py), its cluster score
accumulates over events and a release resets it to 0 for good (cqsim.py), its release ticks
stop at the last submission (evsim.py), its simultaneous events run one pass each, and its
partition choice varies with object addresses. The stated tolerance for the rest: at least
``MIN_AGREE`` of all jobs start at the same second as in Qsim (measured 72-94%)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from coschedlab.coupled import CoupledSimulation, Pairs, System, pair_every
from coschedlab.coupled.result import CoupledResult
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers import get_scheduler

DATA = Path(__file__).parent / "data" / "cobalt"
SYSTEMS = ("bg", "cluster")
COMBOS = [("hold", "hold"), ("hold", "yield"), ("yield", "hold"), ("yield", "yield")]
#: share of all jobs that must start at Qsim's second, per (bg, cluster) scheme
MIN_AGREE = {
    ("hold", "hold"): 0.70,
    ("hold", "yield"): 0.60,
    ("yield", "hold"): 0.75,
    ("yield", "yield"): 0.65,
}


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f))


def _workloads() -> dict[str, Workload]:
    out = {}
    for system, unit in (("bg", 512), ("cluster", 1)):  # a midplane is one of our nodes
        out[system] = Workload.from_records(
            [
                {
                    "id": int(r["id"]),
                    "submit": float(r["submit"]),
                    "run": float(r["run"]),
                    "requested_time": float(r["requested"]),
                    "procs": int(r["nodes"]) // unit,
                }
                for r in _rows("jobs.csv")
                if r["system"] == system
            ]
        )
    return out


def _qsim_pairs() -> Pairs:
    p = Pairs()
    for r in _rows("mates.csv"):
        p.add((0, int(r["bg"])), (1, int(r["cluster"])))
    return p


def _qsim(bg: str, cl: str) -> dict[str, dict[str, dict[int, float]]]:
    """event -> system -> job -> time (S: start, H: first hold) from Qsim's log."""
    out: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in _rows(f"qsim_{bg}_{cl}.csv"):
        out[r["event"]][r["system"]].setdefault(int(r["job_id"]), float(r["time"]))
    return out


def _ours(bg: str, cl: str) -> tuple[CoupledSimulation, CoupledResult]:
    w = _workloads()
    (machines,) = _rows("machines.csv")
    sizes = {"bg": int(machines["midplanes"]), "cluster": int(machines["cluster_nodes"])}
    systems = [
        System(
            name,
            w[name],
            Cluster(nodes=sizes[name], sockets_per_node=1, cores_per_socket=1),
            get_scheduler("firstfit:order=wfp"),
            scheme=scheme,
            hold_cap=0.6,
            release=1200.0,
            release_age=600.0,
        )
        for name, scheme in zip(SYSTEMS, (bg, cl), strict=True)
    ]
    c = CoupledSimulation(systems, _qsim_pairs(), mate_attempt="yielded").run()
    return c, CoupledResult.from_simulation(c)


def _starts(r: CoupledResult, s: int) -> dict[int, float]:
    j = r.results[s].jobs
    return dict(zip(j["job_id"].tolist(), j["start"].tolist(), strict=True))


def test_pairs_are_qsims_ratio_pairing() -> None:
    """Qsim's ``init_mate_job_dict_by_ratio(0.25)`` is our ``pair_every(k=4)``."""
    w = _workloads()
    assert pair_every(w["bg"], w["cluster"], 4).table() == _qsim_pairs().table()


@pytest.mark.parametrize(("bg", "cl"), COMBOS)
def test_qsim_golden_pairs_start_together(bg: str, cl: str) -> None:
    """The golden files themselves: every Qsim pair started at one instant, every job ran."""
    q = _qsim(bg, cl)
    assert len(q["S"]["bg"]) == 120 and len(q["S"]["cluster"]) == 100
    for r in _rows("mates.csv"):
        assert q["S"]["bg"][int(r["bg"])] == q["S"]["cluster"][int(r["cluster"])]


@pytest.mark.parametrize(("bg", "cl"), COMBOS)
def test_schedule_agrees_with_qsim(bg: str, cl: str) -> None:
    """Job by job: identical up to Qsim's first release or yield (holds that end in a start
    included), then within the tolerance."""
    q = _qsim(bg, cl)
    c, r = _ours(bg, cl)
    assert r.validate() == []
    ours = {name: _starts(r, s) for s, name in enumerate(SYSTEMS)}
    # where the documented differences can first act: Qsim's first release (U) or first
    # yield (a paired job that never held but waited: overhead = start - first yield)
    rows = _rows(f"qsim_{bg}_{cl}.csv")
    first_wait = min(
        [t for name in SYSTEMS for t in q["U"][name].values()]
        + [
            q["S"][row["system"]][int(row["job_id"])] - float(row["overhead"])
            for row in rows
            if row["event"] == "E"
            and float(row["overhead"]) > 0
            and int(row["job_id"]) not in q["H"][row["system"]]
        ]
    )
    before = [(name, jid) for name in SYSTEMS for jid, t in q["S"][name].items() if t < first_wait]
    if "yield" not in (bg, cl):
        # with a yield scheme a job yields at the first pass (its mate not yet submitted) and
        # Qsim's 60-s rule acts at once: no prefix is free of it
        assert len(before) >= 8  # the prefix is not empty
    for name, jid in before:
        assert ours[name][jid] == pytest.approx(q["S"][name][jid], abs=1.0), (name, jid)
    same = sum(
        abs(ours[name][jid] - t) <= 1.0 for name in SYSTEMS for jid, t in q["S"][name].items()
    )
    total = sum(len(q["S"][name]) for name in SYSTEMS)
    assert same / total >= MIN_AGREE[(bg, cl)], f"{same}/{total} starts agree"
    # pairs start together in ours too, and hold only where the scheme allows
    for s1, j1, s2, j2 in c.pairs.table():
        assert ours[SYSTEMS[s1]][j1] == ours[SYSTEMS[s2]][j2]
    # the jobs that held at least once: ours are (nearly all) Qsim's
    q_held = {(name, jid) for name in SYSTEMS for jid in q["H"][name]}
    o_held = {(SYSTEMS[h.system], c.state[h.system].sim.ids[h.j]) for h in c.holds}
    assert len(q_held & o_held) >= 0.75 * len(q_held), (len(q_held & o_held), len(q_held))
    held = {SYSTEMS[h.system] for h in c.holds}
    assert held <= {
        name for name, scheme in zip(SYSTEMS, (bg, cl), strict=True) if scheme == "hold"
    }
