"""Run the authors' ensemble generator and allocation code on many random draws (golden data).

The authors' ``solver/generator.py`` (the random ensemble: analysis work ``random.uniform(2500,
7500)`` rounded to 3 decimals) and ``solver/scheduler.py`` (the scenarios and ``allocate``, which
writes the ``.conf`` files their WRENCH ``Controller`` runs and the model makespan) are taken
from their repository (Analytics4MD/insitu-ensemble-simulator) at commit 19649cf, the last
change to ``solver/`` before their published ``analysis/data_new.csv`` (2022-05-20). One
documented patch: their line computing the allocation bandwidth as B'3 (commented out in the
stored file, just below ``bandwidths[3]``) is enabled, because the published Fig. 4 runs are
only reproducible with the allocation at B'3 (docs/insitu.md). Their code is NOT copied here:
this script reads it from a clone (``git show``) and runs it with a Python that has their
dependencies (sympy, pyyaml, lxml), one process per configuration, ``random.seed(draw)`` per
draw (their runs were unseeded; the law is the same).

For every draw it stores the per-member works and, per scenario and heuristic pair, their
model makespan (the ``makespan:`` of the ``.conf``), their pool nodes and group nodes; then it
plans the SAME ensemble with ours (``make_plan``, default options) and stores our model
makespan and nodes beside theirs. Output: ``authors_allocation_draws.csv`` (works) and
``authors_allocation_runs.csv`` (theirs vs ours) beside this file. A configuration their
scheduler rejects ("Not sufficient resource ...") has no row.

``--summary K`` also writes ``authors_allocation_summary.csv``: for the worst configurations,
the CO/CO model makespan per scenario over K draws of their code, over K seeds of our generator
(seeds 1..K) and the published 5 trials (``model_B3`` of their ``data_new.csv``).

Run: .venv/bin/python tests/insitu/data/run_authors_allocation.py AUTHORS_GIT_DIR AUTHORS_PYTHON
     [--draws 10] [--configs S,A,V,N ...] [--summary 200]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "19649cf"
#: golden draws (S, A, V, N): the worst configurations of the comparison with the published
#: means, and 16 or 32 simulations / 16 analyses per simulation (their dict order differs there)
CONFIGS = [
    (4, 4, 4, 16),
    (4, 4, 1, 16),
    (4, 2, 4, 16),
    (4, 4, 4, 32),
    (4, 1, 4, 16),
    (2, 4, 4, 64),
    (4, 16, 4, 16),
    (16, 4, 4, 64),
    (32, 4, 4, 64),
]
#: the distribution study (their code on --summary draws, CO/CO): the worst configurations
SUMMARY_CONFIGS = [(4, 4, 4, 16), (4, 4, 1, 16), (4, 2, 4, 16), (4, 4, 4, 32), (4, 1, 4, 16)]
SCENARIOS = {
    "transit": "in-transit",
    "increasing0.25": "increasing-25",
    "increasing0.5": "increasing-50",
    "increasing0.75": "increasing-75",
    "decreasing0.25": "decreasing-25",
    "decreasing0.5": "decreasing-50",
    "decreasing0.75": "decreasing-75",
    "ideal": "ideal",
}
HEUR = {"model": "co", "even": "ev"}
B3_LINE = (
    "        # bandwidth = bandwidth_global * (time_s_sum + time_c_sum + time_nc_sum) "
    "/ (time_nc_sum * nodes * num_nc_anas) \n"
)

#: Runs under THEIR Python: for each draw, their config_generator with the configuration's
#: constants, then their scheduler's __main__ (all scenarios x 4 pairs), read the .conf files.
DRIVER = r"""
import json, random, re, runpy, sys, os, tempfile, contextlib, io, yaml
gen_src, sched_path, S, A, V, N, draws = sys.argv[1:8]
S, A, N, draws = int(S), int(A), int(N), int(draws)
V = float(V)
for name, val in (("num_nodes", N), ("num_simulations", S),
                  ("num_analyses_per_simulation", A), ("data_size", V)):
    gen_src = re.sub(rf"^{name} = .*$", f"{name} = {val!r}", gen_src, count=1, flags=re.M)
out = []
for d in range(1, draws + 1):
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        random.seed(d)
        g = {"__name__": "authors_generator"}
        sys.argv = ["generator.py", "config.yml", "platform.xml"]
        exec(compile(gen_src, "generator.py", "exec"), g)
        g["config_generator"]("config.yml")
        sys.argv = ["scheduler.py", "config.yml"]
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(sched_path, run_name="__main__")
        cfg = yaml.safe_load(open("config.yml"))
        works = {f"{s}.{a}": v["flop"] for s, sv in cfg["simulations"].items()
                 for a, v in sv["coupling"].items()}
        runs = {}
        sims = sorted(cfg["simulations"], key=lambda x: int(x[3:]))
        for f in os.listdir("."):
            if f.endswith(".conf"):
                c = yaml.safe_load(open(f))
                al = c["allocations"]
                runs[f[:-5]] = {"makespan": c["makespan"],
                                "pool": al.get("sim0", {}).get("node", 0),
                                "groups": [al[s]["node"] for s in sims]}
        os.chdir("/")
    out.append({"draw": d, "works": works, "runs": runs})
