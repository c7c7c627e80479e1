"""Two coupled machines whose paired jobs must start together (Tang et al. 2011).

1. The paper's Fig. 2: hold-hold without release deadlocks (detected, the held jobs named);
   with a release every 1200 s it resolves.
2. One month of ALCF Theta (4,360 nodes) coupled with a 100-node cluster (KTH-SP2 shapes),
   every 10th job paired, under the four scheme combinations.

Run: .venv/bin/python examples/coupled_two_systems.py
"""

import textwrap

from coschedlab.coupled import CoupledDeadlock, CoupledSimulation, Pairs, System, pair_every
from coschedlab.coupled.result import CoupledResult
from coschedlab.coupled.workloads import KTH, THETA, cluster_of, month_of, twin_workload
from coschedlab.jobs import Workload
from coschedlab.workload.swf import read_swf


def jobs(*rows):
    """(id, submit, run, nodes) rows; requested time = run."""
    return Workload.from_records(
        [{"id": i, "submit": s, "run": r, "requested_time": r, "procs": n} for i, s, r, n in rows]
    )


# 1. Fig. 2: a1 holds 6 of A's 10 nodes for b1; b2 holds 6 of B's 10 nodes for a2
pairs = Pairs()
pairs.add((0, 1), (1, 1))  # (system, job id) pairs: a1 - b1
pairs.add((0, 2), (1, 2))  # a2 - b2
for release in (None, 1200):
    systems = [
        System("A", jobs((1, 0, 100, 6), (2, 1, 100, 6)), cluster_of(10), release=release),
        System("B", jobs((2, 0, 100, 6), (1, 1, 100, 6)), cluster_of(10), release=release),
    ]
    try:
        run = CoupledSimulation(systems, pairs).run()
    except CoupledDeadlock as exc:
        print(textwrap.fill(f"release {release}: {exc}", 80))
        continue
    for system, sim in zip(systems, run.sims, strict=True):
        starts = sorted(zip(sim.ids, sim.start, strict=True))
        print(
            f"release {release}: {system.name} starts",
            ", ".join(f"job {i} at {t:g} s" for i, t in starts),
        )

# 2. a month of Theta + a 100-node cluster, 10% paired
theta = month_of(THETA, 2022, 1)
cluster = twin_workload(theta, read_swf(KTH), 100, 0.5, 31 * 86400.0, seed=0)
pairs = pair_every(theta, cluster, 10)
print(f"\n{len(pairs)} pairs; per system: wait min / sync min / SU loss %")
for combo in ("HH", "HY", "YH", "YY"):
    systems = [
        System("theta", theta, cluster_of(4360), scheme="hold" if combo[0] == "H" else "yield"),
        System("cluster", cluster, cluster_of(100), scheme="hold" if combo[1] == "H" else "yield"),
    ]
    result = CoupledResult.from_simulation(CoupledSimulation(systems, pairs).run())
    assert result.validate() == []
    cells = [
        f"{name} {m['wait_mean'] / 60:5.0f} {m['sync_mean'] / 60:5.0f} "
        f"{100 * m['su_loss_share']:5.2f}"
        for name, m in result.metrics().items()
    ]
    print(combo, " | ".join(cells))
