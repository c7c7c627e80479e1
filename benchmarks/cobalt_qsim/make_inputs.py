"""Inputs for Cobalt's Qsim and for our CoupledSimulation, from one seed (see README.md).

Writes into OUT/: ``bg.log`` and ``cluster.log`` (Cobalt's PBS-style trace format, one ``Q``
line per job with every field Qsim's ``parse_work_load`` reads), ``partitions.xml`` (a Blue
Gene of ``--midplanes`` 512-node partitions, no larger blocks), ``hostfile`` (the cluster's
node names), ``cobalt.conf`` and ``jobs.csv`` (the same jobs for our side: system, id, submit,
run, requested time in seconds, nodes). Times are UTC seconds; Qsim is run with TZ=UTC.

Every Blue Gene job asks for one midplane (512 nodes), so Cobalt's partition allocator reduces
to "a free midplane" and its WFP size term is the same for all jobs; our side models the Blue
Gene as ``--midplanes`` one-node units. Every cluster job asks for ``--cluster-job-nodes``
nodes and the same requested time, so Cobalt's cluster score, which *accumulates* WFP over the
cluster's events (cqsim.py compute_utility_scores, ``job.score += score``), orders the queue as
a fresh WFP (ours) does: by submission.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

BASE = 1230940800  # 2009-01-03 00:00:00 UTC
MIDPLANE = 512


def fmt_date(sec: float) -> str:
    """Cobalt's trace date format (``%m/%d/%Y %H:%M:%S``), UTC."""
    return time.strftime("%m/%d/%Y %H:%M:%S", time.gmtime(sec))


def fmt_wall(minutes: int) -> str:
    """Cobalt's walltime format (``HH:MM:SS``)."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def jobs(
    rng: random.Random, n: int, first_id: int, gap: float, walls: list[int], nodes: list[int]
) -> list[dict]:
    """``n`` jobs: exponential gaps (whole seconds, distinct), runs of 20-100% of the
    requested time (whole seconds), requested minutes from ``walls``, nodes from ``nodes``."""
    out = []
    t = BASE + 60
    for i in range(n):
        t += max(1, int(rng.expovariate(1.0 / gap)))
        wall = rng.choice(walls)
        run = max(60, int(wall * 60 * rng.uniform(0.2, 1.0)))
        out.append(
            {"id": first_id + i, "submit": t, "run": run, "wall": wall, "nodes": rng.choice(nodes)}
        )
    return out


def trace(rows: list[dict]) -> str:
    """A Cobalt trace: ``date;Q;id;key=value ...``; start/end give the run time."""
    lines = []
    for r in rows:
        lines.append(
            f"{fmt_date(r['submit'])};Q;{r['id']};queue=default "
            f"Resource_List.nodect={r['nodes']} Resource_List.walltime={fmt_wall(r['wall'])} "
            f"start={r['submit'] + 10} end={r['submit'] + 10 + r['run']}"
        )
    return "\n".join(lines) + "\n"


def partitions(midplanes: int) -> str:
    """A Blue Gene partition file of ``midplanes`` 512-node partitions (16 node cards each,
    own switches: no wiring conflicts)."""
    parts = []
    for m in range(midplanes):
        rack, half = divmod(m, 2)
        name = f"ANL-R{rack:02d}-M{half}-512"
        cards = "".join(
            f"      <NodeCard id='R{rack:02d}-M{half}-N{c:02d}' />\n" for c in range(16)
        )
        switches = "".join(f"      <Switch id='{axis}_R{rack:02d}-M{half}' />\n" for axis in "XYZ")
        parts.append(f"   <Partition name='{name}'>\n{cards}{switches}   </Partition>\n")
    return "<BG>\n<PartitionList>\n" + "".join(parts) + "</PartitionList>\n</BG>\n"


CONF = """[bgsched]
utility_file = {out}/no-utility-file
[cqm]
log_dir = {out}/qsim-logs
[histm]
[cluster_system]
hostfile = {out}/hostfile
[bgsystem]
bgtype = bgp
[logger]
to_console = false
to_syslog = false
"""


def main() -> None:
    """Write the inputs (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bg-jobs", type=int, default=120)
    ap.add_argument("--cluster-jobs", type=int, default=100)
    ap.add_argument("--midplanes", type=int, default=8)
    ap.add_argument("--cluster-nodes", type=int, default=23)
    ap.add_argument("--cluster-job-nodes", type=int, default=4)
    ap.add_argument("--bg-gap", type=float, default=900.0, help="mean seconds between jobs")
    ap.add_argument("--cluster-gap", type=float, default=1000.0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bg = jobs(rng, a.bg_jobs, 1, a.bg_gap, [60, 90, 120, 180, 240, 360], [MIDPLANE])
    cl = jobs(rng, a.cluster_jobs, 5001, a.cluster_gap, [90], [a.cluster_job_nodes])
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "bg.log").write_text(trace(bg))
    (a.out / "cluster.log").write_text(trace(cl))
    (a.out / "partitions.xml").write_text(partitions(a.midplanes))
    (a.out / "hostfile").write_text("".join(f"eu{i:03d}\n" for i in range(a.cluster_nodes)))
    (a.out / "cobalt.conf").write_text(CONF.format(out=a.out.resolve()))
    with open(a.out / "jobs.csv", "w") as f:
        f.write("system,id,submit,run,requested,nodes\n")
        for system, rows in (("bg", bg), ("cluster", cl)):
            for r in rows:
                f.write(
                    f"{system},{r['id']},{r['submit']},{r['run']},{r['wall'] * 60},{r['nodes']}\n"
                )


if __name__ == "__main__":
    main()