print(json.dumps(out))
"""


def authors_code(git_dir: str) -> tuple[str, str]:
    """Their generator source and scheduler source at COMMIT (the B'3 line enabled)."""

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    sched = show("solver/scheduler.py")
    if sched.count(B3_LINE) != 1:
        raise SystemExit("the B'3 line of their scheduler.py was not found")
    sched = sched.replace(B3_LINE, B3_LINE.replace("# bandwidth", "bandwidth"))
    return show("solver/generator.py"), sched


def run_theirs(gen_src: str, sched: str, python: str, conf: tuple, draws: int) -> list[dict]:
    """Their generator and scheduler on ``draws`` draws of one configuration (their Python)."""
    with tempfile.TemporaryDirectory() as tmp:
        sched_path = Path(tmp) / "scheduler.py"
        sched_path.write_text(sched)
        res = subprocess.run(
            [python, "-c", DRIVER, gen_src, str(sched_path), *map(str, conf), str(draws)],
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(res.stdout)


def summary(gen_src: str, sched: str, python: str, draws: int) -> None:
    """CO/CO model makespans: their code on ``draws`` draws, ours on seeds 1..draws, the
    published trials; one row per configuration and scenario."""
    import numpy as np

    from coschedlab.insitu.authors import authors_runs
    from coschedlab.insitu.plan import make_plan
    from coschedlab.insitu.spec import generate_ensemble

    pub = authors_runs("fig4")
    pub = pub[(pub.node == "co") & (pub.core == "co")]
    rows = []
    for conf in SUMMARY_CONFIGS:
        theirs: dict[str, list[float]] = {}
        for d in run_theirs(gen_src, sched, python, conf, draws):
            for name, r in d["runs"].items():
                if name.endswith("_model_model"):
                    theirs.setdefault(SCENARIOS[name.split("_")[0]], []).append(r["makespan"])
        mine: dict[str, list[float]] = {}
        for seed in range(1, draws + 1):
            ens = generate_ensemble(*conf[:2], float(conf[2]), conf[3], seed=seed)
            for sc in theirs:
                mine.setdefault(sc, []).append(make_plan(ens, sc, "co", "co").model_makespan)
        s, a, v, n = conf
        for sc in sorted(theirs):
            key = pub[["S", "A", "V", "N", "scenario"]].apply(tuple, axis=1)
            p = pub[key == (s, a, v, n, sc)].model_B3.to_numpy()
            t, o = np.array(theirs[sc]), np.array(mine[sc])
            rows.append(
                [*conf, sc, len(t), t.mean(), t.std(ddof=1), *np.percentile(t, [10, 50, 90])]
                + [len(o), o.mean(), o.std(ddof=1), len(p), p.mean(), p.min(), p.max()]
            )
        print(f"{conf}: summary of {draws} draws", flush=True)
    head = ["S", "A", "V", "N", "scenario", "authors_code_n", "authors_code_mean"]
    head += ["authors_code_sd", "authors_code_p10", "authors_code_p50", "authors_code_p90"]
    head += ["ours_n", "ours_mean", "ours_sd", "published_n", "published_mean"]
    head += ["published_min", "published_max"]
    with open(HERE / "authors_allocation_summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows([[f"{x:.4f}" if isinstance(x, float) else x for x in r] for r in rows])


def ours(conf: tuple[int, int, int, int], works: dict[str, float], scenario: str, pair: tuple):
    """Our plan of the authors' ensemble: (model makespan, pool nodes, group nodes)."""
    from coschedlab.insitu.authors import ensemble_of_draw
    from coschedlab.insitu.plan import make_plan

    s = conf[0]
    plan = make_plan(ensemble_of_draw(conf, works), scenario, *pair)
    blocks = {b.name: b.nodes for b in plan.allocation.blocks}
    return plan.model_makespan, blocks.get("pool", 0), [blocks[f"S{i}"] for i in range(1, s + 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir", help="a clone of Analytics4MD/insitu-ensemble-simulator")
    ap.add_argument("python", help="a Python with sympy, pyyaml and lxml")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--configs", nargs="*", default=None, help="S,A,V,N")
    ap.add_argument("--summary", type=int, default=0, help="draws of the distribution study")
    opts = ap.parse_args()
    confs = CONFIGS
    if opts.configs:
        confs = [tuple(int(x) for x in c.split(",")) for c in opts.configs]
    gen_src, sched = authors_code(opts.git_dir)
    if opts.summary:
        summary(gen_src, sched, opts.python, opts.summary)
    works_rows, run_rows = [], []
    for conf in confs:
        for d in run_theirs(gen_src, sched, opts.python, conf, opts.draws):
            for member, w in d["works"].items():
                works_rows.append([*conf, d["draw"], member, w])
            for name, r in sorted(d["runs"].items()):
                sc, node, core = name.split("_")
                pair = (HEUR[node], HEUR[core])
                m, pool, groups = ours(conf, d["works"], SCENARIOS[sc], pair)
                run_rows.append(
                    [*conf, d["draw"], SCENARIOS[sc], *pair, f"{r['makespan']:.6f}"]
                    + [r["pool"], " ".join(map(str, r["groups"]))]
                    + [f"{m:.6f}", pool, " ".join(map(str, groups))]
                )
        print(f"{conf}: {opts.draws} draws", flush=True)
    head = ["S", "A", "V", "N", "draw"]
    with open(HERE / "authors_allocation_draws.csv", "w", newline="") as f:
        csv.writer(f).writerows([head + ["member", "work"], *works_rows])
    with open(HERE / "authors_allocation_runs.csv", "w", newline="") as f:
        cols = ["scenario", "node", "core", "authors_model", "authors_pool", "authors_groups"]
        csv.writer(f).writerows([head + cols + ["ours_model", "ours_pool", "ours_groups"]])
        csv.writer(f).writerows(run_rows)


if __name__ == "__main__":
    main()
