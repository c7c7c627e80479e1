"""Replay a real trace under three schedulers and compare them (the Python API).

python examples/simulate_a_trace.py [TRACE.swf.gz]
"""

import sys

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
print(workload.summary(), "on", cluster)
for scheduler in ("fcfs", "easy", "conservative"):
    result = coschedlab.simulate(workload, cluster, scheduler)
    m = result.metrics
    assert result.validate() == []
    print(
        f"{scheduler:>13}: mean wait {m['wait_mean'] / 3600:7.2f} h, "
        f"mean bounded slowdown {m['bounded_slowdown_mean']:8.2f}, "
        f"utilization {100 * m['utilization']:.1f}%, simulated in {result.wall_time:.2f} s"
    )
