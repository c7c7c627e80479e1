"""Run the authors' WRENCH simulator beside ours on the same plans (golden data for the tests).

The authors' simulator (Analytics4MD/insitu-ensemble-simulator, WRENCH 2.1 on SimGrid 3.32) is
built OUTSIDE this repository; this script only writes its inputs (the YAML configuration their
``Controller.cpp`` reads and the platform their ``solver/generator.py`` writes), runs the binary
and records its makespan with ours in ``authors_simulator_runs.csv`` beside this file:
``ours_activities`` (the default engine, compiled, with their job manager's messages),
``ours_ptask``, and ``ours_activities_comms`` (tests/insitu/activities_oracle.py: the Python
engine the compiled one replaced, its messages as literal SimGrid comms).

Run: .venv/bin/python tests/insitu/data/run_authors_simulator.py BINARY [--steps 10]
     .venv/bin/python tests/insitu/data/run_authors_simulator.py --ours-only
     (recomputes our columns, keeps the recorded authors_wrench)
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.simulate import simulate
from coschedlab.insitu.spec import generate_ensemble

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from activities_oracle import run_in_child  # noqa: E402

OUT = HERE / "authors_simulator_runs.csv"
#: (S, A/sim, V, N, scenario, node heuristic, core heuristic): the worst points of the
#: comparison with the published means and a few other heuristic pairs
CASES = [
    (2, 4, 4, 64, "decreasing-50", "co", "co"),
    (2, 4, 4, 64, "increasing-50", "co", "co"),
    (4, 4, 4, 16, "increasing-50", "co", "co"),
    (4, 4, 4, 16, "decreasing-25", "co", "co"),
    (4, 4, 1, 16, "increasing-25", "co", "co"),
    (4, 4, 4, 8, "increasing-25", "co", "co"),
    (4, 4, 4, 16, "decreasing-25", "ev", "ev"),
    (4, 2, 4, 16, "decreasing-25", "co", "co"),
    (1, 4, 4, 64, "in-transit", "co", "co"),
    (4, 8, 4, 16, "decreasing-25", "co", "co"),
    (4, 4, 2, 16, "increasing-50", "co", "co"),
    (4, 4, 4, 16, "increasing-25", "ev", "co"),
    (4, 4, 4, 16, "increasing-50", "co", "ev"),
]
#: (..., seed, steps): a pool analysis on 4 nodes whose reads drift apart in their simulator
#: (their job manager's messages; 30 and 100 steps show the staggered regime)
EXTRA_CASES = [
    (4, 1, 4, 16, "decreasing-25", "ev", "co", 0, 10),
    (4, 1, 4, 16, "decreasing-25", "ev", "co", 0, 30),
    (4, 1, 4, 16, "decreasing-25", "ev", "co", 0, 100),
    (4, 1, 4, 16, "decreasing-25", "co", "co", 0, 30),
    (4, 1, 4, 16, "increasing-75", "co", "co", 0, 10),
    (4, 1, 4, 16, "increasing-75", "co", "co", 1, 10),
    (4, 1, 4, 16, "increasing-75", "ev", "co", 0, 10),
    (4, 1, 4, 16, "increasing-75", "ev", "co", 1, 10),
    (4, 4, 4, 16, "decreasing-25", "ev", "co", 1, 30),
]


def platform_xml(nodes: int, cores: int, speed: float, bandwidth: float) -> str:
    """The platform the authors' generator writes: UserHost, ComputeHost1..N with a 100 GB/s
    disk, one shared link of B between any two hosts, one 1000 GB/s loopback link."""
    hosts = "".join(
        f'<host id="ComputeHost{i}" speed="{speed}Gf" core="{cores}">'
        '<disk id="local_disk" read_bw="100GBps" write_bw="100GBps">'
        '<prop id="size" value="50000GiB"/><prop id="mount" value="/"/></disk>'
        '<prop id="ram" value="128GB"/></host>\n'
        for i in range(1, nodes + 1)
    )
    routes = [
        f'<route src="UserHost" dst="ComputeHost{i}"><link_ctn id="shared_network"/></route>'
        for i in range(1, nodes + 1)
    ]
    for i in range(1, nodes + 1):
        routes.append(
            f'<route src="ComputeHost{i}" dst="ComputeHost{i}"><link_ctn id="loopback_network"/>'
            "</route>"
        )
        routes += [
            f'<route src="ComputeHost{i}" dst="ComputeHost{j}"><link_ctn id="shared_network"/>'
            "</route>"
            for j in range(i + 1, nodes + 1)
        ]
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
        '<platform version="4.1"><zone id="AS0" routing="Full">\n'
        f'<host id="UserHost" speed="{speed}Gf" core="1"/>\n{hosts}'
        f'<link id="shared_network" bandwidth="{bandwidth}GBps" latency="0us"/>\n'
        '<link id="loopback_network" bandwidth="1000GBps" latency="0us"/>\n'
        + "\n".join(routes)
        + "\n</zone></platform>\n"
    )


def authors_config(plan) -> dict:
    """The YAML configuration the authors' Controller reads for one of our plans."""
    ens = plan.ensemble
    alloc, start = {}, 0
    for b in plan.allocation.blocks:
        alloc[b.name] = {"start": start, "end": start + int(b.nodes) - 1}
        start += int(b.nodes)
    place = plan.allocation.placement()
    sims = {}
    for s in ens.simulations:
        sims[s.name] = {
            "alloc": place[s.name][0],
            "data": s.data,
            "flop": s.work,
            "core_per_node": int(place[s.name][2]),
            "coupling": {
                a.name: {
                    "alloc": place[a.name][0],
                    "flop": a.work,
                    "core_per_node": int(place[a.name][2]),
                }
                for a in ens.coupled(s.name)
            },
        }
    return {
        "nodes": ens.platform.nodes,
        "steps": ens.n_steps,
        "allocations": alloc,
        "simulations": sims,
    }


