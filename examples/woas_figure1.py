"""The WoAS paper's Figure 1 story, in a few lines of the Python API.

CyberShake (120 cores for 3.2 h, then 720 cores for an hour, then two small tasks) is
submitted to a busy 800-core machine: a 680-core job runs, a 700-core job waits. As chained
jobs, its second task becomes eligible with no age and waits behind the 700-core job; as a
pilot job it waits for 721 free cores and then holds them for the whole workflow; as a WoAS
job its tasks inherit the workflow's age and pilot geometry: no gap, no waste.

Run: .venv/bin/python examples/woas_figure1.py
"""

import numpy as np

from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.workflows import MODES, WorkflowWorkload, builtin, simulate_mode

# two regular jobs: (id, submit, run, time limit, cores)
rows = np.array([(1, 0, 11000, 11040, 680), (2, 100, 4000, 4020, 700)], dtype=float)
regular = Workload({"id": rows[:, 0].astype(int), "submit": rows[:, 1], "run": rows[:, 2],
                    "requested_time": rows[:, 3], "procs": rows[:, 4].astype(int)})  # fmt: skip
cybershake = builtin("cybershake")
ww = WorkflowWorkload(
    regular, [cybershake], submits=[(1.0, 0)], cluster=Cluster.from_cores(800, 1),
    window=(0.0, 1e6),
)  # fmt: skip

print(f"CyberShake: critical path {cybershake.critical_path / 3600:.2f} h, "
      f"pilot {cybershake.max_cores} cores, potential waste "
      f"{cybershake.potential_waste / 3600:,.0f} core-h")  # fmt: skip
print(f"{'mode':<8} {'wait h':>7} {'runtime h':>9} {'gaps h':>7} {'turnaround h':>12} "
      f"{'waste core-h':>12}")  # fmt: skip
for mode in MODES:
    run = simulate_mode(ww, mode)
    w = run.workflows.iloc[0]
    waste = run.summary()["waste_core_h"]
    print(f"{mode:<8} {w['wait'] / 3600:>7.2f} {w['runtime'] / 3600:>9.2f} "
          f"{w['gaps'] / 3600:>7.2f} {w['turnaround'] / 3600:>12.2f} {waste:>12,.0f}")  # fmt: skip
    assert run.result.validate() == []
