"""Replay a real trace under three schedulers and compare them (the Python API).

python examples/simulate_a_trace.py [TRACE.swf.gz]
"""

import sys
import textwrap

import coschedlab
from coschedlab.workload.swf import cluster_from_header, read_swf

path = (
    sys.argv[1]
    if len(sys.argv) > 1
    else "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"  # bundled data, by its name
)
workload = read_swf(path)
cluster = cluster_from_header(workload.header)
workload = workload.drop_oversized(cluster.total_cores)
print(textwrap.fill(f"{workload.summary()} on {cluster}", 80))  # fits 80 columns
print(f"{'scheduler':>12}  {'mean wait h':>11}  {'mean bsld':>9}  {'util %':>6}  {'sim s':>5}")
for scheduler in ("fcfs", "easy", "conservative"):
    result = coschedlab.simulate(workload, cluster, scheduler)
    m = result.metrics
    assert result.validate() == []
    print(
        f"{scheduler:>12}  {m['wait_mean'] / 3600:11.2f}  {m['bounded_slowdown_mean']:9.2f}  "
        f"{100 * m['utilization']:6.1f}  {result.wall_time:5.2f}"
    )