def run_authors(binary: str, plan) -> float:
    """The authors' simulated makespan of ``plan`` (their 'End time of the simulation')."""
    p = plan.ensemble.platform
    with tempfile.TemporaryDirectory() as tmp:
        cfg, plat = Path(tmp, "config.yml"), Path(tmp, "platform.xml")
        cfg.write_text(yaml.safe_dump(authors_config(plan)))
        plat.write_text(platform_xml(p.nodes, p.cores, p.core_speed, p.bandwidth))
        res = subprocess.run(
            [binary, str(cfg), str(plat), "--wrench-mailbox-pool-size=50000"],
            capture_output=True,
            text=True,
            check=True,
        )
    ends = re.findall(r"End time of the simulation: ([0-9.]+)", res.stderr)
    # their last completed job is not necessarily the last to end: take the latest end date
    last = max(float(line.rsplit(",", 1)[1]) for line in res.stdout.splitlines() if "," in line)
    return max([last] + [float(x) for x in ends])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ours-only", action="store_true")
    opts = ap.parse_args()
    if not opts.ours_only and not opts.binary:
        ap.error("give the authors' binary, or --ours-only")
    recorded = {}
    if opts.ours_only:
        with OUT.open() as f:
            for r in csv.DictReader(f):
                key = (*(int(r[k]) for k in "SAVN"), r["scenario"], r["node"], r["core"])
                recorded[(*key, int(r["seed"]), int(r["steps"]))] = float(r["authors_wrench"])
    rows = []
    cases = [(*c, opts.seed, opts.steps) for c in CASES] + EXTRA_CASES
    for s, a, v, n, scenario, node, core, seed, steps in cases:
        ens = generate_ensemble(s, a, float(v), n, seed=seed, steps=steps)
        plan = make_plan(ens, scenario, node, core)
        key = (s, a, v, n, scenario, node, core, seed, steps)
        theirs = recorded[key] if opts.ours_only else run_authors(opts.binary, plan)
        ours = {e: simulate(plan, "paper", e).makespan for e in ("ptask", "activities")}
        ours["comms"] = run_in_child(plan).makespan
        rows.append(
            {
                "S": s,
                "A": a,
                "V": v,
                "N": n,
                "scenario": scenario,
                "node": node,
                "core": core,
                "seed": seed,
                "steps": steps,
                "authors_wrench": round(theirs, 4),
                "ours_ptask": round(ours["ptask"], 4),
                "ours_activities": round(ours["activities"], 4),
                "ours_activities_comms": round(ours["comms"], 4),
            }
        )
        print(rows[-1], flush=True)
    with OUT.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
