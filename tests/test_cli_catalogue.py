# ruff: noqa: E501  (the catalogue reads best one case per line)
"""The catalogue of bad inputs: every one fails with one line, the right exit code, no
traceback, and loses nothing (an earlier result stays byte-identical).

Each case runs the real command line in this process (``coschedlab.cli.main``), in a
workspace holding a small trace, an earlier result, a pool, specs and damaged files. Grow the
catalogue with every bad input found: add a row to ``CASES``.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from coschedlab.cli.main import main
from coschedlab.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _cli import SMALL, cli_here  # noqa: E402
from experiments._experiments_data import write_pool, write_trace  # noqa: E402

POLICIES = {
    "exits.py": "sys.exit(0)",
    "raises.py": "return 1 / 0",
    "forever.py": "while True: pass",
    "sleeps.py": "time.sleep(3600)",
    "returns_number.py": "return 5",
    "returns_text.py": "return 'abc'",
    "returns_float.py": "return [0.0]",
    "returns_failing_generator.py": "return (1 // 0 for _ in view.queue)",
    "returns_none.py": "return [None]",
    # a hostile user's pass (audit15, 2026-11-28): odd exceptions, decisions and routes
    "raises_base.py": "raise type('Odd', (BaseException,), {})('odd')",
    "raises_generator_exit.py": "raise GeneratorExit",
    "raises_unprintable.py": "raise type('Mute', (Exception,), {'__str__': lambda e: 1 / 0})()",
    "starts_twice.py": "return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free] * 2",
    "writes_view_table.py": "view.req.obj[0] = 1.0",
    "reads_remaining.py": "return [view._remaining(0)]",
    "reduces_view.py": "return view.__reduce_ex__(2)[2]",
    # bound23 (2026-11-29): a policy's wake-ups, and what it does to the view's lists
    "wakes_tiny.py": "view.wake_at(view.now + 1e-9); return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]",
    "wakes_past.py": "view.wake_at(view.now - 1)",
    "wakes_nan.py": "view.wake_at(float('nan'))",
    "clears_running.py": "list.clear(view.est_sorted); return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]",
    "sorts_queue.py": "list.sort(view.queue, reverse=True); return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]",
    "fifo1.py": "return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]",
    "fifo2.py": "return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]",
}


def _policy(body: str) -> str:
    return textwrap.dedent(
        f"""\
        import sys, time
        from coschedlab.schedulers import Scheduler

        class P(Scheduler):
            name = "p"

            def schedule(self, view):
                {body}
        """
    )


def run_cli(args: list[str], cwd: Path, capsys) -> tuple[int, str, str]:
    """Run ``coschedlab ARGS`` in this process from ``cwd``: (exit code, stdout, stderr)."""
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["coschedlab", *args]
    os.chdir(cwd)
    try:
        with pytest.raises(SystemExit) as exit_:
            main()
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    out, err = capsys.readouterr()
    code = exit_.value.code
    return (code if isinstance(code, int) else 0), out, err


def digest(path: Path) -> str:
    """A hash of every file (names and bytes) under ``path``."""
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(path)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    """The workspace every case runs in."""
    d = tmp_path_factory.mktemp("catalogue")
    (d / "small.swf").write_text(SMALL)
    (d / "long_span.swf").write_text(  # a node idle for 9e9 s while a two-node job waits
        "; MaxNodes: 2\n; MaxProcs: 2\n1 0 -1 9000000000 1 -1 -1 1 9000000000 -1 1 1 1 1 1 1 -1 -1\n"
        "2 10 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1\n"
    )
    (d / "past_limit.swf").write_text(  # the same, the long job past its 100-s limit
        "; MaxNodes: 2\n; MaxProcs: 2\n1 0 -1 9000000000 1 -1 -1 1 100 -1 1 1 1 1 1 1 -1 -1\n"
        "2 10 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1\n"
    )
    write_trace(d / "trace.swf")
    write_pool(d / "pool.json")
    (d / "afile").write_text("not a directory\n")
    (d / "empty").mkdir()
    (d / "notours").mkdir()
    (d / "notours" / "notes.txt").write_text("my notes\n")
    (d / "mydocs" / "sub").mkdir(parents=True)  # a user's folder of .md/.csv/.json files
    (d / "mydocs" / "thesis.md").write_text("# thesis\n")
    (d / "mydocs" / "sub" / "measurements.csv").write_text("a,b\n")
    lines = SMALL.splitlines()
    (d / "huge_submit.swf").write_text(
        "\n".join([*lines[:3], lines[3].replace(" 10 ", " 1e30 ", 1), lines[4]]) + "\n"
    )
    (d / "huge_procs.swf").write_text(
        "\n".join([*lines[:3], "2 10 -1 60 2 -1 -1 1e20 100 -1 1 2 1 -1 -1 -1 -1 -1", lines[4]])
        + "\n"
    )
    (d / "huge_user.swf").write_text(  # a label beyond the 32-bit columns' range
        "\n".join([*lines[:3], "2 10 -1 60 2 -1 -1 2 100 -1 1 3000000000 1 -1 -1 -1 -1 -1",
                    lines[4]]) + "\n"
    )  # fmt: skip
    (d / "text_field.swf").write_text(SMALL.replace("3 20 -1 70", "3 20 -1 seventy"))
    (d / "binary.swf").write_bytes(b"\x00\xff\xfe garbage \x89PNG\r\n")
    import bz2  # traces packed otherwise than gzip: "has 1 field, SWF needs 18" before
    import lzma
    import zipfile

    (d / "trace.swf.bz2").write_bytes(bz2.compress(SMALL.encode()))
    (d / "trace.swf.xz").write_bytes(lzma.compress(SMALL.encode()))
    with zipfile.ZipFile(d / "trace.zip", "w") as z:
        z.writestr("trace.swf", SMALL)
    (d / "nul_field.swf").write_bytes(SMALL.replace(" 60 2 ", " 60\x00 2 ", 1).encode())
    (d / "overflow_run.swf").write_text(SMALL.replace("3 20 -1 70", "3 20 -1 1e309"))
    # a new user's pass (2026-11-28): what a newcomer writes into a trace or a spec
    job2 = "2 10 -1 60 2 -1 -1 2 100 -1 1 2 1 -1 -1 -1 -1 -1"
    for name, new_line in {
        "nu_short": "2 10 -1 60 2 -1",
        "nu_extra": job2 + " 99",
        "nu_hash": "# " + job2,
        "nu_commas": job2.replace(" ", ","),
        "nu_frac": job2.replace("60 2 -1", "60 2.5 -1"),
        "nu_negsub": job2.replace("2 10 -1", "2 -5 -1"),
        "nu_wide": job2.replace("-1 2 100", "-1 8 100"),
    }.items():
        (d / f"{name}.swf").write_text(SMALL.replace(job2, new_line))
    (d / "nu_empty.swf").write_text("")
    (d / "nu_comments.swf").write_text("; MaxNodes: 4\n; MaxProcs: 4\n")
    nu = "name: nu\nschedulers: [fcfs, easy]\nworkloads:\n  - {name: t, trace: small.swf, limit: 2}\n"
    for name, spec in {
        "nu_key": nu.replace("schedulers:", "schedulrs:"),
        "nu_wkey": nu.replace("{name: t,", "{nme: t,"),
        "nu_sched": nu.replace("[fcfs, easy]", "[fcfs, eassy]"),
        "nu_limit": nu.replace("limit: 2", "limit: 2x"),
        "nu_trace": nu.replace("small.swf", "smal.swf"),
        "nu_coloc": nu.replace("[fcfs, easy]", "[easy, easy-coloc]"),
    }.items():
        (d / f"{name}.yaml").write_text(spec)
    (d / "nonutf8.yaml").write_bytes(b"name: \xff\xfe\n")
    pool = json.loads((d / "pool.json").read_text())
    (d / "emptyloads.json").write_text(json.dumps({**pool, "loads": []}))
    for name, body in POLICIES.items():
        (d / name).write_text(_policy(body))
    for name, base, module in (
        ("slurm_own_order.py", "Slurm", "coschedlab.schedulers"),
        ("coloc_own_order.py", "EasyColoc", "coschedlab.coloc.schedulers"),
    ):  # a subclass ordering the queue by a hook its built-in never calls (audit15's row 19)
        (d / name).write_text(
            f"from {module} import {base}\n\n\nclass P({base}):\n    name = 'p'\n\n"
            "    def ordered_queue(self, view):\n        return sorted(view.queue, reverse=True)\n"
        )
    for name, base, hook in (
        ("setup_skips_super.py", "EASY", "setup(self, view):\n        self.mine = 1"),
        (
            "calls_super_schedule.py",
            "FCFS",
            "schedule(self, view):\n        return super().schedule(view)",
        ),
    ):  # a built-in's subclass that asks for a Python pass it has not (audit15's row 20)
        (d / name).write_text(
            f"from coschedlab.schedulers import {base}\n\n\nclass P({base}):\n"
            f"    name = 'p'\n\n    def {hook}\n"
        )
    (d / "slurm_former_method.py").write_text(  # a method of Slurm's former Python pass
        "from coschedlab.schedulers import Slurm\n\n\nclass P(Slurm):\n    name = 'p'\n\n"
        "    def _main(self, view, free, started):\n        return free\n"
    )
    for name, base, method in (  # methods of the co-schedulers' former Python class scan
        ("coloc_former_method.py", "EasyColoc", "_backfill(self, view):\n        pass"),
        ("bester_former_method.py", "Bester", "choose(self, view, j):\n        return None"),
    ):
        (d / name).write_text(
            f"from coschedlab.coloc.schedulers import {base}\n\n\nclass P({base}):\n"
            f"    name = 'p'\n\n    def {method}\n"
        )
    for name, base, module in (
        ("slurm_skips_super.py", "Slurm", "coschedlab.schedulers"),
        ("coloc_skips_super.py", "EasyColoc", "coschedlab.coloc.schedulers"),
        ("ranks_skips_super.py", "Ranks", "coschedlab.coloc.schedulers"),
    ):  # the same for the built-ins with a pass of their own state (was: AttributeError)
        (d / name).write_text(
            f"from {module} import {base}\n\n\nclass P({base}):\n    name = 'p'\n\n"
            "    def setup(self, view):\n        self.mine = 1\n"
        )
    shutil.copy(ROOT / "examples" / "insitu_small.yaml", d / "ens.yaml")
    (d / "spec.yaml").write_text(
        "name: tiny\noutput: cmp\nbaseline: fcfs\nschedulers: [fcfs, easy]\nplots: none\n"
        "workloads:\n  - {name: t, trace: trace.swf}\n"
    )
    # its output a folder of the user's own (no --out given)
    (d / "spec_notours.yaml").write_text(
        (d / "spec.yaml").read_text().replace("output: cmp", "output: notours")
    )
    # found by the batch core's hostile pass (2026-11-26)
    (d / "exits_at_import.py").write_text("import sys\nsys.exit(0)\n")
    (d / "init_raises.py").write_text(
        "from coschedlab.schedulers import Scheduler\n\nclass P(Scheduler):\n"
        "    def __init__(self):\n        raise RuntimeError('no licence')\n"
    )
    csv_head = "job_id,submission_time,starting_time,finish_time,requested_number_of_resources,allocated_resources\n"
    (d / "overlap.csv").write_text(csv_head + "1,0,0,50,2,0-1\n2,0,0,50,2,0-1\n")
    (d / "huge_alloc.csv").write_text(csv_head + "1,0,0,50,2,9999999999999999999\n")
    (d / "huge_res.csv").write_text(csv_head + "1,0,0,50,9999999999999999999999,0-1\n")
    (d / "huge_time.csv").write_text(csv_head + "1,0,1e300,1e300,2,0-1\n")
    (d / "inf_nodes").mkdir()
    (d / "inf_nodes" / "jobs.csv").write_text(csv_head + "1,0,0,50,2,0-1\n")
    (d / "inf_nodes" / "metrics.json").write_text('{"cluster": {"nodes": 1e400}}')
    (d / "huge_header.swf").write_text(
        SMALL.replace("MaxNodes: 4", "MaxNodes: 99999999999999999999").replace(
            "; MaxProcs: 4\n", ""
        )
    )
    (d / "cycle.swf").write_text(
        SMALL.replace("1 1 1 -1 -1 -1 -1 -1\n2", "1 1 1 -1 -1 -1 2 0\n2", 1).replace(
            "2 1 -1 -1 -1 -1 -1\n3", "2 1 -1 -1 -1 1 0\n3", 1
        )
    )
    cmp_base = "schedulers: [fcfs]\nworkloads:\n  - {name: t, trace: small.swf}\n"
    (d / "label_dots.yaml").write_text(cmp_base.replace("[fcfs]", "[{name: '..', spec: fcfs}]"))
    (d / "name_runs.yaml").write_text(cmp_base.replace("name: t,", "name: runs.csv,"))
    # numbers far beyond any machine or study (found by the dashboard's hostile pass)
    base = "schedulers: [easy]\nworkloads:\n  - {name: t, trace: trace.swf}\n"
    (d / "huge_reps.yaml").write_text("repetitions: 1000000000\n" + base)
    (d / "huge_seed.yaml").write_text(f"seed: {2**70}\n" + base)
    (d / "huge_nodes.yaml").write_text("cluster: {nodes: 1000000000000000000000000000000}\n" + base)
    (d / "huge_jobs.yaml").write_text(
        "cluster: {nodes: 4}\nschedulers: [easy]\n"
        "workloads:\n  - {name: p, pool: pool.json, jobs: 1000000000000}\n"
    )
    # ELiSE experiment files (coschedlab elise run; found by its hostile pass, 2026-11-27)
    el = (
        "name: tiny\ninputs:\n- cluster: {nodes: 4, socket-conf: [2, 2]}\n"
        '  generator: {type: "Random Generator", arg: 20, distribution: {type: "Poisson '
        'Distribution", arg: 30}}\n  json: pool.json\nschedulers:\n- base: "EASY Scheduler"\n'
        '- base: "Filler Co-Scheduler"\n  backfill_enabled: true\nactions:\n'
        "  get_workload: {inputs: all, schedulers: all, dir: el_out}\n"
    )
    (d / "el_ok.yaml").write_text(el)
    (d / "garbage.json").write_text('{"loads": [ nope')
    head = "Job Number,Submit Time,Wait Time,Run Time,Number of Allocated Processors,Average CPU Time Used,Used Memory,Requested Number of Processors,Requested Time,Requested Memory,Status,User ID,Group ID,Executable Number,Queue Number,Partition Number,Preceding Job Number,Think Time from Preceding Job,Assigned Processors\n"
    (d / "el_badlist.csv").write_text(head + "0,0.0,,1,,,,4,soon,,1,,,A,,,,,\n")
    (d / "el_gen.py").write_text("import realsim\n")
    rg = '"Random Generator", arg: 20'
    for name, text in {
        "el_workloads": el.replace("inputs:", "workloads:"),
        "el_topkey": el + "schedulerz: []\n",
        "el_noactions": el.split("actions:")[0],
        "el_nojson": el.replace("  json: pool.json\n", ""),
        "el_lm": el.replace("  json: pool.json\n", "  load-manager: lm.pkl\n"),
        "el_json_missing": el.replace("pool.json", "nosuch.json"),
        "el_json_garbage": el.replace("pool.json", "garbage.json"),
        "el_heatmap_bad": el.replace(
            "  json: pool.json\n", "  json: pool.json\n  heatmap: garbage.json\n"
        ),
        "el_sockets": el.replace("[2, 2]", "[2, 4]"),
        "el_gen_type": el.replace("Random Generator", "Random Gen"),
        "el_gen_py": el.replace('"Random Generator"', "el_gen.py"),
        "el_gen_arg": el.replace("arg: 20", "arg: many"),
        "el_gen_huge": el.replace("arg: 20", "arg: 1000000000000"),
        "el_rfl_shape": el.replace(rg, '"Random From List Generator", arg: 20'),
        "el_rfl_unknown": el.replace(rg, '"Random From List Generator", arg: [5, "A\\nZZ\\n"]'),
        "el_dict_unknown": el.replace(rg, '"Dictionary Generator", arg: {A: 3, ZZ: 2}'),
        "el_list_line": el.replace(rg, '"List Generator", arg: el_badlist.csv'),
        "el_dist_type": el.replace("Poisson Distribution", "Gauss Distribution"),
        "el_dist_arg": el.replace("arg: 30", "arg: soon"),
        "el_sched_typo": el.replace('"EASY Scheduler"', '"EASY Schedular"'),
        "el_sched_short": el.replace('"EASY Scheduler"', '"EASY"'),
        "el_sched_rules": el.replace('"EASY Scheduler"', '"Rules Co-Scheduler"'),
        "el_sched_bf": el.replace("backfill_enabled: true", 'backfill_enabled: "yes"'),
        "el_sched_qdepth": el.replace("backfill_enabled: true", "queue_depth: 5"),
        "el_sched_attr": el.replace("backfill_enabled: true", "colour: red"),
        "el_sched_spec": el.replace('"EASY Scheduler"', '"easy:depth=0"'),
        "el_action": el.replace("get_workload", "get_report"),
        "el_action_anim": el.replace("get_workload", "get_animated_cluster"),
        "el_action_range": el.replace("inputs: all", "inputs: [5]"),
        "el_too_big": el.replace("nodes: 4", "nodes: 1"),
        "el_dict_huge": el.replace(rg, '"Dictionary Generator", arg: {A: 100000000000}'),
        "el_json_dir": el.replace("json: pool.json", "json: empty"),
        "el_list_dir": el.replace(rg, '"List Generator", arg: empty'),
    }.items():
        (d / f"{name}.yaml").write_text(text)
    import gzip

    (d / "broken.swf.gz").write_bytes(gzip.compress(SMALL.encode() * 50)[:-40] + b"x" * 60)
    # workflows: damaged workflow files, sweep specs, a tiny workload with workflows
    (d / "cycle.json").write_text(json.dumps({"tasks": [
        {"id": "a", "cores": 1, "runtime": 1, "deps": ["b"]},
        {"id": "b", "cores": 1, "runtime": 1, "deps": ["a"]}]}))  # fmt: skip
    (d / "unknown_dep.json").write_text(
        '{"tasks": [{"id": "a", "cores": 1, "runtime": 1, "deps": ["z"]}]}'
    )
    (d / "bad.xml").write_text("<adag><job id='a'")
    wf_ok = "workflows: [A2]\nshares: [0.2]\nmachine: 60x24\nwindow: 3600\nwarmup: 0\ntarget_wait: 600\n"
    (d / "wf_ok.yaml").write_text(wf_ok)
    (d / "wf_badkey.yaml").write_text(wf_ok + "colour: red\n")
    (d / "wf_exec.yaml").write_text(wf_ok + "executor: spark\n")
    (d / "wf_pct.yaml").write_text(wf_ok.replace("[0.2]", "[10]"))
    (d / "wf_both.yaml").write_text(wf_ok + "periods: [600]\n")
    (d / "wf_unknown.yaml").write_text(wf_ok.replace("[A2]", "[nosuch]"))
    (d / "wf_sched.yaml").write_text(wf_ok + "scheduler: nosuch\n")
    (d / "wf_machine.yaml").write_text(wf_ok.replace("60x24", "huge"))
    (d / "wf_drain.yaml").write_text(wf_ok + "drain: -1\n")
    # hostile pass over workflows/coupled/elise (hostile18, 2026-11-29): values that make one
    # run key (one run silently lost), a workflow without work under a share
    (d / "wf_share_twice.yaml").write_text(wf_ok.replace("[0.2]", "[0.1, 0.1]"))
    (d / "wf_share_close.yaml").write_text(wf_ok.replace("[0.2]", "[0.1, 0.1000001]"))
    (d / "wf_period_close.yaml").write_text(
        wf_ok.replace("shares: [0.2]", "periods: [600, 600.0000001]")
    )
    (d / "wf_mode_twice.yaml").write_text(wf_ok + "modes: [chained, chained]\n")
    (d / "wf_x_y.json").write_text(
        '{"name": "x y", "tasks": [{"id": "a", "cores": 24, "runtime": 100}]}'
    )
    (d / "wf_x_y2.json").write_text(
        '{"name": "x_y", "tasks": [{"id": "a", "cores": 48, "runtime": 100}]}'
    )
    (d / "wf_slug.yaml").write_text(wf_ok.replace("[A2]", "[wf_x_y.json, wf_x_y2.json]"))
    (d / "wf_nowork.json").write_text('{"tasks": [{"id": "a", "cores": 1, "runtime": 0}]}')
    (d / "wf_nowork.yaml").write_text(wf_ok.replace("[A2]", "[wf_nowork.json]"))
    done = cli_here(
        "workflows",
        "generate",
        "-w",
        "A2",
        "--share",
        "0.2",
        "--machine",
        "60x24",
        "--window",
        "3600",
        "--warmup",
        "0",
        "--target-wait",
        "600",
        "--out",
        "wl",
        cwd=d,
    )
    assert done.returncode == 0, done.stderr
    (d / "wlhold").mkdir()  # a folder holding a workload (--force replaced the workload read)
    shutil.copytree(d / "wl", d / "wlhold" / "wl")
    # studies: scaling tables
    (d / "scaling_bad.csv").write_text("processors,seconds\n4,1.95\n8,fast\n")
    (d / "scaling_cols.csv").write_text("4,1.95,3\n")
    # studies: run/report/reproduce specs, an earlier study result and damaged copies of it
    st = (
        "name: tiny\ndesign:\n  a: [0.1, 0.2]\n  b: [1.0, 2.0]\nobjectives: [o1]\nreuse: [b]\n"
        "scaling: {1: 1.0, 2: 0.7}\nprocessors: 2\n"
        "model:\n  scratch: 100\n  reuse: 50\n  seed: 1\n  targets: [[0.0, 0.5]]\n"
    )
    nomodel = st.split("model:")[0]
    py = f"{sys.executable} -c"
    for name, body in {
        "st_ok": st,
        "st_yaml": "design: [\n",
        "st_empty": "",
        "st_list": "- design\n",
        "st_key": st + "colour: red\n",
        "st_model_key": st.replace("  seed: 1\n", "  seed: 1\n  sede: 2\n"),
        "st_range_key": st.replace("[0.1, 0.2]", "{from: 0, to: 1, count: 2, step: 1}"),
        "st_design_list": st.replace("design:\n  a: [0.1, 0.2]\n  b: [1.0, 2.0]", "design: [a, b]"),
        "st_design_empty": st.replace("design:\n  a: [0.1, 0.2]\n  b: [1.0, 2.0]", "design: {}"),
        "st_design_novals": st.replace("[0.1, 0.2]", "[]"),
        "st_value_text": st.replace("[0.1, 0.2]", "[0.1, x]"),
        "st_value_nan": st.replace("[0.1, 0.2]", "[.nan, 0.2]"),
        "st_value_dup": st.replace("[0.1, 0.2]", "[0.1, 0.1]"),
        "st_count_huge": st.replace("[0.1, 0.2]", "{from: 0, to: 1, count: 100000}"),
        "st_count_zero": st.replace("[0.1, 0.2]", "{from: 0, to: 1, count: 0}"),
        "st_range_back": st.replace("[0.1, 0.2]", "{from: 1, to: 0, count: 3}"),
        "st_range_inf": st.replace("[0.1, 0.2]", "{from: 0, to: .inf, count: 3}"),
        "st_space_huge": st.replace("[0.1, 0.2]", "{from: 0, to: 1, count: 10000}").replace(
            "[1.0, 2.0]", "{from: 0, to: 1, count: 10000}"
        ),
        "st_reuse_unknown": st.replace("reuse: [b]", "reuse: [c]"),
        "st_reuse_string": st.replace("reuse: [b]", "reuse: velocity"),
        "st_reuse_dup": st.replace("reuse: [b]", "reuse: [b, b]"),
        "st_obj_empty": nomodel.replace("objectives: [o1]", "objectives: []") + "command: echo\n",
        "st_obj_dup": st.replace("objectives: [o1]", "objectives: [o1, o1]").replace(
            "[[0.0, 0.5]]", "[[0.0, 0.5], [1.0, 1.0]]"
        ),
        "st_targets_len": st.replace("[[0.0, 0.5]]", "[[0.0]]"),
        "st_targets_count": st.replace("[[0.0, 0.5]]", "[[0.0, 0.5], [1.0, 1.0]]"),
        "st_targets_range": st.replace("[[0.0, 0.5]]", "[[7.0, 0.5]]"),
        "st_targets_none": st.replace("  targets: [[0.0, 0.5]]\n", ""),
        "st_scaling_none": st.replace("{1: 1.0, 2: 0.7}", "{64: 1.0}"),
        "st_scaling_zero": st.replace("{1: 1.0, 2: 0.7}", "{1: 0, 2: 0.7}"),
        "st_scaling_negp": st.replace("{1: 1.0, 2: 0.7}", "{-1: 1.0, 2: 0.7}"),
        "st_scaling_textp": st.replace("{1: 1.0, 2: 0.7}", "{x: 1.0, 2: 0.7}"),
        "st_scaling_file": st.replace("{1: 1.0, 2: 0.7}", "nosuch.csv"),
        "st_scaling_csv": st.replace("{1: 1.0, 2: 0.7}", "scaling_bad.csv"),
        "st_scaling_list": st.replace("{1: 1.0, 2: 0.7}", "[1, 2]"),
        "st_procs_zero": st.replace("processors: 2", "processors: 0"),
        "st_procs_huge": st.replace("processors: 2", "processors: 20000000"),
        "st_procs_frac": st.replace("processors: 2", "processors: 2.5"),
        "st_per_run": st + "per_run: 3\n",
        "st_every": st + "checkpoint_every: 0\n",
        "st_restart": st + "restart: -5\n",
        "st_restart_nan": st + "restart: .nan\n",
        "st_step": st + "step: 0\n",
        "st_config": st + "config: Z\n",
        "st_config_list": st + "config: [E]\n",
        "st_spread": st.replace("  seed: 1\n", "  seed: 1\n  spread: -1\n"),
        "st_overhead": st.replace("  seed: 1\n", "  seed: 1\n  overhead: -1\n"),
        "st_slowdown": st.replace("  seed: 1\n", "  seed: 1\n  slowdown: {64: 0}\n"),
        "st_pcost": st.replace("  seed: 1\n", "  seed: 1\n  preemption_cost: free\n"),
        "st_alpha": "alpha: ideal\n" + st,
        "st_seed": st.replace("  seed: 1\n", "  seed: -1\n"),
        "st_scratch": st.replace("  scratch: 100\n", "  scratch: 0\n"),
        "st_normalize": st.replace("  seed: 1\n", "  seed: 1\n  normalize: maybe\n"),
        "st_model_list": nomodel + "model: [1]\n",
        "st_neither": nomodel,
        "st_name": st.replace("name: tiny", "name: a/b"),
        "st_cmd_only": nomodel + "command: echo\n",
        "st_cmd_empty": nomodel + "command: ''\n",
        "st_cmd_fails": nomodel
        + f"command: {py} 'import sys; sys.exit(1)' {{params}} {{checkpoint_in}} {{checkpoint_out}}\n",
        "st_cmd_nojson": nomodel
        + f"command: {py} 'print(1)' {{params}} {{checkpoint_in}} {{checkpoint_out}}\n",
        "st_cmd_missing": nomodel
        + "command: nosuch-program-xyz {params} {checkpoint_in} {checkpoint_out}\n",
        "st_cmd_quote": nomodel + 'command: "echo \'unclosed"\n',
    }.items():
        (d / f"{name}.yaml").write_text(body)
    done = cli_here("study", "run", "st_ok.yaml", "--out", "stres", cwd=d)
    assert done.returncode == 0, done.stderr
    for name in ("st_trunc", "st_badcsv", "st_nosegs"):
        shutil.copytree(d / "stres", d / name)
    (d / "st_trunc" / "metrics.json").write_text('{"metrics": ')
    (d / "st_badcsv" / "runs.csv").write_bytes(b'\x00\xff garbage\n1,2,3\n"')
    (d / "st_nosegs" / "segments.csv").unlink()
    # coupled systems: pairs files and sweep specs
    (d / "pairs_ok.csv").write_text("1,1,2,1\n")
    (d / "pairs_twice.csv").write_text("1,1,2,1\n1,1,2,2\n")
    (d / "pairs_nojob.csv").write_text("1,9,2,1\n")
    (d / "pairs_same.csv").write_text("1,1,1,2\n")
    (d / "pairs_nosys.csv").write_text("1,1,3,1\n")
    (d / "pairs_text.csv").write_text("a,b\n1,x,2,1\n")
    (d / "pairs_empty.csv").write_text("")
    (d / "pairs_split.csv").write_text('1,1,2,1\n"2\n",2,2,2\n')
    (d / "pairs_bom.csv").write_bytes(b"\xef\xbb\xbf1,1,2,1\n")
    (d / "pairs_binary.csv").write_bytes(b"1,1\x00,2\r,1\n\x89PNG")
    # hostile pass over the coupled commands (issue 29): pairs files, the seed's Fig. 2
    # deadlock (two 10-node machines, hold-hold without release), calibrated sweep specs
    (d / "pairs_three.csv").write_text("1,1,2\n")
    (d / "pairs_sys0.csv").write_text("0,1,2,1\n")
    (d / "pairs_negjob.csv").write_text("1,-1,2,1\n")
    (d / "pairs_float.csv").write_text("1.5,1\n")
    head = "; MaxNodes: 10\n; MaxProcs: 10\n"
    job = "{} {} -1 100 6 -1 -1 6 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    (d / "fig2a.swf").write_text(head + job.format(1, 0) + job.format(2, 1))
    (d / "fig2b.swf").write_text(head + job.format(1, 1) + job.format(2, 0))
    (d / "pairs_fig2.csv").write_text("1,1\n2,2\n")
    paper = "large: theta\nsmall: kth\nschemes: [HH]\nloads: [0.5]\nproportions: []\nseeds: 1\n"
    for name, body in {
        "cpl_calib_maybe": paper + "calibrate: maybe\n",
        "cpl_calib_case": paper + "calibrate: Paper\n",
        "cpl_calib_bool": paper + "calibrate: true\n",
        "cpl_calib_twin": paper.replace("proportions: []", "proportions: [0.1]")
        + "proportion_load: 0.6\ncalibrate: paper\n",
        "cpl_calib_loads": paper.replace("[0.5]", "[0.25, 0.9]") + "calibrate: paper\n",
        "cpl_calib_large_nodes": paper + "calibrate: paper\nlarge_nodes: 100\n",
        "cpl_calib_small_nodes": paper + "calibrate: paper\nsmall_nodes: 50\n",
        "cpl_release_none": paper + "release: none\n",
        "cpl_release_null": paper + "release:\n",
        "cpl_broken": "large: theta\nsmall: kth\nschemes: [HH\nloads: [0.5]\n",
        "cpl_indent": "large: theta\nsmall: kth\n  schemes: [HH]\n",
        "cpl_key_twice": paper + "loads: [0.25]\n",
        "cpl_load_nan": paper.replace("[0.5]", "[.nan]"),
        "cpl_age_inf": paper + "release_age: .inf\n",
    }.items():
        (d / f"{name}.yaml").write_text(body)
    cpl = "large: small.swf\nlarge_nodes: 4\nsmall: small.swf\nsmall_nodes: 4\nschemes: [HH]\nloads: [0.5]\nproportions: []\nseeds: 1\n"
    (d / "cpl_ok.yaml").write_text(cpl)
    (d / "cpl_exec.yaml").write_text(cpl + "executor: dask-local:0\n")
    (d / "cpl_exec2.yaml").write_text(cpl + "executor: dask-local:2\n")
    (d / "cpl_prop_load.yaml").write_text(
        cpl.replace("proportions: []", "proportions: [0.5]") + "proportion_load: 20\n"
    )
    (d / "cpl_large_dir.yaml").write_text(cpl.replace("large: small.swf", "large: empty"))
    for name, body in {
        "cpl_key": cpl + "colour: red\n",
        "cpl_scheme": cpl.replace("[HH]", "[HX]"),
        "cpl_load0": cpl.replace("loads: [0.5]", "loads: [0]"),
        "cpl_prop": cpl.replace("proportions: []", "proportions: [1.5]"),
        "cpl_none": cpl.replace("loads: [0.5]", "loads: []"),
        "cpl_seeds": cpl.replace("seeds: 1", "seeds: [1, 1]"),
        "cpl_sched": cpl + "scheduler: nosuch\n",
        "cpl_sched3": cpl + "scheduler: [easy, easy, easy]\n",
        "cpl_cap": cpl + "hold_cap: 3\n",
        "cpl_month": cpl + "month: 13\n",
        "cpl_large": cpl.replace("large: small.swf", "large: nosuch.swf"),
        "cpl_nodes": cpl.replace("large_nodes: 4", "large_nodes: 1"),
        "cpl_name": cpl + "name: a/b\n",
        "cpl_dup": cpl.replace("loads: [0.5]", "loads: [0.25, 0.25]"),
        "cpl_attempt": cpl + "mate_attempt: sometimes\n",
        "cpl_bundled_missing": cpl.replace("large: small.swf", "large: coschedlab:nosuch.swf"),
        "cpl_calib_file": cpl + "calibrate: paper\n",
        "cpl_calib_label": "large: theta\nsmall: kth\nschemes: [HH]\nloads: [0.4]\n"
        "proportions: []\nseeds: 1\ncalibrate: paper\n",
        "cpl_bundled_pool": cpl.replace(
            "large: small.swf", "large: coschedlab:pools/lm-aris.compute-SPEC.json"
        ),
    }.items():
        (d / f"{name}.yaml").write_text(body)
    (d / "cplruns" / "runs").mkdir(parents=True)
    (d / "cplruns" / "runs" / "load0.5-HH-s0.json").write_text("{}")
    # hostile inputs of the command line's second pass (issue 27)
    # 1,000 levels: well past the recursion limit (about 250 reach it), in half the time of 5,000
    (d / "deep.yaml").write_text("a: " + "[" * 1000 + "]" * 1000 + "\n")
    ens = (d / "ens.yaml").read_text()
    (d / "ens_long.yaml").write_text(ens.replace("n_steps: 50", "n_steps: 100000000"))
    assert (d / "ens_long.yaml").read_text() != ens
    done = cli_here("compare", "spec.yaml", "--out", "cmpnotes", "-j", "1", cwd=d)
    assert done.returncode == 0, done.stderr
    shutil.copytree(d / "cmpnotes", d / "cmpmine")  # a figure of the user's among the plots
    (d / "cmpmine" / "plots").mkdir(exist_ok=True)
    (d / "cmpmine" / "plots" / "mine.png").write_bytes(b"\x89PNG mine")
    (d / "cmpnotes" / "notes.txt").write_text("my notes on these runs\n")
    job2 = "2 10 -1 60 2 -1 -1 2 100 -1 1 2 1 -1 -1 -1 -1 -1"
    job3 = "3 20 -1 70 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"
    for name, old_line, new_line in (
        ("neg_procs", job2, job2.replace("-1 2 100", "-1 -5 100")),
        ("neg_alloc", job2, job2.replace("60 2 -1", "60 -8 -1")),
        ("neg_req_time", job2, job2.replace(" 100 ", " -30 ")),
        ("neg_think", job3, job3.replace("-1 -1 -1 -1 -1", "-1 -1 -1 2 -50")),
        ("self_preceding", job3, job3.replace("-1 -1 -1 -1 -1", "-1 -1 -1 3 0")),
    ):
        assert old_line in SMALL and new_line != old_line
        (d / f"{name}.swf").write_text(SMALL.replace(old_line, new_line))
    apps = [f"a{i}" for i in range(8)]
    (d / "hm_short.csv").write_text(
        "app," + ",".join(apps) + "\n"
        + "".join(f"{a}," + ",".join(["1.1"] * (8 if a != "a2" else 2)) + "\n" for a in apps)
    )  # fmt: skip
    (d / "compact.csv").write_text(
        "app,procs,compact_time\n" + "".join(f"{a},4,100\n" for a in apps)
    )
    # an earlier result, and damaged copies of it
    done = cli_here("simulate", "small.swf", "--out", "prev", cwd=d)
    assert done.returncode == 0, done.stderr
    for name in ("truncated", "corrupt", "foreign"):
        shutil.copytree(d / "prev", d / name)
    # a result the user wrote into after the run: files named like outputs (fix13)
    for name, mine in (("prevnotes", "notes.md"), ("prevsum", "summary.csv"),
                       ("prevsub", "sub/measurements.csv")):  # fmt: skip
        shutil.copytree(d / "prev", d / name)
        (d / name / mine).parent.mkdir(exist_ok=True)
        (d / name / mine).write_text("the user's own\n")
    (d / "truncated" / "metrics.json").write_text('{"metrics": ')
    (d / "corrupt" / "jobs.parquet").write_bytes(b"PAR1 not really")
    (d / "foreign" / "metrics.json").write_text("{}")
    # slurm.conf files (slurm:conf=FILE)
    (d / "conf_malformed.conf").write_text("SchedulerType=sched/backfill\nthis is wrong\n")
    (d / "conf_badint.conf").write_text("SchedulerParameters=bf_continue,bf_interval=often\n")
    (d / "conf_range.conf").write_text("\nSchedulerParameters=bf_window=99999\n")
    (d / "conf_badtime.conf").write_text("PriorityMaxAge=2weeks\n")
    (d / "conf_badtype.conf").write_text("PriorityType=priority/fair\n")
    (d / "conf_loop.conf").write_text("ClusterName=x\nInclude conf_loop.conf\n")
    (d / "conf_include.conf").write_text("Include nothere.conf\n")
    (d / "conf_binary.conf").write_bytes(b"\xff\xfe\x00")
    # a new user's and a hostile user's pass over the commands (2026-11-27)
    laughs = ['- &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    laughs += [f"- &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    bomb = "\n".join("  " + line for line in laughs)  # 9**9 values once expanded
    (d / "ens_nodes_huge.yaml").write_text(
        ens.replace("nodes: 8", "nodes: 99999999999999999999", 1)
    )
    loads = pool["loads"]
    for name, key, value in (("pool_procs_huge", "num_of_processes", 10**30),
                             ("pool_time_huge", "compact_timelogs", [1e300])):  # fmt: skip
        (d / f"{name}.json").write_text(
            json.dumps({**pool, "loads": [{**loads[0], key: value}, *loads[1:]]})
        )
    (d / "header_words.swf").write_text(
        SMALL.replace("MaxNodes: 4", "MaxNodes: four").replace("MaxProcs: 4", "MaxProcs: -1")
    )
    (d / "trace_dir.yaml").write_text(cmp_base.replace("trace: small.swf", "trace: empty"))
    (d / "long_field.swf").write_text(SMALL.replace("3 20 -1 70", "3 20 -1 " + "7" * 5000))
    (d / "cluster_small.yaml").write_text("cluster: {nodes: 1}\n" + cmp_base)
    (d / "yaml_nul.yaml").write_text(cmp_base + "\x00\n")
    (d / "yaml_list_key.yaml").write_text(cmp_base + "? [a, b]\n: x\n")
    (d / "long_title.yaml").write_text("name: " + "a" * 100_000 + "\n" + cmp_base)  # minutes
    (d / "long_label.yaml").write_text(cmp_base.replace("name: t,", f"name: {'t' * 300},"))
    cells = {a: ["1.1"] * 8 for a in apps}
    cells["a2"][1] = "-1.1"  # a2 beside a1
    (d / "hm_negative.csv").write_text(
        "app," + ",".join(apps) + "\n" + "".join(f"{a},{','.join(cells[a])}\n" for a in apps)
    )
    (d / "empty_list.yaml").write_text(
        "schedulers: []\nworkloads:\n  - {name: t, trace: small.swf}\n"
    )
    (d / "laughs.yaml").write_text(
        f"schedulers:\n{bomb}\nworkloads:\n  - {{name: t, trace: small.swf}}\n"
    )
    # the anchors first (under model.targets), then a design value quoting the largest: the
    # study's checker quoted it whole in its message (hours, gigabytes)
    anchors = "[" + ", ".join(line[2:] for line in laughs) + "]"
    (d / "laughs_study.yaml").write_text(
        f"model: {{scratch: 100, reuse: 50, seed: 1, targets: {anchors}}}\n"
        + nomodel.replace("[0.1, 0.2]", "[*l8]")
    )
    # a hostile pass over the generated sweep commands (2026-11-28): another kind's sweep
    (d / "wfsweep" / "runs").mkdir(parents=True)
    (d / "wfsweep" / "spec.json").write_text('{"sweep": "workflow"}\n')
    (d / "wfsweep" / "runs" / "A2-share0.2-s0-woas.json").write_text("{}")
    # more than 1 MiB (as /dev/zero is, which filled 23 GB: not read here, should the cap go)
    (d / "big.yaml").write_text("# a log given by mistake\n" * 50_000)
    # beyond what every run refuses (each run failed with it, one after the other)
    (d / "wf_window_huge.yaml").write_text(wf_ok.replace("window: 3600", "window: 1.0e+30"))
    (d / "wf_pressure_huge.yaml").write_text(wf_ok + "pressure: 1000\n")
    (d / "wf_period_huge.yaml").write_text(wf_ok.replace("shares: [0.2]", "periods: [1.0e+9]"))
    (d / "cpl_nodes_huge.yaml").write_text(cpl.replace("small_nodes: 4", f"small_nodes: {10**30}"))
    # leftovers of hostile18 (hostile19, 2026-11-29): a null experiment name printed "None"
    (d / "el_name_null.yaml").write_text(el.replace("name: tiny", "name: ~"))
    (d / "el_name_list.yaml").write_text(el.replace("name: tiny", "name: [a, b]"))
    # hostile pass over the compiled core's inputs (hostile19): an ELiSE list's requested
    # time beyond the sane range failed every run after the set-up (error.txt per run)
    el_head = (d / "el_badlist.csv").read_text().splitlines(keepends=True)[0]
    (d / "el_req_huge.csv").write_text(
        el_head + "0,0.0,,1,,,,4,100,,1,,,A,,,,,\n1,5,,1,,,,4,1e300,,1,,,A,,,,,\n"
    )
    (d / "el_req_huge.yaml").write_text(el.replace(rg, '"List Generator", arg: el_req_huge.csv'))
    # shared nodes of 10,000,000 x 4,096 cores: each run stopped on a bare MemoryError
    (d / "shared_huge.yaml").write_text(
        "cluster: {nodes: 10000000, sockets_per_node: 2, cores_per_socket: 2048}\n"
        "schedulers: [easy-coloc]\nworkloads:\n  - {name: p, pool: pool.json, jobs: 5}\n"
    )
    return d


# (id, arguments, exit code, what the one line must say)
CASES = [
    # -- where results go -------------------------------------------------------------------
    ("simulate-out-file", "simulate small.swf --out afile", 2, "--out afile exists and is not a directory"),
    ("simulate-out-devnull", "simulate small.swf --out /dev/null", 2, "/dev/null"),
    ("simulate-out-earlier", "simulate small.swf --out prev", 2, "already holds a result; give --force"),
    # hostile21: without --force, a folder of the user's files was "holds a result; give
    # --force", which --force then refused
    ("simulate-not-ours-no-force", "simulate small.swf --out notours", 2, "error: --out notours holds files coschedlab did not write (notours/notes.txt); refusing to replace it, --force or not: move it away, or choose another directory"),
    ("coupled-not-ours-no-force", "coupled simulate --system small.swf:name=a --system small.swf --out notours", 2, "(notours/notes.txt)"),
    ("report-not-ours-no-force", "report prev --out notours", 2, "(notours/notes.txt)"),
    ("simulate-force-not-ours", "simulate small.swf --out notours --force", 2, "notes.txt"),
    ("simulate-force-user-docs", "simulate small.swf --out mydocs --force", 2, "holds files coschedlab did not write"),
    ("simulate-force-user-notes-in-result", "simulate small.swf --out prevnotes --force", 2, "--out prevnotes holds files coschedlab did not write (prevnotes/notes.md); refusing to replace it, --force or not: move it away, or choose another directory"),
    ("simulate-force-user-csv-in-result", "simulate small.swf --out prevsum --force", 2, "(prevsum/summary.csv)"),
    ("simulate-force-user-subfolder-in-result", "simulate small.swf --out prevsub --force", 2, "(prevsub/sub/measurements.csv)"),
    ("study-run-force-user-notes-in-result", "study run st_ok.yaml --out prevnotes --force", 2, "(prevnotes/notes.md)"),
    ("coupled-force-user-notes-in-result", "coupled simulate --system small.swf:name=a --system small.swf --out prevsum --force", 2, "(prevsum/summary.csv)"),
    ("workflows-simulate-force-user-notes", "workflows simulate wl --out prevnotes --force", 2, "(prevnotes/notes.md)"),
    ("report-out-user-notes-in-result", "report prev --out prevnotes", 2, "(prevnotes/notes.md)"),
    ("compare-fresh-user-figure", "compare spec.yaml --out cmpmine --fresh", 2, "holds files coschedlab did not write (cmpmine/plots/mine.png); --fresh deleted nothing"),
    ("simulate-out-under-file", "simulate small.swf --out afile/sub", 2, "afile"),
    # a name that fits the file system but not its temporary sibling's (was: '.tmp-aaa...-PID-HEX: File name too long')
    ("simulate-out-long-name", "simulate small.swf --out " + "a" * 240, 2, "the name is 240 bytes long, at most 233 (the result is first written beside it"),
    ("simulate-out-too-long-name", "simulate small.swf --out " + "b" * 300, 2, "the name is 300 bytes long, at most 233"),
    ("simulate-fails-with-force", "simulate small.swf -s raises.py --out prev --force", 2, "raises.py:8"),
    ("demo-out-file", "demo --out afile", 2, "not a directory"),
    ("demo-out-earlier", "demo --out prev", 2, "already holds a result"),
    ("generate-out-exists", "generate --pool pool.json --out afile", 2, "--out afile already exists"),
    ("generate-out-devnull", "generate --pool pool.json --out /dev/null", 2, "/dev/null"),
    ("generate-out-dir", "generate --pool pool.json --out empty", 2, "is a directory"),
    ("compare-out-file", "compare spec.yaml --out afile", 2, "afile exists and is not a directory"),
    ("compare-out-empty", "compare spec.yaml --out ''", 2, "Invalid value for '--out' / '-o': the path is empty"),
    ("compare-spec-empty", "compare ''", 2, "Invalid value for 'spec': the path is empty"),
    ("elise-out-empty", "elise run coschedlab:sweeps/elise_small.yaml --out ''", 2, "'--out' / '-o': the path is empty"),
    ("study-reproduce-out-empty", "study reproduce --out ''", 2, "'--out': the path is empty"),
    ("insitu-reproduce-out-empty", "insitu reproduce --out ''", 2, "'--out': the path is empty"),
    ("compare-jobs-dask-local", "compare spec.yaml --out ex1 -j 3 --executor dask-local:1", 2, "--jobs 3 is for the local executor; --executor dask-local:1 has workers of its own: give --executor dask-local:3"),
    ("compare-jobs-dask", "compare spec.yaml --out ex1 -j 3 --executor dask:tcp://127.0.0.1:1", 2, "--executor dask:tcp://127.0.0.1:1 has workers of its own: drop --jobs"),
    ("coupled-jobs-spec-executor", "coupled compare cpl_exec2.yaml --out ex1 -j 3", 2, "the spec's 'executor' dask-local:2 has workers of its own"),
    ("compare-executor-kind", "compare spec.yaml --out ex1 --executor spark:x", 2, "must be one of local, dask"),
    ("compare-executor-noaddr", "compare spec.yaml --out ex1 --executor dask", 2, "needs a scheduler address"),
    ("compare-executor-nofile", "compare spec.yaml --out ex1 --executor dask:nosuch.json", 2, "no scheduler file nosuch.json"),
    ("compare-executor-workers", "compare spec.yaml --out ex1 --executor dask-local:0", 2, "1 to 4096 workers"),
    ("compare-executor-workers-text", "compare spec.yaml --out ex1 --executor dask-local:two", 2, "needs a whole number"),
    ("compare-executor-local-opts", "compare spec.yaml --out ex1 --executor local:4", 2, "local takes no options"),
    ("compare-executor-slurm-min", "compare spec.yaml --out ex1 --executor slurm:cores=2", 2, "give at least cores=N and memory=SIZE"),
    ("compare-executor-slurm-key", "compare spec.yaml --out ex1 --executor slurm:cores=2,memory=1GB,colour=red", 2, "unknown option 'colour'"),
    ("compare-executor-slurm-int", "compare spec.yaml --out ex1 --executor pbs:cores=two,memory=1GB", 2, "cores must be a whole number"),
    ("compare-executor-slurm-kv", "compare spec.yaml --out ex1 --executor slurm:cores", 2, "expected key=value"),
    ("compare-executor-slurm-memory", "compare spec.yaml --out ex1 --executor slurm:cores=2,memory=lots", 2, "memory must be a size such as 4GB"),
    ("compare-executor-slurm-walltime", "compare spec.yaml --out ex1 --executor slurm:cores=2,memory=1GB,walltime=forever", 2, "walltime must be HH:MM:SS"),
    ("compare-executor-slurm-processes", "compare spec.yaml --out ex1 --executor slurm:cores=2,memory=1GB,processes=4", 2, "processes (4) must be at most cores (2)"),
    ("compare-executor-slurm-skip-empty", "compare spec.yaml --out ex1 --executor slurm:cores=2,memory=1GB,skip=", 2, "expected key=value, got 'skip='"),
    ("workflows-executor-kind", "workflows compare wf_ok.yaml --executor spark:x", 2, "must be one of local, dask"),
    ("workflows-executor-key", "workflows compare wf_exec.yaml", 2, "wf_exec.yaml:7: 'executor' must be one of local, dask"),
    ("coupled-executor-key", "coupled compare cpl_exec.yaml", 2, "'executor' dask-local:N needs 1 to 4096 workers"),
    ("coupled-executor-kind", "coupled compare cpl_ok.yaml --executor dask-local:-1", 2, "1 to 4096 workers"),
    ("compare-fresh-foreign", "compare spec.yaml --out prev --fresh", 2, "not a comparison output"),
    ("compare-huge-repetitions", "compare huge_reps.yaml --out h1", 2, "'repetitions' must be <= 1,000, got 1,000,000,000"),
    ("compare-huge-seed", "compare huge_seed.yaml --out h1", 2, "'seed' must be <= 9,223,372,036,854,775,807"),
    ("compare-huge-nodes", "compare huge_nodes.yaml --out h1", 2, "'cluster.nodes' must be <= 10,000,000"),
    ("compare-huge-pool-jobs", "compare huge_jobs.yaml --out h1", 2, "'workloads[0].jobs' must be <= 5,000,000"),
    ("simulate-broken-gzip-stream", "simulate broken.swf.gz", 2, "broken gzip file"),
    ("workflows-no-bundled-spec", "workflows compare coschedlab:sweeps/nosuch.yaml", 2, "no bundled data file 'sweeps/nosuch.yaml'"),
    ("coupled-bundled-escape", "coupled compare coschedlab:../../etc/passwd", 2, "no bundled data file"),
    ("insitu-generate-out-exists", "insitu generate --simulations 2 --analyses 2 --data 1 --nodes 8 --out afile", 2, "already exists"),
    ("insitu-gantt-exists", "insitu simulate ens.yaml --gantt afile", 2, "--gantt afile already exists"),
    ("insitu-reproduce-out-file", "insitu reproduce --out afile --steps 2", 2, "not a directory"),
    ("insitu-reproduce-out-result", "insitu reproduce --out prev --steps 2", 2, "not a reproduction directory"),
    # an --out that cannot be made is named as such (not its parent, as "No such file")
    ("compare-out-uncreatable", "compare spec.yaml --out /proc/nope", 2, "--out /proc/nope cannot be created (/proc: "),
    ("workflows-out-uncreatable", "workflows compare wf_ok.yaml --out /proc/nope", 2, "--out /proc/nope cannot be created (/proc: "),
    ("coupled-out-uncreatable", "coupled compare cpl_ok.yaml --out /proc/nope", 2, "--out /proc/nope cannot be created (/proc: "),
    ("study-reproduce-out-uncreatable", "study reproduce --out /proc/nope", 2, "--out /proc/nope cannot be created (/proc: "),
    ("insitu-reproduce-out-uncreatable", "insitu reproduce --out /proc/nope --steps 2", 2, "--out /proc/nope cannot be created (/proc: "),
    ("elise-out-uncreatable", "elise run el_ok.yaml --out /proc/nope", 2, "--out /proc/nope cannot be created (/proc: "),
    # -- traces -----------------------------------------------------------------------------
    ("name-with-a-line-end", "simulate 'no\nsuch.swf' --out o1", 2, "no\\nsuch.swf: No such file or directory"),  # one line: the name's line end escaped
    ("swf-missing", "simulate missing.swf --out o1", 2, "missing.swf"),
    ("swf-huge-submit", "simulate huge_submit.swf --out o1", 2, "huge_submit.swf:4: field 2 (submit time) is 1e+30"),
    ("swf-huge-procs", "simulate huge_procs.swf --out o1", 2, "huge_procs.swf:4: field 8"),
    ("swf-huge-user", "simulate huge_user.swf --out o1", 2, "huge_user.swf:4: field 12 (user) is 3e+09, beyond the sane range (|value| <= 2,147,483,647)"),
    ("swf-text-field", "simulate text_field.swf --out o1", 2, "text_field.swf:5"),
    ("swf-binary", "simulate binary.swf --out o1", 2, "binary.swf"),
    ("swf-bzip2", "simulate trace.swf.bz2 --out o1", 2, "trace.swf.bz2: a bzip2-compressed file: coschedlab reads plain text or gzip; unpack it first (bunzip2 -k trace.swf.bz2)"),
    ("swf-xz", "simulate trace.swf.xz --out o1", 2, "trace.swf.xz: an xz-compressed file: coschedlab reads plain text or gzip; unpack it first (unxz -k trace.swf.xz)"),
    ("swf-zip", "simulate trace.zip --out o1", 2, "trace.zip: a zip archive: coschedlab reads plain text or gzip; unpack it first (unzip trace.zip)"),
    ("pool-bzip2", "simulate small.swf --pool trace.swf.bz2 --out o1", 2, "trace.swf.bz2: a bzip2-compressed file"),
    ("coupled-system-xz", "coupled simulate --system trace.swf.xz --system small.swf:name=b --out o1", 2, "trace.swf.xz: an xz-compressed file"),
    ("swf-nul-in-field", "simulate nul_field.swf --out o1", 2, "nul_field.swf:4: field 4 (run time) is '60\\x00', not a number"),
    ("swf-overflowing-number", "simulate overflow_run.swf --out o1", 2, "overflow_run.swf:5: field 4 (run time) is '1e309', not a finite number"),
    ("swf-nodes-zero", "simulate small.swf --nodes 0 --out o1", 2, "--nodes"),
    # a new user's pass (2026-11-28): a newcomer's typos and mistakes, each one line naming what and where
    ("nu-swf-short-line", "simulate nu_short.swf --out o1", 2, "error: nu_short.swf:4: has 6 fields, SWF needs 18"),
    ("nu-swf-extra-field", "simulate nu_extra.swf --out o1", 2, "error: nu_extra.swf:4: has 19 fields, SWF needs 18"),
    ("nu-swf-hash-comment", "simulate nu_hash.swf --out o1", 2, "nu_hash.swf:4: has 19 fields, SWF needs 18 (a comment? SWF comment lines start with ';')"),
    ("nu-swf-commas", "simulate nu_commas.swf --out o1", 2, "nu_commas.swf:4: has 1 field, SWF needs 18 (SWF separates its fields by spaces, not commas)"),
    ("nu-swf-fractional-procs", "simulate nu_frac.swf --out o1", 2, "nu_frac.swf:4: field 5 (allocated processors) is '2.5', not an integer"),
    ("nu-swf-negative-submit", "simulate nu_negsub.swf --out o1", 2, "nu_negsub.swf:4: field 2 (submit time) is -5"),
    ("nu-swf-wide-strict", "simulate nu_wide.swf --strict --out o1", 2, "job 2 cannot run: larger than the machine"),
    ("nu-swf-empty", "simulate nu_empty.swf --out o1", 2, "nu_empty.swf: the file is empty, expected SWF job lines"),
    ("nu-swf-comments-only", "simulate nu_comments.swf --out o1", 2, "nu_comments.swf: no job lines found (only comments or blank lines)"),
    ("nu-bundled-typo", "simulate coschedlab:KTH-SP2.swf.gz --out o1", 2, "no bundled data file 'KTH-SP2.swf.gz' (`coschedlab data` lists them)"),
    ("nu-sched-typo", "simulate small.swf -s eassy --out o1", 2, "unknown scheduler 'eassy'; choose one of"),
    ("nu-sched-upper-case", "simulate small.swf -s EASY --out o1", 2, "or give a path to a .py file; did you mean 'easy'?"),
    ("nu-sched-comma-list", "simulate small.swf -s fcfs,easy --out o1", 2, "unknown scheduler 'fcfs,easy'"),
    ("nu-sched-option-typo", "simulate small.swf -s easy:dept=5 --out o1", 2, "scheduler 'easy' has no option 'dept' (options: extra, depth, interval, order); did you mean 'depth'?"),
    # hostile21: a typo'd option or name is told its closest match
    ("slurm-option-typo", "simulate small.swf -s slurm:bf_intreval=30 --out o1", 2, "scheduler 'slurm' has no option 'bf_intreval' (options: priority,"),
    ("slurm-option-typo-hint", "simulate small.swf -s slurm:bf_intreval=30 --out o1", 2, "sched_phase, conf); did you mean 'bf_interval'?"),
    # hostile21: a sweep spec given to another sweep command names the command that reads it
    ("compare-a-woas-spec", "compare coschedlab:sweeps/woas_small.yaml --out o1", 2, "unknown key 'machine' (known: name, cluster, output, repetitions, seed, kill_at_walltime, baseline, schedulers, workloads, plots, executor): this is a spec of `coschedlab workflows compare`, not of `coschedlab compare`"),
    ("elise-run-a-coupled-spec", "elise run coschedlab:sweeps/coupled_small.yaml --out o1", 2, "this is a spec of `coschedlab coupled compare`, not of `coschedlab elise run`"),
    ("workflows-compare-an-elise-file", "workflows compare coschedlab:sweeps/elise_small.yaml --out o1", 2, "this is a spec of `coschedlab elise run`, not of `coschedlab workflows compare`"),
    # hostile22: a spec of `study run` or `insitu plan` (no sweep) given to another command is named too
    ("compare-a-study-spec", "compare coschedlab:helium_study.yaml --out o1", 2, "helium_study.yaml:21: unknown key 'design' (known: name, cluster, output, repetitions, seed, kill_at_walltime, baseline, schedulers, workloads, plots, executor): this is a spec of `coschedlab study run`, not of `coschedlab compare`"),
    ("compare-an-ensemble", "compare ens.yaml --out o1", 2, "ens.yaml:6: unknown key 'platform' (known: name, cluster,"),
    ("compare-an-ensemble-named", "compare ens.yaml --out o1", 2, "this is a spec of `coschedlab insitu plan`, not of `coschedlab compare`"),
    ("study-run-an-ensemble", "study run ens.yaml --out o1", 2, "ens.yaml:6: unknown key 'platform' (known: name, design,"),
    ("study-run-an-ensemble-named", "study run ens.yaml --out o1", 2, "this is a spec of `coschedlab insitu plan`, not of `coschedlab study run`"),
    ("study-run-a-coupled-spec", "study run coschedlab:sweeps/coupled_small.yaml --out o1", 2, "this is a spec of `coschedlab coupled compare`, not of `coschedlab study run`"),
    ("insitu-plan-a-study-spec", "insitu plan coschedlab:helium_study.yaml", 2, "helium_study.yaml:20: unknown key 'name' (known: platform, n_steps, simulations, analyses, mapping, allocation): this is a spec of `coschedlab study run`, not of `coschedlab insitu plan`"),
    ("insitu-simulate-a-woas-spec", "insitu simulate coschedlab:sweeps/woas_small.yaml", 2, "this is a spec of `coschedlab workflows compare`, not of `coschedlab insitu simulate`"),
    # hostile22: a value given to a flag (its help showed <bool>) names the flag
    ("flag-given-a-value", "simulate small.swf --kill-at-walltime true --out o1", 2, "error: --kill-at-walltime is a flag: it takes no value (got 'true'); give --kill-at-walltime alone, or leave it out (see coschedlab simulate --help)"),
    ("flag-given-a-value-in-a-group", "workflows simulate nosuch --force 1", 2, "--force is a flag: it takes no value (got '1')"),
    ("extra-argument-not-after-a-flag", "simulate small.swf extra --out o1", 2, "error: Got unexpected extra argument(s) (extra) (see coschedlab simulate --help)"),
    ("sched-a-file-not-py", "simulate small.swf -s afile --out o1", 2, "error: scheduler 'afile' is not a scheduler's name, and a file given as a scheduler must be a policy written in Python (.py)"),
    ("sched-the-trace-as-scheduler", "simulate small.swf -s small.swf --out o1", 2, "scheduler 'small.swf' is not a scheduler's name"),
    ("sched-far-from-any-name", "simulate small.swf -s zzz --out o1", 2, "slurm or give a path to a .py file"),
    ("nu-coloc-without-pool", "simulate small.swf -s easy-coloc --out o1", 2, "scheduler easy-coloc needs shared nodes (give a pool)"),
    ("nu-pool-not-json", "simulate small.swf --pool small.swf -s easy-coloc --out o1", 2, "small.swf:1: not valid JSON"),
    ("nu-nodes-text", "simulate small.swf --nodes abc --out o1", 2, "Invalid value for '--nodes'"),
    ("nu-validate-missing", "validate nosuch", 2, "nosuch: no such file or directory"),
    ("nu-compare-key-typo", "compare nu_key.yaml --out o1", 2, "nu_key.yaml:2: unknown key 'schedulrs' (did you mean 'schedulers'?)"),
    ("nu-compare-workload-key-typo", "compare nu_wkey.yaml --out o1", 2, "nu_wkey.yaml:4: unknown key 'workloads[0].nme' (did you mean 'name'?)"),
    ("nu-compare-sched-typo", "compare nu_sched.yaml --out o1", 2, "nu_sched.yaml:2: 'schedulers[1]': unknown scheduler 'eassy'"),
    ("nu-compare-limit-text", "compare nu_limit.yaml --out o1", 2, "nu_limit.yaml:4: 'workloads[0].limit' must be an integer, got '2x'"),
    ("nu-compare-coloc-on-trace", "compare nu_coloc.yaml --out o1", 2, "nu_coloc.yaml:2: 'schedulers[1]' (easy-coloc) needs shared nodes, which workload 't' does not give"),
    ("nu-compare-trace-typo", "compare nu_trace.yaml --out o1", 2, "nu_trace.yaml:4: 'workloads[0].trace': no such file"),
    # -- schedulers and policies ----------------------------------------------------------
    ("sched-unknown", "simulate small.swf -s nosuch --out o1", 2, "unknown scheduler 'nosuch'"),
    ("sched-option-no-value", "simulate small.swf -s easy:depth --out o1", 2, "'depth' in 'easy:depth' has no value"),
    ("sched-option-empty", "simulate small.swf -s easy:depth= --out o1", 2, "depth"),
    ("sched-option-nan", "simulate small.swf -s easy:interval=nan --out o1", 2, "interval"),
    ("sched-option-twice", "simulate small.swf -s easy:depth=3,depth=4 --out o1", 2, "given twice"),
    ("sched-option-unknown", "simulate small.swf -s easy:speed=3 --out o1", 2, "no option 'speed'"),
    ("policy-exits", "simulate small.swf -s exits.py --out o1", 2, "exits.py:8: scheduler p failed at t=0: exit(0) called"),
    ("policy-raises", "simulate small.swf -s raises.py --out o1", 2, "raises.py:8: scheduler p failed at t=0: ZeroDivisionError"),
    ("policy-loops", "simulate small.swf -s forever.py --pass-timeout 0.5 --out o1", 2, "took more than 0.5 s"),
    ("policy-sleeps", "simulate small.swf -s sleeps.py --pass-timeout 0.5 --out o1", 2, "pass time limit"),
    ("pass-timeout-negative", "simulate small.swf --pass-timeout -1 --out o1", 2, "--pass-timeout"),
    ("policy-wakes-in-a-livelock", "simulate small.swf -s wakes_tiny.py --out o1", 2, "passes in a row from t=20 to t=20.001, each woken by the policy alone (view.wake_at) and starting nothing, less than 0.001 s apart on average: a livelock; fix the policy or raise the limit with --wake-limit N (0: no limit)"),
    ("policy-wakes-in-a-livelock-limit", "simulate small.swf -s wakes_tiny.py --wake-limit 1000 --out o1", 2, "error: scheduler p: 1,000 passes in a row from t=20 to t=20"),
    ("policy-wakes-in-the-past", "simulate small.swf -s wakes_past.py --out o1", 2, "wakes_past.py:8: scheduler p failed at t=0: ValueError: view.wake_at(-1.0) asks for a pass in the past (now is t=0.0)"),
    ("policy-wakes-at-nan", "simulate small.swf -s wakes_nan.py --out o1", 2, "wakes_nan.py:8: scheduler p failed at t=0: ValueError: view.wake_at(nan) asks for a pass at no time (NaN)"),
    ("wake-limit-negative", "simulate small.swf --wake-limit -1 --out o1", 2, "--wake-limit must be a whole number of passes from 0 (no limit) to 10^15, got -1"),
    ("wake-limit-text", "simulate small.swf --wake-limit many --out o1", 2, "'--wake-limit'"),
    ("policy-clears-running-list", "simulate small.swf -s clears_running.py --out o1", 2, "clears_running.py:8: scheduler p failed at t=0: TypeError: descriptor 'clear' for 'list' objects doesn't apply to a 'coschedlab.engine.view.FrozenList' object"),
    ("policy-sorts-queue-in-place", "simulate small.swf -s sorts_queue.py --out o1", 2, "sorts_queue.py:8: scheduler p failed at t=0: TypeError: descriptor 'sort' for 'list' objects doesn't apply"),
    ("policy-missing", "simulate small.swf -s nothere.py --out o1", 2, "nothere.py does not exist"),
    ("policy-exits-at-import", "simulate small.swf -s exits_at_import.py --out o1", 2, "exits_at_import.py:2: fails to import: exit(0) called"),
    ("policy-init-raises", "simulate small.swf -s init_raises.py --out o1", 2, "init_raises.py:5: scheduler 'init_raises' fails to start: RuntimeError: no licence"),
    ("policy-returns-number", "simulate small.swf -s returns_number.py --out o1", 2, "returns_number.py:7: scheduler p returned 5 at t=0 from schedule(), not a list"),
    ("policy-returns-text", "simulate small.swf -s returns_text.py --out o1", 2, "returned 'abc' at t=0 from schedule(), not a list"),
    ("policy-returns-float", "simulate small.swf -s returns_float.py --out o1", 2, "returned 0.0 at t=0 as a decision"),
    ("policy-generator-raises", "simulate small.swf -s returns_failing_generator.py --out o1", 2, "returns_failing_generator.py:8: scheduler p failed at t=0: ZeroDivisionError"),
    ("policy-returns-none", "simulate small.swf -s returns_none.py --out o1", 2, "returned None at t=0 as a decision"),
    ("policy-raises-base-exception", "simulate small.swf -s raises_base.py --out o1", 2, "raises_base.py:8: scheduler p failed at t=0: Odd: odd"),
    ("policy-raises-generator-exit", "simulate small.swf -s raises_generator_exit.py --out o1", 2, "raises_generator_exit.py:8: scheduler p failed at t=0: GeneratorExit"),
    ("policy-raises-unprintable", "simulate small.swf -s raises_unprintable.py --out o1", 2, "raises_unprintable.py:8: scheduler p failed at t=0: Mute: (its message cannot be printed: ZeroDivisionError)"),
    ("policy-starts-a-job-twice", "simulate small.swf -s starts_twice.py --out o1", 2, "starts_twice.py:7: scheduler p started job 1, which is not queued"),
    ("policy-writes-a-view-table", "simulate small.swf -s writes_view_table.py --out o1", 2, "writes_view_table.py:8: scheduler p failed at t=0: TypeError: 'coschedlab.engine.kernel._Sealed' object does not support item assignment"),
    ("policy-reads-remaining-blind", "simulate small.swf -s reads_remaining.py --out o1", 2, "scheduler p failed at t=0: ReadOnlyError: actual run times are for a policy that declares clairvoyant = True"),
    ("policy-reduces-the-view", "simulate small.swf -s reduces_view.py --out o1", 2, "reduces_view.py:8: scheduler p failed at t=0: TypeError: cannot pickle"),
    ("slurm-own-order", "simulate small.swf -s slurm_own_order.py --out o1", 2, "slurm_own_order.py:7: scheduler p overrides ordered_queue, which Slurm never calls: it orders its queue by its priority"),
    ("coloc-own-order", "simulate trace.swf --pool pool.json -s coloc_own_order.py --out o1", 2, "coloc_own_order.py:7: scheduler p overrides ordered_queue, which CoScheduler never calls: it orders its queue by deploy_order"),
    ("setup-skips-super", "simulate small.swf -s setup_skips_super.py --out o1", 2, "setup_skips_super.py:7: scheduler p's setup does not call super().setup(view): its compiled pass is never made"),
    ("slurm-former-method", "simulate small.swf -s slurm_former_method.py --out o1", 2, "slurm_former_method.py:7: scheduler p overrides _main, which Slurm's pass does not call (it is compiled): override schedule to write a pass of your own"),
    ("coloc-former-method", "simulate trace.swf --pool pool.json -s coloc_former_method.py --out o1", 2, "coloc_former_method.py:7: scheduler p overrides _backfill, which the co-schedulers' pass does not call (it is compiled): override schedule to write a pass of your own"),
    ("bester-former-method", "simulate trace.swf --pool pool.json -s bester_former_method.py --out o1", 2, "bester_former_method.py:7: scheduler p overrides choose, which the co-schedulers' pass does not call (it is compiled): override schedule to write a pass of your own"),
    ("slurm-skips-super", "simulate small.swf -s slurm_skips_super.py --out o1", 2, "slurm_skips_super.py:7: scheduler p's setup does not call super().setup(view): its compiled pass is never made"),
    ("coloc-skips-super", "simulate trace.swf --pool pool.json -s coloc_skips_super.py --out o1", 2, "coloc_skips_super.py:7: scheduler p's setup does not call super().setup(view): its compiled pass is never made"),
    ("ranks-skips-super", "simulate trace.swf --pool pool.json -s ranks_skips_super.py --out o1", 2, "ranks_skips_super.py:7: scheduler p's setup does not call super().setup(view): its compiled pass is never made"),
    ("calls-super-schedule", "simulate small.swf -s calls_super_schedule.py --out o1", 2, "calls_super_schedule.py:8: scheduler p failed at t=0: NotImplementedError: p's pass is compiled and has no Python schedule()"),
    ("policy-same-name", "simulate small.swf -s fifo1.py -s fifo2.py --out o1", 2, "both describe themselves as 'p'"),
    ("sched-twice", "simulate small.swf -s easy -s easy --out o1", 2, "both describe themselves as 'easy'"),
    ("policy-a-folder", "simulate small.swf -s mydocs/sub --out o1", 2, "scheduler file mydocs/sub is not a Python file"),
    ("out-current-dir", "simulate small.swf --out .", 2, "--out . is the current directory"),
    ("nodes-huge", "simulate small.swf --nodes 99999999999999999999 --out o1", 2, "cluster nodes must be at most 10,000,000"),
    ("header-nodes-huge", "simulate huge_header.swf --out o1", 2, "huge_header.swf: the header's machine: cluster nodes must be at most"),
    ("trace-device", "simulate /dev/zero --nodes 4 --out o1", 2, "/dev/zero: is a device, not a file"),
    ("dependency-cycle", "simulate cycle.swf --dependencies --out o1", 2, "cycle.swf: jobs 1 -> 2 -> 1 wait for each other"),
    ("validate-max-errors-zero", "validate overlap.csv --nodes 4 --max-errors 0", 2, "--max-errors must be at least 1"),
    ("validate-pool-without-trace", "validate prev --pool pool.json", 2, "error: --pool goes with --trace (the jobs' applications are in the trace)"),
    ("validate-pool-not-json", "validate prev --trace small.swf --pool small.swf", 2, "small.swf:1: not valid JSON"),
    ("validate-huge-alloc", "validate huge_alloc.csv --nodes 4", 2, "huge_alloc.csv:2: allocated_resources: bad node list"),
    ("validate-huge-res", "validate huge_res.csv --nodes 4", 2, "huge_res.csv:2: requested_number_of_resources is 9999999999999999999999, beyond the sane range"),
    ("validate-huge-time", "validate huge_time.csv --nodes 4", 2, "huge_time.csv:2: starting_time is 1e300, beyond the sane range"),
    ("validate-inf-nodes", "validate inf_nodes", 2, "inf_nodes/metrics.json: bad cluster"),
    ("compare-label-dots", "compare label_dots.yaml --out o1", 2, "label '..' cannot name a folder"),
    ("compare-name-reserved", "compare name_runs.yaml --out o1", 2, "'runs.csv' is reserved for an output"),
    ("generate-arrival-huge", "generate --pool pool.json --nodes 4 --cores-per-node 4 --arrival poisson:1e300 --jobs 3 --out g.swf", 2, "beyond the 1e+10 s a trace may span"),
    # -- co-location ------------------------------------------------------------------------
    ("pool-empty-loads", "simulate trace.swf --pool emptyloads.json --out o1", 2, "emptyloads.json: the pool has no applications"),
    ("pool-unknown-apps-strict", "simulate small.swf --pool pool.json --strict --out o1", 2, "the pool does not know"),
    ("generate-seed-negative", "generate --pool pool.json --seed -1 --out g.swf", 2, "--seed"),
    ("generate-procs-text", "generate --pool pool.json --nodes 4 --cores-per-node 4 --procs abc --out g.swf", 2, "--procs takes whole numbers"),
    ("generate-no-pool", "generate --out g.swf", 2, "--pool"),
    # -- damaged results --------------------------------------------------------------------
    ("validate-empty-dir", "validate empty", 2, "empty: no jobs.parquet"),
    ("validate-truncated-json", "validate truncated", 2, "truncated/metrics.json:1: not valid JSON (Expecting value, column 13)"),
    ("validate-corrupt-parquet", "validate corrupt", 2, "corrupt/jobs.parquet"),
    ("report-out-file", "report prev --out afile", 2, "--out afile exists and is not a directory"),
    ("report-out-not-ours", "report prev --out notours", 2, "notours/notes.txt"),
    ("report-window-bad", "report prev --out rep --from 2x", 2, "--from: '2x' is not a time"),
    ("report-window-huge", "report prev --from 1e308 --out rep", 2, "--from: 1.157e+303 days is after the end of every run"),
    ("simulate-swf-integers-out-file", "simulate small.swf --swf-integers --out afile", 2, "afile"),
    ("report-empty-dir", "report empty --out rep", 2, "empty: no metrics.json"),
    ("report-mistyped-dir", "report prve --out rep", 2, "prve: no such directory"),
    ("report-a-trace", "report small.swf --out rep", 2, "small.swf is a file, not a directory; give a directory written by simulate"),  # audit17: said 'no such directory'
    ("report-truncated-json", "report truncated --out rep", 2, "truncated/metrics.json:1: not valid JSON (Expecting value, column 13)"),
    ("report-corrupt-parquet", "report corrupt --out rep", 2, "corrupt/jobs.parquet: not a readable Parquet file"),
    ("report-foreign-json", "report foreign --out rep", 2, "foreign/metrics.json: not a coschedlab metrics.json"),
    # -- specs ------------------------------------------------------------------------------
    ("compare-non-utf8", "compare nonutf8.yaml", 2, "nonutf8.yaml:1: not UTF-8"),
    ("insitu-non-utf8", "insitu plan nonutf8.yaml", 2, "nonutf8.yaml"),
    ("insitu-node-alloc-bad", "insitu plan ens.yaml --node-alloc xx", 2, "--node-alloc: unknown heuristic 'xx'"),
    ("insitu-node-alloc-ignored", "insitu plan ens.yaml --node-alloc ev", 2, "would be ignored"),
    ("insitu-scenario-bad", "insitu plan ens.yaml --scenario xx", 2, "ens.yaml: --scenario: unknown scenario"),
    ("insitu-generate-seed", "insitu generate --simulations 2 --analyses 2 --data 1 --nodes 8 --seed -1", 2, "--seed"),
    ("insitu-generate-steps", "insitu generate --simulations 2 --analyses 2 --data 1 --nodes 8 --steps 0", 2, "--steps must be >= 1"),
    ("insitu-generate-data-nan", "insitu generate --simulations 2 --analyses 2 --data nan --nodes 8", 2, "--data"),
    ("insitu-reproduce-steps", "insitu reproduce --out rr --steps 0", 2, "--steps must be >= 1"),
    ("insitu-reproduce-trials", "insitu reproduce --out rr --trials 0", 2, "--trials"),
    ("insitu-reproduce-sweep", "insitu reproduce --out rr --sweeps foo", 2, "--sweeps: unknown sweep 'foo'"),
    ("insitu-gantt-steps", "insitu simulate ens.yaml --gantt g.png --gantt-steps 0", 2, "--gantt-steps"),
    ("insitu-rounding-bad", "insitu plan ens.yaml --scenario ideal --rounding up", 2, "--rounding: unknown rounding 'up'"),
    ("insitu-alloc-bw-bad", "insitu plan ens.yaml --scenario ideal --alloc-bandwidth B9", 2, "--alloc-bandwidth: unknown bandwidth model 'B9'"),
    ("insitu-io-bad", "insitu simulate ens.yaml --io buffered", 2, "--io: unknown I/O model 'buffered'"),
    ("insitu-reproduce-alloc-bw", "insitu reproduce --out rr --alloc-bandwidth X", 2, "--alloc-bandwidth: unknown bandwidth model 'X'"),
    ("insitu-reproduce-steps-huge", "insitu reproduce --out rr --steps 100000000", 2, "--steps: 100,000,000 steps x 160 simulations and analyses is too long to simulate"),
    ("insitu-reproduce-trials-huge", "insitu reproduce --out rr --trials 100000000", 2, "--trials must be at most 1,000"),
    ("insitu-simulate-steps-huge", "insitu simulate ens_long.yaml", 2, "ens_long.yaml: 100,000,000 steps x 6 simulations and analyses is too long"),
    ("insitu-search-jobs-negative", "insitu simulate ens.yaml --search --jobs -2", 2, "--jobs must be at least 1, got -2"),
    ("insitu-search-jobs0", "insitu simulate ens.yaml --search --jobs 0", 2, "--jobs must be at least 1, got 0"),
    ("insitu-generate-huge", "insitu generate --simulations 1000000 --analyses 1000 --data 1 --nodes 1000000", 2, "an ensemble may have at most 10,000"),
    # -- deeply nested YAML: one line, whatever command reads it ------------------------------
    ("compare-deep-yaml", "compare deep.yaml", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("coupled-deep-yaml", "coupled compare deep.yaml", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("workflows-deep-yaml", "workflows compare deep.yaml", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("study-deep-yaml", "study run deep.yaml --out sd", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("insitu-deep-yaml", "insitu plan deep.yaml", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("elise-deep-yaml", "elise run deep.yaml", 2, "deep.yaml: not valid YAML (nested too deeply)"),
    ("study-batch-huge", "study batch --scaling 4:1.95,8:1.14 --jobs 1000000000 --procs 64", 2, "must be a whole number from 0 to 1,000,000"),
    ("compare-executor-not-scheduler-file", "compare spec.yaml --out ex1 --executor dask:pool.json", 2, "pool.json is not a Dask scheduler file"),
    ("swf-negative-procs", "simulate neg_procs.swf --out o1", 2, "neg_procs.swf:4: field 8 (requested processors) is -5: SWF writes -1 for unknown"),
    ("swf-negative-procs-strict", "simulate neg_procs.swf --strict --out o1", 2, "neg_procs.swf:4: field 8 (requested processors) is -5"),
    ("swf-negative-alloc", "simulate neg_alloc.swf --out o1", 2, "neg_alloc.swf:4: field 5 (allocated processors) is -8"),
    ("swf-negative-requested-time", "simulate neg_req_time.swf --out o1", 2, "neg_req_time.swf:4: field 9 (requested time) is -30"),
    ("swf-negative-think-time", "simulate neg_think.swf --dependencies --out o1", 2, "neg_think.swf:5: field 18 (think time) is -50"),
    ("dependency-self", "simulate self_preceding.swf --dependencies --out o1", 2, "self_preceding.swf: job 3 waits for itself"),
    ("sched-option-inf", "simulate small.swf -s easy:interval=inf --out o1", 2, "scheduler option 'interval' in 'easy:interval=inf' is 'inf', not a finite number"),
    ("sched-option-overflow", "simulate small.swf -s easy:depth=1e400 --out o1", 2, "not a finite number"),
    ("report-same-result-twice", "report prev prev --out rep", 2, "prev is given twice: give each result once"),
    ("report-same-result-two-names", "report prev prev/ ./prev --out rep", 2, "prev is given twice"),
    ("heatmap-short-row", "simulate small.swf --heatmap hm_short.csv --compact-times compact.csv --out o1", 2, "hm_short.csv:4: 3 cells where the header has 9"),
    ("workflows-woas-without-priorities", "workflows simulate wl -s easy --mode woas", 2, "--mode woas: mode woas needs the slurm scheduler, not easy"),
    ("workflows-woas-fifo-priority", "workflows simulate wl -s slurm:priority=fifo --mode woas", 2, "--mode woas: mode woas needs slurm's multifactor priority with an age or job-size weight, not slurm:priority=fifo"),
    ("compare-fresh-user-notes", "compare spec.yaml --out cmpnotes --fresh", 2, "holds files coschedlab did not write (cmpnotes/notes.txt); --fresh deleted nothing"),
    # -- found by the hostile pass over issue 27's changes ------------------------------------------
    ("coupled-system-bundled-missing", "coupled simulate --system coschedlab:nosuch.swf --system small.swf", 2, "--system 'coschedlab:nosuch.swf': no bundled data file 'nosuch.swf'"),
    ("coupled-system-bundled-read", "coupled simulate --system coschedlab:pools/lm-aris.compute-SPEC.json:name=a --system small.swf", 2, "error: coschedlab:pools/lm-aris.compute-SPEC.json:1: has 455 fields"),
    ("coupled-compare-bundled-missing", "coupled compare cpl_bundled_missing.yaml", 2, "cpl_bundled_missing.yaml:1: 'large': no bundled data file 'nosuch.swf'"),
    ("coupled-compare-bundled-pool", "coupled compare cpl_bundled_pool.yaml", 2, "'large': coschedlab:pools/lm-aris.compute-SPEC.json:1: has 455 fields"),
    ("coupled-compare-calibrate-file", "coupled compare cpl_calib_file.yaml", 2, "cpl_calib_file.yaml:9: 'calibrate': paper is fitted on large: theta and small: kth"),
    ("coupled-compare-calibrate-label", "coupled compare cpl_calib_label.yaml", 2, "cpl_calib_label.yaml:4: 'loads[0]': calibrate=paper knows the small system's loads"),
    ("bundled-named-in-errors", "workflows show coschedlab:pools/lm-aris.compute-SPEC.json", 2, "error: coschedlab:pools/lm-aris.compute-SPEC.json: a manifest is a JSON object"),
    ("study-batch-procs-huge", "study batch --scaling 4:1.95,8:1.14 -n 6 -p 99999999999999999999", 2, "processors must be at most 10,000,000"),
    ("study-batch-scaling-procs-huge", "study batch --scaling 4:1,99999999999999999999:1 -n 6 -p 32", 2, "processors must be whole numbers from 1 to 10,000,000"),
    ("validate-nodes-huge", "validate overlap.csv --nodes 99999999999", 2, "error: --nodes: cluster nodes must be at most 10,000,000"),
    ("study-batch-scaling-time-huge", "study batch --scaling 4:1e308,8:1e308 -n 6 -p 32", 2, "seconds per timestep on 4 processors must be at most 1e+09"),
    # -- usage errors: one line too ---------------------------------------------------------------
    ("usage-bad-int", "workflows show --max-cores abc montage", 2, "Invalid value for '--max-cores'"),
    ("usage-missing-argument", "workflows show", 2, "Missing argument 'workflow'. (see coschedlab workflows show --help)"),
    ("usage-unknown-option", "simulate small.swf --bogus", 2, "No such option: --bogus"),
    ("usage-unknown-command", "workflows bogus", 2, "No such command 'bogus'"),
    ("usage-seed-float", "workflows generate -w A2 --share 0.1 --seed 1.5", 2, "Invalid value for '--seed'"),
    # -- workflows (WoAS) -------------------------------------------------------------------------
    ("slurm-bad-option", "simulate small.swf -s slurm:bf_interval=0", 2, "option bf_interval must be a positive number"),
    ("slurm-bad-priority", "simulate small.swf -s slurm:priority=fair", 2, "option priority must be one of multifactor, fifo"),
    ("workflows-show-unknown", "workflows show nosuch", 2, "unknown workflow 'nosuch'"),
    ("workflows-show-cycle", "workflows show cycle.json", 2, "cycle.json: workflow cycle: tasks"),
    ("workflows-show-unknown-dep", "workflows show unknown_dep.json", 2, "task a depends on unknown task 'z'"),
    ("workflows-show-bad-xml", "workflows show bad.xml", 2, "not valid XML"),
    ("workflows-show-missing", "workflows show missing.json", 2, "missing.json: no such file"),
    ("workflows-show-stage", "workflows show montage --coarse nosuch", 2, "no task belongs to stage(s) nosuch"),
    ("workflows-show-maxcores", "workflows show montage --max-cores 10", 2, "max_cores applies to a coarsened workflow"),
    ("workflows-show-plot-exists", "workflows show montage --plot afile", 2, "afile already exists"),
    ("workflows-generate-too-big", "workflows generate -w montage --share 0.1 --machine 10x24 --out nw", 2, "needs 960 cores; the machine has 240"),
    ("workflows-generate-share", "workflows generate -w montage --share 10 --out nw", 2, "share must be in (0, 1]"),
    ("workflows-generate-both", "workflows generate -w montage --share 0.1 --period 60 --out nw", 2, "give a workflow share or a period, not both"),
    ("workflows-generate-nowf", "workflows generate --share 0.1 --out nw", 2, "needs at least one workflow"),
    ("workflows-generate-machine", "workflows generate -w montage --share 0.1 --machine big --out nw", 2, "--machine: expected edison or NODESxCORES"),
    ("workflows-generate-seed", "workflows generate -w montage --share 0.1 --seed -1 --out nw", 2, "seed"),
    ("workflows-generate-window", "workflows generate -w A2 --share 0.1 --window 0 --out nw", 2, "window must be a number from 1 to"),
    ("workflows-generate-pressure", "workflows generate -w A2 --share 0.1 --pressure nan --out nw", 2, "pressure must be a number from 0.001 to 100, got nan"),
    ("workflows-generate-period", "workflows generate -w A2 --period -5 --out nw", 2, "period must be a number from 1 to"),
    ("workflows-generate-period-tiny", "workflows generate -w A2 --period 1e-9 --out nw", 2, "period must be a number from 1 to"),
    ("workflows-generate-target-nan", "workflows generate -w A2 --share 0.1 --target-wait nan --out nw", 2, "target_wait must be a number"),
    ("workflows-generate-target-neg", "workflows generate -w A2 --share 0.1 --target-wait -600 --out nw", 2, "target_wait must be a number"),
    ("workflows-generate-window-huge", "workflows generate -w A2 --share 0.1 --window 1e12 --out nw", 2, "window must be a number"),
    ("workflows-generate-machine-huge", "workflows generate -w A2 --share 0.1 --machine 10x99999999999 --out nw", 2, "cores per node 1 to 10^5"),
    ("workflows-generate-no-share", "workflows generate -w A2 --out nw", 2, "give --share or --period"),
    ("workflows-show-A-1", "workflows show A-1", 2, "unknown workflow 'A-1'"),
    ("workflows-show-A-huge", "workflows show A100000000", 2, "group A needs n from 1 to 10000"),
    ("workflows-show-coarse-empty", "workflows show montage --coarse ,,,", 2, "--coarse: give stage names"),
    ("slurm-inherit", "simulate small.swf -s slurm:inherit=1", 2, "has no option 'inherit'"),
    ("slurm-none", "simulate small.swf -s slurm:priority_max_age=none", 2, "option priority_max_age must be a positive number"),
    ("slurm-inf-weight", "simulate small.swf -s slurm:priority_weight_age=1e400", 2, "scheduler option 'priority_weight_age' in 'slurm:priority_weight_age=1e400' is '1e400', not a finite number"),
    ("slurm-bf-interval-none", "simulate small.swf -s slurm:bf_interval=all", 2, "option bf_interval must be a positive number"),
    ("slurm-bf-interval-tiny", "simulate small.swf -s slurm:bf_interval=1e-9", 2, "option bf_interval must be at least 0.01"),
    ("slurm-conf-missing", "simulate small.swf -s slurm:conf=nosuch.conf", 2, "nosuch.conf: no such file"),
    ("slurm-conf-directory", "simulate small.swf -s slurm:conf=empty", 2, "empty: is a directory, not a file"),
    ("slurm-conf-binary", "simulate small.swf -s slurm:conf=conf_binary.conf", 2, "conf_binary.conf: not a text file"),
    ("slurm-conf-bundled", "simulate small.swf -s slurm:conf=coschedlab:nosuch.conf", 2, "no bundled data file 'nosuch.conf'"),
    ("slurm-conf-not-a-path", "simulate small.swf -s slurm:conf=true", 2, "option conf must be a slurm.conf file, got True"),
    ("slurm-conf-malformed", "simulate small.swf -s slurm:conf=conf_malformed.conf", 2, "conf_malformed.conf:2: malformed line: 'this' is not Key=Value"),
    ("slurm-conf-bad-int", "simulate small.swf -s slurm:conf=conf_badint.conf", 2, "conf_badint.conf:1: SchedulerParameters bf_interval='often' is not a whole number"),
    ("slurm-conf-out-of-range", "simulate small.swf -s slurm:conf=conf_range.conf", 2, "conf_range.conf:2: SchedulerParameters bf_window=99999 is out of Slurm's range 1 to 43,200"),
    ("slurm-conf-bad-time", "simulate small.swf -s slurm:conf=conf_badtime.conf", 2, "conf_badtime.conf:1: PriorityMaxAge='2weeks' is not a time"),
    ("slurm-conf-bad-plugin", "simulate small.swf -s slurm:conf=conf_badtype.conf", 2, "conf_badtype.conf:1: PriorityType='priority/fair': PriorityType must be one of priority/basic"),
    ("slurm-conf-include-loop", "simulate small.swf -s slurm:conf=conf_loop.conf", 2, "conf_loop.conf:2: Include conf_loop.conf makes a loop"),
    ("slurm-conf-include-missing", "simulate small.swf -s slurm:conf=conf_include.conf", 2, "conf_include.conf:1: Include nothere.conf: no such file"),
    ("workflows-generate-out-earlier", "workflows generate -w A2 --share 0.1 --out prev", 2, "already holds a result"),
    ("workflows-simulate-not-dir", "workflows simulate afile", 2, "not a workflow workload directory"),
    ("workflows-simulate-not-workload", "workflows simulate prev", 2, "workload.json: no such file"),
    ("workflows-simulate-mode", "workflows simulate wl --mode fast", 2, "unknown mode 'fast'"),
    ("workflows-simulate-scheduler", "workflows simulate wl -s nosuch", 2, "unknown scheduler 'nosuch'"),
    ("workflows-simulate-out-is-input", "workflows simulate wl --out wl --force", 2, "--out is the workload directory"),
    ("workflows-simulate-out-earlier", "workflows simulate wl --out prev", 2, "already holds a result"),
    ("workflows-policy-sleeps", "workflows simulate wl -s sleeps.py --mode chained --pass-timeout 0.5 --out o1", 2, "pass time limit"),
    ("workflows-policy-loops", "workflows simulate wl -s forever.py --mode chained --pass-timeout 0.5", 2, "took more than 0.5 s"),
    ("workflows-pass-timeout-negative", "workflows simulate wl --pass-timeout -1", 2, "--pass-timeout must be a positive number of seconds, got -1"),
    ("workflows-policy-wakes-in-a-livelock", "workflows simulate wl -s wakes_tiny.py --mode chained --wake-limit 1000 --out o1", 2, "each woken by the policy alone (view.wake_at) and starting nothing, less than 0.001 s apart on average: a livelock; fix the policy or raise the limit with --wake-limit N (0: no limit)"),
    ("workflows-wake-limit-negative", "workflows simulate wl --wake-limit -5", 2, "--wake-limit must be a whole number of passes from 0 (no limit) to 10^15, got -5"),
    ("workflows-compare-badkey", "workflows compare wf_badkey.yaml", 2, "unknown key 'colour'"),
    ("workflows-compare-percent", "workflows compare wf_pct.yaml", 2, "is a fraction in (0, 1]"),
    ("workflows-compare-both", "workflows compare wf_both.yaml", 2, "give either 'shares'"),
    ("workflows-compare-unknown", "workflows compare wf_unknown.yaml", 2, "unknown workflow 'nosuch'"),
    ("workflows-compare-scheduler", "workflows compare wf_sched.yaml", 2, "'scheduler': unknown scheduler"),
    ("workflows-compare-machine", "workflows compare wf_machine.yaml", 2, "'machine': expected edison"),
    ("workflows-compare-drain", "workflows compare wf_drain.yaml", 2, "'drain' must be >= 0, got -1"),
    ("workflows-compare-out-file", "workflows compare wf_ok.yaml --out afile", 2, "afile"),
    ("workflows-compare-out-result", "workflows compare wf_ok.yaml --out prev", 2, "not a workflow sweep directory"),
    ("workflows-compare-missing", "workflows compare nosuch.yaml", 2, "nosuch.yaml"),
    # -- studies ---------------------------------------------------------------------------
    ("study-batch-scaling", "study batch --scaling 4:x -n 6 -p 32", 2, "expected PROCESSORS:SECONDS"),
    ("study-batch-file", "study batch --scaling nosuch.csv -n 6 -p 32", 2, "not a file"),
    ("study-batch-dir", "study batch --scaling empty -n 6 -p 32", 2, "is a directory"),
    ("study-batch-csv-line", "study batch --scaling scaling_bad.csv -n 6 -p 32", 2, "scaling_bad.csv:3"),
    ("study-batch-csv-cols", "study batch --scaling scaling_cols.csv -n 6 -p 32", 2, "scaling_cols.csv:1"),
    ("study-batch-twice", "study batch --scaling 4:1,4:2 -n 6 -p 32", 2, "4 processors given twice"),
    ("study-batch-too-small", "study batch --scaling 64:1 -n 6 -p 32", 2, "no tabulated processor count fits 32"),
    ("study-batch-jobs", "study batch --scaling 4:1 -n 2000000 -p 32", 2, "must be a whole number from 0 to 1,000,000"),
    ("study-batch-procs", "study batch --scaling 4:1 -n 6 -p 0", 2, "processors must be a whole number >= 1"),
    ("study-batch-time", "study batch --scaling 4:-2 -n 6 -p 32", 2, "must be a positive number"),
    ("study-run-yaml", "study run st_yaml.yaml --out so", 2, "st_yaml.yaml:2: not valid YAML"),
    ("study-run-missing", "study run nosuch.yaml --out so", 2, "nosuch.yaml"),
    ("study-run-dir", "study run empty --out so", 2, "is a directory"),
    ("study-run-nonutf8", "study run nonutf8.yaml --out so", 2, "not UTF-8"),
    ("study-run-empty", "study run st_empty.yaml --out so", 2, "the spec is empty"),
    ("study-run-list", "study run st_list.yaml --out so", 2, "st_list.yaml:1: 'the spec' must be a mapping"),
    ("study-run-key", "study run st_key.yaml --out so", 2, "st_key.yaml:14: unknown key 'colour'"),
    ("study-run-model-key", "study run st_model_key.yaml --out so", 2, "st_model_key.yaml:13: unknown key 'model.sede' (did you mean 'seed'?)"),
    ("study-run-range-key", "study run st_range_key.yaml --out so", 2, "unknown key 'design.a.step'"),
    ("study-run-design-list", "study run st_design_list.yaml --out so", 2, "st_design_list.yaml:2: 'design' must be a mapping"),
    ("study-run-design-empty", "study run st_design_empty.yaml --out so", 2, "'design' names no parameter"),
    ("study-run-design-novals", "study run st_design_novals.yaml --out so", 2, "st_design_novals.yaml:3: 'design.a' must be a non-empty list"),
    ("study-run-value-text", "study run st_value_text.yaml --out so", 2, "'design.a[1]' must be a finite number, got 'x'"),
    ("study-run-value-nan", "study run st_value_nan.yaml --out so", 2, "'design.a[0]' must be a finite number"),
    ("study-run-value-dup", "study run st_value_dup.yaml --out so", 2, "st_value_dup.yaml:3: 'design.a' lists a value twice"),
    ("study-run-count-huge", "study run st_count_huge.yaml --out so", 2, "'design.a.count' must be at most 10000"),
    ("study-run-count-zero", "study run st_count_zero.yaml --out so", 2, "'design.a.count' must be >= 1"),
    ("study-run-range-back", "study run st_range_back.yaml --out so", 2, "'to' must be above 'from'"),
    ("study-run-range-inf", "study run st_range_inf.yaml --out so", 2, "'design.a.to' must be a finite number"),
    ("study-run-space-huge", "study run st_space_huge.yaml --out so", 2, "more than 1,000,000 designs"),
    ("study-run-reuse-unknown", "study run st_reuse_unknown.yaml --out so", 2, "st_reuse_unknown.yaml:6: 'reuse[0]': 'c' is not a design parameter"),
    ("study-run-reuse-string", "study run st_reuse_string.yaml --out so", 2, "'reuse' must be a non-empty list, got 'velocity'"),
    ("study-run-reuse-dup", "study run st_reuse_dup.yaml --out so", 2, "'reuse' names a parameter twice"),
    ("study-run-objectives-empty", "study run st_obj_empty.yaml --out so --executor real", 2, "'objectives' must be a non-empty list"),
    ("study-run-objectives-dup", "study run st_obj_dup.yaml --out so", 2, "'objectives' names an objective twice"),
    ("study-run-targets-len", "study run st_targets_len.yaml --out so", 2, "'model.targets[0]' needs 2 coordinates"),
    ("study-run-targets-count", "study run st_targets_count.yaml --out so", 2, "'model.targets' has 2 points for 1 objectives"),
    ("study-run-targets-range", "study run st_targets_range.yaml --out so", 2, "'model.targets[0]'"),
    ("study-run-targets-none", "study run st_targets_none.yaml --out so", 2, "missing key 'model.targets'"),
    ("study-run-scaling-none", "study run st_scaling_none.yaml --out so", 2, "st_scaling_none.yaml:8: no tabulated processor count fits 2 processors"),
    ("study-run-scaling-zero", "study run st_scaling_zero.yaml --out so", 2, "'scaling.1' must be > 0"),
    ("study-run-scaling-negp", "study run st_scaling_negp.yaml --out so", 2, "'scaling.-1' must be >= 1"),
    ("study-run-scaling-textp", "study run st_scaling_textp.yaml --out so", 2, "'scaling.x' must be an integer"),
    ("study-run-scaling-file", "study run st_scaling_file.yaml --out so", 2, "nosuch.csv"),
    ("study-run-scaling-csv", "study run st_scaling_csv.yaml --out so", 2, "scaling_bad.csv:3"),
    ("study-run-scaling-list", "study run st_scaling_list.yaml --out so", 2, "st_scaling_list.yaml:7: 'scaling'"),
    ("study-run-procs-zero", "study run st_procs_zero.yaml --out so", 2, "st_procs_zero.yaml:8: 'processors' must be >= 1"),
    ("study-run-procs-huge", "study run st_procs_huge.yaml --out so", 2, "'processors' must be at most 10000000"),
    ("study-run-procs-frac", "study run st_procs_frac.yaml --out so", 2, "'processors' must be an integer, got 2.5"),
    ("study-run-per-run", "study run st_per_run.yaml --out so", 2, "st_per_run.yaml:14: 'per_run' must be a tabulated processor count"),
    ("study-run-every", "study run st_every.yaml --out so", 2, "'checkpoint_every' must be >= 1"),
    ("study-run-restart", "study run st_restart.yaml --out so", 2, "'restart' must be >= 0"),
    ("study-run-restart-nan", "study run st_restart_nan.yaml --out so", 2, "'restart' must be a finite number"),
    ("study-run-step", "study run st_step.yaml --out so", 2, "'step' must be >= 1"),
    ("study-run-config", "study run st_config.yaml --out so", 2, "st_config.yaml:14: 'config' must be one of O, A, B, C, D, E, got 'Z'"),
    ("study-run-config-list", "study run st_config_list.yaml --out so", 2, "'config' must be one of O, A, B, C, D, E, got a list"),
    ("study-run-spread", "study run st_spread.yaml --out so", 2, "'model.spread' must be >= 0"),
    ("study-run-overhead", "study run st_overhead.yaml --out so", 2, "'model.overhead' must be >= 0"),
    ("study-run-slowdown", "study run st_slowdown.yaml --out so", 2, "'model.slowdown.64' must be > 0"),
    ("study-run-preemption-cost", "study run st_pcost.yaml --out so", 2,
     "'model.preemption_cost' must be one of startup, redo, got 'free'"),
    ("study-run-alpha", "study run st_alpha.yaml --out so", 2,
     "'alpha' must be one of scaling, perfect-scaling, got 'ideal'"),
    ("study-run-seed", "study run st_seed.yaml --out so", 2, "'model.seed' must be >= 0"),
    ("study-run-scratch", "study run st_scratch.yaml --out so", 2, "'model.scratch' must be > 0"),
    ("study-run-normalize", "study run st_normalize.yaml --out so", 2, "'model.normalize' must be true or false"),
    ("study-run-model-list", "study run st_model_list.yaml --out so", 2, "'model' must be a mapping"),
    ("study-run-neither", "study run st_neither.yaml --out so", 2, "needs 'model' (simulated) or 'command' (real)"),
    ("study-run-name", "study run st_name.yaml --out so", 2, "'name' must use letters"),
    ("study-run-no-model", "study run st_cmd_only.yaml --out so", 2, "the spec has no 'model'"),
    ("study-run-no-command", "study run st_ok.yaml --out so --executor real", 2, "the spec has no 'command'"),
    ("study-run-cmd-empty", "study run st_cmd_empty.yaml --out so --executor real", 2, "'command' must be a non-empty string"),
    ("study-run-cmd-quote", "study run st_cmd_quote.yaml --out so_quote --executor real", 2, "does not split into words"),
    ("study-run-cmd-fails", "study run st_cmd_fails.yaml --out so_fail --executor real", 2, "exit"),
    ("study-run-cmd-nojson", "study run st_cmd_nojson.yaml --out so_nojson --executor real", 2, "has no \"objectives\" list"),
    ("study-run-cmd-missing", "study run st_cmd_missing.yaml --out so_missing --executor real", 2, "nosuch-program-xyz"),
    ("study-run-config-opt", "study run st_ok.yaml --out so -c Z", 2, "Z"),
    ("study-run-config-empty", "study run st_ok.yaml --out so -c=", 2, "config"),
    ("study-run-executor", "study run st_ok.yaml --out so --executor quantum", 2, "--executor must be simulated or real, got 'quantum'"),
    ("study-run-procs0", "study run st_ok.yaml --out so --procs 0", 2, "--procs must be >= 1, got 0"),
    ("study-run-procs-neg", "study run st_ok.yaml --out so --procs -3", 2, "--procs must be >= 1, got -3"),
    ("study-run-procs-opt-huge", "study run st_ok.yaml --out so --procs 99999999999", 2, "--procs must be at most 10000000"),
    ("study-run-procs-text", "study run st_ok.yaml --out so --procs many", 2, "--procs"),
    ("study-run-procs-small", "study run st_scaling_none.yaml --out so --procs 4", 2, "no tabulated processor count fits"),
    ("study-run-bundled-procs", "study run helium --out so --procs 2", 2, "--procs 2: no tabulated processor count fits (smallest: 4)"),
    ("study-run-out-earlier", "study run st_ok.yaml --out prev", 2, "already holds a result; give --force"),
    ("study-run-out-study", "study run st_ok.yaml --out stres", 2, "already holds a result; give --force"),
    ("study-run-out-file", "study run st_ok.yaml --out afile", 2, "afile"),
    ("study-run-out-under-file", "study run st_ok.yaml --out afile/sub", 2, "afile"),
    ("study-run-out-devnull", "study run st_ok.yaml --out /dev/null", 2, "/dev/null"),
    ("study-run-force-not-ours", "study run st_ok.yaml --out notours --force", 2, "notes.txt"),
    ("study-run-force-user-docs", "study run st_ok.yaml --out mydocs --force", 2, "holds files coschedlab did not write"),
    ("study-run-real-out-earlier", "study run st_cmd_only.yaml --executor real --out prev", 2, "already holds a result; give --force"),
    ("study-run-real-out-file", "study run st_cmd_only.yaml --executor real --out afile", 2, "afile"),
    ("study-run-real-force-not-ours", "study run st_cmd_only.yaml --executor real --out notours --force", 2, "notes.txt"),
    ("study-run-real-out-under-file", "study run st_cmd_only.yaml --executor real --out afile/sub", 2, "afile"),
    ("study-report-missing", "study report nosuch", 2, "nosuch"),
    ("study-report-file", "study report afile", 2, "afile"),
    ("study-report-empty", "study report empty", 2, "not a study result"),
    ("study-report-notours", "study report notours", 2, "not a study result"),
    ("study-report-simulate", "study report prev", 2, "prev"),
    ("study-report-truncated", "study report st_trunc", 2, "st_trunc"),
    ("study-report-runs-csv", "study report st_badcsv", 2, "st_badcsv"),
    ("study-report-no-segments", "study report st_nosegs", 2, "segments.csv is missing"),
    ("study-report-spec-missing", "study report stres --spec nosuch.yaml", 2, "nosuch.yaml"),
    ("study-report-spec-bad", "study report stres --spec st_key.yaml", 2, "unknown key 'colour'"),
    ("study-report-spec-other", "study report stres --spec helium", 2, "do not fit the design space of --spec helium"),
    ("study-reproduce-out-file", "study reproduce --out afile", 2, "afile"),
    ("study-reproduce-out-earlier", "study reproduce --out prev", 2, "not a study reproduction sweep directory"),
    ("study-reproduce-executor", "study reproduce --out sr --executor cloud", 2, "--executor"),
    ("study-reproduce-dask-local0", "study reproduce --out sr --executor dask-local:0", 2, "--executor"),
    ("study-reproduce-jobs0", "study reproduce --out sr --jobs 0", 2, "--jobs must be at least 1"),
    ("study-reproduce-not-ours", "study reproduce --out notours --force", 2, "notes.txt"),
    ("study-reproduce-spec-bad", "study reproduce --out sr --spec st_key.yaml", 2, "unknown key 'colour'"),
    ("study-reproduce-spec-missing", "study reproduce --out sr --spec nosuch.yaml", 2, "nosuch.yaml"),
    ("study-reproduce-no-model", "study reproduce --out sr --spec st_cmd_only.yaml", 2, "no 'model'"),
    # -- the dashboard (refused before it serves anything) -----------------------------------
    ("gui-port", "gui --port 70000", 2, "--port must be 0-65535"),
    ("gui-root-file", "gui --root afile", 2, "must be a directory"),
    ("gui-executor", "gui --executor cloud", 2, "--executor"),
    ("gui-jobs0", "gui --jobs 0", 2, "--jobs must be at least 1"),
    ("gui-window-and-open", "gui --window --open", 2, "--window and --open: choose one"),
    ("gui-token-and-no-token", "gui --token abc --no-token", 2, "--token and --no-token: choose one"),
    ("gui-token-empty", "gui --token=", 2, "--token must be printable text, not empty"),
    ("gui-host-bad", "gui --host 999.1.1.1 --port 0 --root guiroot", 2, "--host 999.1.1.1: not an address of this machine"),
    ("gui-host-not-here", "gui --host 192.0.2.1 --port 0 --root guiroot", 2, "cannot listen on 192.0.2.1:0"),
    # -- coupled systems -------------------------------------------------------------------
    ("coupled-one-system", "coupled simulate --system small.swf", 2, "at least two --system"),
    ("coupled-missing", "coupled simulate --system nosuch.swf --system small.swf", 2, "no such trace file 'nosuch.swf'"),
    ("coupled-dir", "coupled simulate --system empty --system small.swf", 2, "is a directory, not a trace file"),
    ("coupled-bad-line", "coupled simulate --system text_field.swf --system small.swf", 2, "text_field.swf:"),
    ("coupled-key", "coupled simulate --system small.swf:colour=red --system small.swf", 2, "unknown key 'colour'"),
    ("coupled-no-value", "coupled simulate --system small.swf:scheme --system small.swf", 2, "expected key=value"),
    ("coupled-twice", "coupled simulate --system small.swf:nodes=4,nodes=5 --system small.swf", 2, "nodes given twice"),
    ("coupled-scheme", "coupled simulate --system small.swf:scheme=maybe,name=a --system small.swf", 2, "scheme must be hold or yield"),
    ("coupled-nodes0", "coupled simulate --system small.swf:nodes=0,name=a --system small.swf", 2, "nodes must be a whole number >= 1"),
    ("coupled-nodes-text", "coupled simulate --system small.swf:nodes=abc,name=a --system small.swf", 2, "nodes must be a whole number"),
    ("coupled-nodes-small", "coupled simulate --system small.swf:nodes=1,name=a --system small.swf", 2, "3 larger than the machine"),
    ("coupled-cap", "coupled simulate --system small.swf:hold_cap=2,name=a --system small.swf", 2, "hold_cap must be in [0, 1]"),
    ("coupled-release-nan", "coupled simulate --system small.swf:release=nan,name=a --system small.swf", 2, "release must be a number"),
    ("coupled-release-neg", "coupled simulate --system small.swf:release=-5,name=a --system small.swf", 2, "release must be a number >= 0"),
    ("coupled-yields-frac", "coupled simulate --system small.swf:max_yields=1.5,name=a --system small.swf", 2, "max_yields must be a whole number"),
    ("coupled-month", "coupled simulate --system small.swf:month=13,name=a --system small.swf", 2, "month must be 1..12"),
    ("coupled-load", "coupled simulate --system small.swf:load=5,name=a --system small.swf", 2, "load must be in (0, 2]"),
    ("coupled-calibrate-word", "coupled simulate --system small.swf:calibrate=maybe,name=a --system small.swf", 2, "calibrate must be paper or none, got 'maybe'"),
    ("coupled-calibrate-file", "coupled simulate --system small.swf:calibrate=paper,load=0.5,name=a --system small.swf", 2, "calibrate=paper is fitted on theta and kth only"),
    ("coupled-calibrate-theta-load", "coupled simulate --system theta:calibrate=paper,load=0.5 --system small.swf", 2, "calibrate=paper sets theta's load"),
    ("coupled-calibrate-no-label", "coupled simulate --system theta --system kth:calibrate=paper", 2, "calibrate=paper needs load=0.25, 0.5 or 0.75"),
    ("coupled-calibrate-label", "coupled simulate --system theta --system kth:load=0.4,calibrate=paper", 2, "knows the small system's loads 0.25 / 0.5 / 0.75 (the paper's baselines), got 0.4"),
    ("coupled-same-name", "coupled simulate --system small.swf --system small.swf", 2, "are both named 'small'"),
    ("coupled-name-path", "coupled simulate --system small.swf:name=../x --system small.swf", 2, "names a directory of the output"),
    ("coupled-name-reserved", "coupled simulate --system small.swf:name=coupled.json --system small.swf", 2, "names a directory of the output"),
    ("coupled-scheduler", "coupled simulate --system small.swf:name=a --system small.swf -s nosuch", 2, "unknown scheduler"),
    ("coupled-scheduler-empty", "coupled simulate --system small.swf:name=a --system small.swf --scheduler=", 2, "empty scheduler spec"),
    ("coupled-schedulers-3", "coupled simulate --system small.swf:name=a --system small.swf -s easy -s easy -s easy", 2, "one per system (2), got 3"),
    ("coupled-attempt", "coupled simulate --system small.swf:name=a --system small.swf --mate-attempt sometimes", 2, "--mate-attempt must be queued or yielded"),
    ("coupled-paper-nodes", "coupled simulate --system theta:calibrate=paper,nodes=100 --system kth:load=0.5", 2, "calibrate=paper sets the machine"),
    ("coupled-compat", "coupled simulate --system small.swf:name=a --system small.swf --compat qsim", 2, "--compat must be cobalt or none, got 'qsim'"),
    ("coupled-seed", "coupled simulate --system small.swf:name=a --system small.swf --seed -1", 2, "a seed must be an integer"),
    ("coupled-pairs", "coupled simulate --system small.swf:name=a --system small.swf --pairs nearby:3", 2, "unknown pairing 'nearby:3'"),
    ("coupled-vicinity-inf", "coupled simulate --system small.swf:name=a --system small.swf --pairs vicinity:inf", 2, "a finite number of seconds"),
    ("coupled-every0", "coupled simulate --system small.swf:name=a --system small.swf --pairs every:0", 2, "a whole number >= 1"),
    ("coupled-pairs-missing", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:nosuch.csv", 2, "nosuch.csv"),
    ("coupled-pairs-twice", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_twice.csv", 2, "pairs_twice.csv:2: job 1 of system 1 has two mates"),
    ("coupled-pairs-nojob", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_nojob.csv", 2, "pairs_nojob.csv:1: system 1 has no job 9"),
    ("coupled-pairs-same", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_same.csv", 2, "on the same system"),
    ("coupled-pairs-nosys", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_nosys.csv", 2, "no system 3"),
    ("coupled-pairs-text", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_text.csv", 2, "pairs_text.csv:2: expected whole numbers"),
    ("coupled-pairs-empty", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_empty.csv", 2, "no pairs in the file"),
    ("coupled-pairs-split", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_split.csv", 2, "pairs_split.csv:3: a value spans lines"),
    ("coupled-pairs-binary", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_binary.csv", 2, "pairs_binary.csv:"),
    ("coupled-out-file", "coupled simulate --system small.swf:name=a --system small.swf --out afile", 2, "not a directory"),
    ("coupled-out-earlier", "coupled simulate --system small.swf:name=a --system small.swf --out prev", 2, "already holds a result"),
    ("coupled-force-not-ours", "coupled simulate --system small.swf:name=a --system small.swf --out notours --force", 2, "notes.txt"),
    ("coupled-compare-key", "coupled compare cpl_key.yaml", 2, "colour"),
    ("coupled-compare-scheme", "coupled compare cpl_scheme.yaml", 2, "schemes[0]"),
    ("coupled-compare-load0", "coupled compare cpl_load0.yaml", 2, "loads[0]"),
    ("coupled-compare-prop", "coupled compare cpl_prop.yaml", 2, "must be at most 1"),
    ("coupled-compare-nothing", "coupled compare cpl_none.yaml", 2, "nothing to run"),
    ("coupled-compare-seeds", "coupled compare cpl_seeds.yaml", 2, "names a seed twice"),
    ("coupled-compare-sched", "coupled compare cpl_sched.yaml", 2, "'scheduler': unknown scheduler"),
    ("coupled-compare-sched3", "coupled compare cpl_sched3.yaml", 2, "a list of two"),
    ("coupled-compare-cap", "coupled compare cpl_cap.yaml", 2, "hold_cap"),
    ("coupled-compare-month", "coupled compare cpl_month.yaml", 2, "'month' must be 1..12"),
    ("coupled-compare-large", "coupled compare cpl_large.yaml", 2, "no such trace file 'nosuch.swf'"),
    ("coupled-compare-nodes", "coupled compare cpl_nodes.yaml", 2, "'large_nodes': "),
    ("coupled-compare-name", "coupled compare cpl_name.yaml", 2, "'name' must use letters"),
    ("coupled-compare-dup", "coupled compare cpl_dup.yaml", 2, "names a value twice"),
    ("coupled-compare-attempt", "coupled compare cpl_attempt.yaml", 2, "mate_attempt"),
    ("coupled-compare-out-result", "coupled compare cpl_ok.yaml --out prev", 2, "not a coupled sweep directory"),
    ("coupled-compare-no-spec", "coupled compare cpl_ok.yaml --out cplruns", 2, "holds runs but no spec.json"),
    ("coupled-compare-missing", "coupled compare nosuch.yaml", 2, "nosuch.yaml"),
    ("coupled-compare-jobs", "coupled compare cpl_ok.yaml --jobs 0", 2, "--jobs must be at least 1"),
    ("coupled-system-empty", "coupled simulate --system= --system small.swf", 2, "--system '': give a trace"),
    ("coupled-system-no-trace", "coupled simulate --system :name=a --system small.swf", 2, "--system ':name=a': give a trace"),
    ("coupled-system-empty-key", "coupled simulate --system small.swf:=5 --system small.swf:name=b", 2, "expected key=value, got '=5'"),
    ("coupled-system-key-case", "coupled simulate --system small.swf:Scheme=hold,name=a --system small.swf", 2, "unknown key 'Scheme'"),
    ("coupled-system-name-twice", "coupled simulate --system small.swf:name=a,name=a --system small.swf", 2, "name given twice"),
    ("coupled-calibrate-case", "coupled simulate --system small.swf:calibrate=Paper,name=a --system small.swf", 2, "calibrate must be paper or none, got 'Paper'"),
    ("coupled-calibrate-kth-month", "coupled simulate --system kth:calibrate=paper,month=3,load=0.5 --system small.swf", 2, "calibrate=paper runs kth whole at its label's load; drop month="),
    ("coupled-calibrate-kth-nodes", "coupled simulate --system kth:calibrate=paper,nodes=50,load=0.5 --system small.swf", 2, "calibrate=paper sets the machine"),
    ("coupled-calibrate-load-nan", "coupled simulate --system kth:calibrate=paper,load=nan --system small.swf", 2, "load must be a number"),
    ("coupled-calibrate-load-inf", "coupled simulate --system kth:calibrate=paper,load=inf --system small.swf", 2, "load must be a number"),
    ("coupled-load-huge", "coupled simulate --system small.swf:load=1e400,name=a --system small.swf", 2, "load must be a number"),
    ("coupled-load-text", "coupled simulate --system small.swf:load=abc,name=a --system small.swf", 2, "load must be a number"),
    ("coupled-load-zero", "coupled simulate --system small.swf:load=0,name=a --system small.swf", 2, "load must be in (0, 2], got 0"),
    ("coupled-load-negative", "coupled simulate --system small.swf:load=-0.5,name=a --system small.swf", 2, "load must be a number >= 0"),
    ("coupled-month-relative", "coupled simulate --system small.swf:month=3,name=a --system small.swf", 2, "month= picks a calendar month of a trace with epoch submit times"),
    ("coupled-month-kth", "coupled simulate --system kth:month=3 --system small.swf", 2, "--system 'kth:month=3': month= picks a calendar month"),
    ("coupled-month-frac", "coupled simulate --system small.swf:month=1.5,name=a --system small.swf", 2, "month must be a whole number"),
    ("coupled-nodes-huge", "coupled simulate --system small.swf:nodes=99999999999999999999,name=a --system small.swf", 2, "cluster nodes must be at most 10,000,000"),
    ("coupled-cap-huge", "coupled simulate --system small.swf:hold_cap=1e400,name=a --system small.swf", 2, "hold_cap must be a number"),
    ("coupled-age-inf", "coupled simulate --system small.swf:release_age=inf,name=a --system small.swf", 2, "release_age must be a number"),
    ("coupled-yields-neg", "coupled simulate --system small.swf:max_yields=-1,name=a --system small.swf", 2, "max_yields must be a whole number >= 0 or none"),
    ("coupled-scheme-case", "coupled simulate --system small.swf:scheme=HOLD,name=a --system small.swf", 2, "scheme must be hold or yield"),
    ("coupled-compat-case", "coupled simulate --system small.swf:name=a --system small.swf --compat Cobalt", 2, "--compat must be cobalt or none, got 'Cobalt'"),
    ("coupled-compat-empty", "coupled simulate --system small.swf:name=a --system small.swf --compat=", 2, "--compat must be cobalt or none, got ''"),
    ("coupled-scheduler-case", "coupled simulate --system small.swf:name=a --system small.swf -s EASY", 2, "--scheduler 'EASY' (system a): unknown scheduler 'EASY'"),
    ("coupled-scheduler-order", "coupled simulate --system small.swf:name=a --system small.swf -s easy -s easy:order=nosuch", 2, "--scheduler 'easy:order=nosuch' (system small): unknown queue order"),
    ("coupled-scheduler-file", "coupled simulate --system small.swf:name=a --system small.swf -s nothere.py", 2, "--scheduler 'nothere.py' (system a): scheduler file nothere.py does not exist"),
    ("coupled-scheduler-twice", "coupled simulate --system small.swf:name=a --system small.swf -s easy:order=wfp,order=fcfs", 2, "'order' is given twice"),
    ("coupled-attempt-empty", "coupled simulate --system small.swf:name=a --system small.swf --mate-attempt=", 2, "--mate-attempt must be queued or yielded, got ''"),
    ("coupled-pairs-empty-spec", "coupled simulate --system small.swf:name=a --system small.swf --pairs=", 2, "unknown pairing ''"),
    ("coupled-pairs-case", "coupled simulate --system small.swf:name=a --system small.swf --pairs NONE", 2, "unknown pairing 'NONE'"),
    ("coupled-pairs-before-traces", "coupled simulate --system nosuch.swf --system small.swf --pairs vicinty:120", 2, "unknown pairing 'vicinty:120'"),
    ("coupled-pairs-file-empty", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:", 2, "unknown pairing 'file:'"),
    ("coupled-every-neg", "coupled simulate --system small.swf:name=a --system small.swf --pairs every:-3", 2, "every needs a whole number >= 1"),
    ("coupled-every-frac", "coupled simulate --system small.swf:name=a --system small.swf --pairs every:1.5", 2, "every needs a whole number >= 1"),
    ("coupled-vicinity-neg", "coupled simulate --system small.swf:name=a --system small.swf --pairs vicinity:-1", 2, "vicinity needs a finite number of seconds >= 0"),
    ("coupled-vicinity-nan", "coupled simulate --system small.swf:name=a --system small.swf --pairs vicinity:nan", 2, "vicinity needs a finite number of seconds >= 0"),
    ("coupled-proportion-2", "coupled simulate --system small.swf:name=a --system small.swf --pairs proportion:2", 2, "proportion needs a fraction in (0, 1]"),
    ("coupled-proportion-0", "coupled simulate --system small.swf:name=a --system small.swf --pairs proportion:0", 2, "proportion needs a fraction in (0, 1]"),
    ("coupled-proportion-nan", "coupled simulate --system small.swf:name=a --system small.swf --pairs proportion:nan", 2, "proportion needs a fraction in (0, 1]"),
    ("coupled-pairs-three", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_three.csv", 2, "pairs_three.csv:1: expected system,job,system,job or job,job, got 3 values"),
    ("coupled-pairs-sys0", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_sys0.csv", 2, "pairs_sys0.csv:1: no system 0 (there are 2)"),
    ("coupled-pairs-negjob", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_negjob.csv", 2, "pairs_negjob.csv:1: system 1 has no job -1"),
    ("coupled-pairs-float", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:pairs_float.csv", 2, "pairs_float.csv:1: expected whole numbers"),
    ("coupled-pairs-dir", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:empty", 2, "empty: is a directory, not a file"),
    ("coupled-pairs-device", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:/dev/zero", 2, "/dev/zero: is a device, not a file"),
    ("coupled-pairs-jj-three-systems", "coupled simulate --system small.swf:name=a --system small.swf --system small.swf:name=c --pairs file:pairs_fig2.csv", 2, "pairs_fig2.csv:1: expected system,job,system,job, got 2 values"),
    ("coupled-deadlock", "coupled simulate --system fig2a.swf:release=none --system fig2b.swf:release=none --pairs file:pairs_fig2.csv --out dl", 2, "deadlock at t=1 s (day 0.0): 2 jobs wait and these holds wait for each other; fig2a job 1 holds 6 nodes since t=0 for fig2b job 1 (which needs 6 of 10); fig2b job 2 holds 6 nodes since t=0 for fig2a job 2 (which needs 6 of 10) (hold-hold without release: set a release period)"),
    ("coupled-compare-calib-maybe", "coupled compare cpl_calib_maybe.yaml", 2, "cpl_calib_maybe.yaml:7: 'calibrate' must be one of paper, none, got 'maybe'"),
    ("coupled-compare-calib-case", "coupled compare cpl_calib_case.yaml", 2, "cpl_calib_case.yaml:7: 'calibrate' must be one of paper, none, got 'Paper'"),
    ("coupled-compare-calib-bool", "coupled compare cpl_calib_bool.yaml", 2, "cpl_calib_bool.yaml:7: 'calibrate' must be one of paper, none, got True"),
    ("coupled-compare-calib-twin", "coupled compare cpl_calib_twin.yaml", 2, "cpl_calib_twin.yaml:7: 'proportion_load': calibrate=paper knows the twin workload's load 0.5"),
    ("coupled-compare-calib-loads", "coupled compare cpl_calib_loads.yaml", 2, "cpl_calib_loads.yaml:4: 'loads[1]': calibrate=paper knows the small system's loads 0.25 / 0.5 / 0.75 (the paper's baselines), got 0.9"),
    ("coupled-compare-calib-large-nodes", "coupled compare cpl_calib_large_nodes.yaml", 2, "cpl_calib_large_nodes.yaml:8: 'large_nodes': calibrate: paper is fitted on theta's 4360 nodes (run as five Thetas), got 100"),
    ("coupled-compare-calib-small-nodes", "coupled compare cpl_calib_small_nodes.yaml", 2, "cpl_calib_small_nodes.yaml:8: 'small_nodes': calibrate: paper is fitted on kth's 100 nodes, got 50"),
    ("coupled-compare-release-none", "coupled compare cpl_release_none.yaml", 2, "cpl_release_none.yaml:7: 'release': 0 turns release off, got 'none'"),
    ("coupled-compare-release-null", "coupled compare cpl_release_null.yaml", 2, "cpl_release_null.yaml:7: 'release': 0 turns release off"),
    ("coupled-compare-broken-yaml", "coupled compare cpl_broken.yaml", 2, "cpl_broken.yaml:4: not valid YAML"),
    ("coupled-compare-indent-yaml", "coupled compare cpl_indent.yaml", 2, "cpl_indent.yaml:3: not valid YAML"),
    ("coupled-compare-key-twice", "coupled compare cpl_key_twice.yaml", 2, "cpl_key_twice.yaml:7: not valid YAML (key 'loads' appears twice"),
    ("coupled-compare-load-nan", "coupled compare cpl_load_nan.yaml", 2, "cpl_load_nan.yaml:4: 'loads[0]' must be a finite number, got nan"),
    ("coupled-compare-age-inf", "coupled compare cpl_age_inf.yaml", 2, "cpl_age_inf.yaml:7: 'release_age' must be a finite number, got inf"),
    # -- ELiSE's experiment files (coschedlab elise run) ------------------------------------
    ("elise-missing", "elise run nosuch.yaml", 2, "nosuch.yaml: no such file"),
    ("elise-not-yaml", "elise run nonutf8.yaml", 2, "not UTF-8"),
    ("elise-workloads", "elise run el_workloads.yaml", 2, "reads 'inputs', not 'workloads'"),
    ("elise-topkey", "elise run el_topkey.yaml", 2, "did you mean 'schedulers'"),
    ("elise-noactions", "elise run el_noactions.yaml", 2, "missing key 'actions'"),
    ("elise-nojson", "elise run el_nojson.yaml", 2, "needs 'json'"),
    ("elise-load-manager", "elise run el_lm.yaml", 2, "export it with LoadManager.export_to_json()"),
    ("elise-json-missing", "elise run el_json_missing.yaml", 2, "el_json_missing.yaml:5: 'inputs[0].json': file 'nosuch.json' not found"),
    ("elise-json-garbage", "elise run el_json_garbage.yaml", 2, "garbage.json:1: not valid JSON"),
    ("elise-heatmap-garbage", "elise run el_heatmap_bad.yaml", 2, "garbage.json:1: not valid JSON"),
    ("elise-sockets", "elise run el_sockets.yaml", 2, "sockets of different sizes"),
    ("elise-gen-type", "elise run el_gen_type.yaml", 2, "unknown generator 'Random Gen'"),
    ("elise-gen-py", "elise run el_gen_py.yaml", 2, "ELiSE generator files cannot run"),
    ("elise-gen-arg", "elise run el_gen_arg.yaml", 2, "el_gen_arg.yaml:4: the Random Generator's arg must be a whole number"),
    ("elise-gen-huge", "elise run el_gen_huge.yaml", 2, "at most 10,000,000"),
    ("elise-list-shape", "elise run el_rfl_shape.yaml", 2, "must be [jobs"),
    ("elise-list-unknown", "elise run el_rfl_unknown.yaml", 2, "application 'ZZ' of the list is not in the pool"),
    ("elise-dict-unknown", "elise run el_dict_unknown.yaml", 2, "application 'ZZ' is not in the pool"),
    ("elise-csv-line", "elise run el_list_line.yaml", 2, "el_badlist.csv:2: a job line needs"),
    ("elise-dist-type", "elise run el_dist_type.yaml", 2, "unknown distribution 'Gauss Distribution'"),
    ("elise-dist-arg", "elise run el_dist_arg.yaml", 2, "must be a time in seconds, got 'soon'"),
    ("elise-sched-typo", "elise run el_sched_typo.yaml", 2, "did you mean 'EASY Scheduler'"),
    ("elise-sched-short", "elise run el_sched_short.yaml", 2, "neither an ELiSE scheduler nor a coschedlab one"),
    ("elise-sched-rules", "elise run el_sched_rules.yaml", 2, "'Rules Co-Scheduler' cannot run"),
    ("elise-sched-bool", "elise run el_sched_bf.yaml", 2, "backfill_enabled' must be true or false"),
    ("elise-queue-depth", "elise run el_sched_qdepth.yaml", 2, "queue_depth': not supported"),
    ("elise-sched-attr", "elise run el_sched_attr.yaml", 2, "unknown key 'schedulers[1].colour'"),
    ("elise-sched-spec", "elise run el_sched_spec.yaml", 2, "option depth must be a positive whole number"),
    ("elise-action", "elise run el_action.yaml", 2, "unknown key 'actions.get_report'"),
    ("elise-action-anim", "elise run el_action_anim.yaml", 2, "get_animated_cluster': ELiSE opens an interactive window"),
    ("elise-action-range", "elise run el_action_range.yaml", 2, "must be <= 0, got 5"),
    ("elise-too-big", "elise run el_too_big.yaml", 2, "needs 2 nodes; the cluster has 1"),
    ("elise-compat", "elise run el_ok.yaml --compat bogus", 2, "--compat: unknown name 'bogus'"),
    ("elise-seed", "elise run el_ok.yaml --seed -1", 2, "--seed: a seed must be an integer"),
    ("elise-jobs", "elise run el_ok.yaml --jobs 0", 2, "--jobs must be at least 1"),
    ("elise-out-file", "elise run el_ok.yaml --out afile", 2, "--out afile exists and is not a directory"),
    ("elise-out-notours", "elise run el_ok.yaml --out notours", 2, "notours/notes.txt"),
    ("elise-out-notours-fresh", "elise run el_ok.yaml --out notours --fresh", 2, "never written over"),
    ("elise-out-result", "elise run el_ok.yaml --out prev", 2, "holds another result; give --fresh"),
    # -- a new user's and a hostile user's pass over the commands (2026-11-27) ------------------
    ("yaml-alias-bomb", "compare laughs.yaml --out o1", 2, "laughs.yaml:8: aliases (*name) expand to more than 1,000,000 values, too many for a YAML spec file"),
    ("yaml-alias-bomb-quoted", "study run laughs_study.yaml --out sd", 2, "laughs_study.yaml:1: aliases (*name) expand to more than 1,000,000 values"),
    ("compare-empty-list", "compare empty_list.yaml --out o1", 2, "empty_list.yaml:1: 'schedulers' must be a non-empty list, got an empty list"),
    ("sched-depth-huge", "simulate small.swf -s easy:depth=99999999999999999999999 --out o1", 2, "option depth must be a whole number from 1 to 2,147,483,647, got 99,999,999,999,999,999,999,999"),
    ("sched-reservations-huge", "simulate small.swf -s backfill:reservations=9999999999 --out o1", 2, "option reservations must be a whole number from 1 to 2,147,483,647"),
    ("slurm-max-job-test-huge", "simulate small.swf -s slurm:bf_max_job_test=9999999999 --out o1", 2, "option bf_max_job_test must be a whole number from 1 to 2,147,483,647"),
    ("insitu-platform-nodes-huge", "insitu plan ens_nodes_huge.yaml", 2, "ens_nodes_huge.yaml:7: 'platform.nodes' must be <= 10,000,000, got 99,999,999,999,999,999,999"),
    ("generate-jobs-huge", "generate --pool pool.json --nodes 100 --cores-per-node 48 --jobs 99999999999999999999 --out g.swf", 2, "--jobs: must be at most 5,000,000, got 99,999,999,999,999,999,999"),
    ("pool-with-compact-times", "simulate small.swf --pool pool.json --compact-times compact.csv --out o1", 2, "--compact-times goes with --heatmap (a pool holds its compact times)"),
    ("generate-pool-with-compact-times", "generate --pool pool.json --compact-times compact.csv --out g.swf", 2, "--compact-times goes with --heatmap"),
    ("pool-procs-huge", "generate --pool pool_procs_huge.json --nodes 4 --cores-per-node 8 --sockets 2 --out g.swf", 2, "pool_procs_huge.json: load #0 'A': application 'A': procs must be at most 2,147,483,647"),
    ("pool-time-huge", "simulate small.swf --pool pool_time_huge.json --out o1", 2, "pool_time_huge.json: load #0 'A': compact_timelogs must hold times of at most 10,000,000,000 s, got 1e+300"),
    ("heatmap-negative", "simulate small.swf --heatmap hm_negative.csv --compact-times compact.csv --out o1", 2, "hm_negative.csv: speedup of 'a2' beside 'a1' must be a positive number, got -1.1"),
    ("header-not-numbers", "simulate header_words.swf --out o1", 2, "header_words.swf: the header's MaxNodes 'four' and MaxProcs '-1' are not positive whole numbers; give --nodes"),
    ("compare-trace-directory", "compare trace_dir.yaml --out o1", 2, "/empty' is a directory, not a file"),
    ("yaml-nul", "compare yaml_nul.yaml --out o1", 2, "yaml_nul.yaml:4: not valid YAML (character #x0000 is not allowed)"),
    ("yaml-list-key", "compare yaml_list_key.yaml --out o1", 2, "yaml_list_key.yaml:4: not valid YAML (a key must be a name, not a list)"),
    ("compare-title-long", "compare long_title.yaml --out o1", 2, "long_title.yaml:1: 'name' must be at most 100 characters, got 100,000"),
    ("compare-label-long", "compare long_label.yaml --out o1", 2, "long_label.yaml:3: 'workloads[0].name' must be at most 100 characters, got 300"),
    ("swf-long-field", "simulate long_field.swf --out o1", 2, "long_field.swf:5: field 4 (run time) is '777777777777777777777777777777'... (5,000 characters), not a finite number"),
    ("compare-no-job-fits", "compare cluster_small.yaml --out o1", 2, "cluster_small.yaml:4: 'workloads[0]': no job of "),
    # a hostile pass over the generated sweep commands (2026-11-28)
    ("insitu-reproduce-out-workflow-sweep", "insitu reproduce --out wfsweep --steps 2", 2, "--out wfsweep holds a workflow sweep, not an in situ reproduction sweep; give another --out"),
    ("insitu-reproduce-out-comparison", "insitu reproduce --out cmpnotes --steps 2", 2, "--out cmpnotes holds a comparison sweep, not an in situ reproduction sweep"),
    ("compare-out-workflow-sweep", "compare spec.yaml --out wfsweep", 2, "--out wfsweep holds a workflow sweep, not a comparison sweep; give another --out"),
    ("study-reproduce-out-workflow-sweep", "study reproduce --out wfsweep", 2, "--out wfsweep holds a workflow sweep, not a study reproduction sweep"),
    ("study-reproduce-force-workflow-sweep", "study reproduce --out wfsweep --force", 2, "--out wfsweep holds a workflow sweep, not a study reproduction sweep; give another --out"),
    ("study-reproduce-force-comparison", "study reproduce --out cmpnotes --force", 2, "--out cmpnotes holds a comparison sweep, not a study reproduction sweep"),
    ("compare-out-a-file-alike", "compare spec.yaml --out afile", 2, "error: --out afile exists and is not a directory; choose a directory"),
    ("compare-out-foreign-alike", "compare spec.yaml --out notours", 2, "error: --out notours exists and is not a comparison output"),
    # found by hostile23 (2026-11-29): the folder came from the spec, not from --out
    ("compare-spec-output-foreign", "compare spec_notours.yaml", 2, "--out notours exists and is not a comparison output (no spec.json); choose another --out or empty it (the spec's 'output' named it)"),
    ("insitu-reproduce-network", "insitu reproduce --out rr --network torus", 2, "error: --network: unknown network 'torus'; use one of paper, per-node"),
    ("insitu-reproduce-engine", "insitu reproduce --out rr --engine fast", 2, "error: --engine: unknown engine 'fast'; use one of activities, ptask"),
    ("elise-out-workflow-sweep", "elise run el_ok.yaml --out wfsweep", 2, "error: --out wfsweep holds a workflow sweep, not an elise sweep; give another --out"),
    ("compare-spec-huge", "compare big.yaml --out o1", 2, "error: big.yaml: more than 1 MiB, too large for a YAML spec file"),
    ("workflows-spec-huge", "workflows compare big.yaml --out o1", 2, "error: big.yaml: more than 1 MiB, too large for a YAML spec file"),
    ("coupled-spec-huge", "coupled compare big.yaml --out o1", 2, "error: big.yaml: more than 1 MiB, too large for a YAML spec file"),
    ("study-reproduce-spec-huge", "study reproduce --spec big.yaml --out o1", 2, "error: big.yaml: more than 1 MiB, too large for a YAML spec file"),
    ("workflows-compare-window-huge", "workflows compare wf_window_huge.yaml --out o1", 2, "wf_window_huge.yaml:4: 'window' must be from 1 to 3e+08, got 1e+30"),
    ("workflows-compare-pressure-huge", "workflows compare wf_pressure_huge.yaml --out o1", 2, "wf_pressure_huge.yaml:7: 'pressure' must be from 0.001 to 100, got 1000"),
    ("workflows-compare-period-huge", "workflows compare wf_period_huge.yaml --out o1", 2, "wf_period_huge.yaml:2: 'periods[0]' must be from 1 to 1e+08, got 1e+09"),
    ("coupled-compare-nodes-huge", "coupled compare cpl_nodes_huge.yaml --out o1", 2, "cpl_nodes_huge.yaml:4: 'small_nodes' must be <= 10,000,000"),
    # hostile pass over workflows, coupled and elise (hostile18, 2026-11-29)
    ("workflows-compare-share-twice", "workflows compare wf_share_twice.yaml --out o1", 2, "wf_share_twice.yaml:2: 'shares' names a value twice: shares[0] and shares[1] are both 0.1"),
    ("workflows-compare-share-one-key", "workflows compare wf_share_close.yaml --out o1", 2, "'shares' names a value twice: shares[0] and shares[1] are both 0.1 (runs are stored by the value to 6 significant digits)"),
    ("workflows-compare-period-one-key", "workflows compare wf_period_close.yaml --out o1", 2, "'periods' names a value twice: periods[0] and periods[1] are both 600"),
    ("workflows-compare-mode-twice", "workflows compare wf_mode_twice.yaml --out o1", 2, "wf_mode_twice.yaml:7: 'modes' names a mode twice"),
    ("workflows-compare-one-run-name", "workflows compare wf_slug.yaml --out o1", 2, "wf_slug.yaml:1: workflows[1] (x_y) and workflows[0] (x y) would store their runs under one name 'x_y': rename one"),
    ("workflows-compare-share-no-work", "workflows compare wf_nowork.yaml --out o1", 2, "wf_nowork.yaml:2: 'shares': a share of core-hours needs a workflow that uses some: wf_nowork uses 0 core-seconds"),
    ("workflows-generate-share-no-work", "workflows generate -w wf_nowork.json --share 0.2 --out nw", 2, "error: a share of core-hours needs a workflow that uses some: wf_nowork uses 0 core-seconds (every task runs 0 s); give a period instead"),
    ("coupled-compare-proportion-load-huge", "coupled compare cpl_prop_load.yaml --out o1", 2, "cpl_prop_load.yaml:9: 'proportion_load' must be at most 2, got 20"),
    ("coupled-compare-large-dir", "coupled compare cpl_large_dir.yaml --out o1", 2, "cpl_large_dir.yaml:1: 'large': 'empty' is a directory, not a trace file"),
    ("coupled-system-name-marker", "coupled simulate --system small.swf:name=.coschedlab --system small.swf --out o1", 2, "name '.coschedlab' names a directory of the output: use letters, digits and _ . + = , - (not starting with '.'"),
    ("coupled-system-name-long", f"coupled simulate --system small.swf:name={'n' * 101} --system small.swf --out o1", 2, "name must be at most 100 characters, got 101"),
    ("workflows-simulate-out-holds-workload", "workflows simulate wlhold/wl --out wlhold --force --mode chained", 2, "error: --out wlhold holds wlhold/wl, which this command reads: a result replaces its folder whole; choose another directory"),
    ("workflows-generate-out-holds-manifest", "workflows generate -w wlhold/wl/manifests/00-A2.json --share 0.2 --out wlhold --force", 2, "error: --out wlhold holds wlhold/wl/manifests/00-A2.json, which this command reads"),
    ("coupled-out-holds-trace", "coupled simulate --system prev/result.swf:name=a --system small.swf --out prev --force", 2, "error: --out prev holds prev/result.swf, which this command reads"),
    ("coupled-out-holds-pairs", "coupled simulate --system small.swf:name=a --system small.swf --pairs file:prev/jobs.csv --out prev --force", 2, "error: --out prev holds prev/jobs.csv, which this command reads"),
    ("simulate-out-holds-trace", "simulate prev/result.swf -s fcfs --out prev --force", 2, "error: --out prev holds prev/result.swf, which this command reads"),
    ("elise-dict-huge", "elise run el_dict_huge.yaml --out o1", 2, "el_dict_huge.yaml:4: the Dictionary Generator's counts ask for 100,000,000,000 jobs; at most 10,000,000"),
    ("elise-json-dir", "elise run el_json_dir.yaml --out o1", 2, "el_json_dir.yaml:5: 'inputs[0].json': 'empty' is a directory, not a file"),
    ("elise-list-dir", "elise run el_list_dir.yaml --out o1", 2, "el_list_dir.yaml:4: 'inputs[0].generator.arg': 'empty' is a directory, not a file"),
    # leftovers of hostile18 (hostile19, 2026-11-29)
    ("coupled-policy-loops", "coupled simulate --system small.swf:name=a --system small.swf -s forever.py --pass-timeout 0.5 --out o1", 2, "error: scheduler p: a pass at t=0 took more than 0.5 s (the pass time limit)"),
    ("coupled-policy-sleeps", "coupled simulate --system small.swf:name=a --system small.swf -s sleeps.py --pass-timeout 0.5 --out o1", 2, "pass time limit"),
    ("coupled-policy-wakes-in-a-livelock", "coupled simulate --system small.swf:name=a --system small.swf -s wakes_tiny.py --wake-limit 1000 --out o1", 2, "each woken by the policy alone (view.wake_at) and starting nothing, less than 0.001 s apart on average: a livelock; fix the policy or raise the limit with --wake-limit N (0: no limit)"),
    ("coupled-wake-limit-negative", "coupled simulate --system small.swf:name=a --system small.swf --wake-limit -1 --out o1", 2, "--wake-limit must be a whole number of passes from 0 (no limit) to 10^15, got -1"),
    ("coupled-pass-timeout-negative", "coupled simulate --system small.swf:name=a --system small.swf --pass-timeout -1 --out o1", 2, "--pass-timeout must be a positive number of seconds, got -1.0"),
    ("elise-name-null", "elise run el_name_null.yaml --out o1", 2, "el_name_null.yaml:1: 'name' must be the experiment's name (text), got nothing"),
    ("elise-name-list", "elise run el_name_list.yaml --out o1", 2, "el_name_list.yaml:1: 'name' must be the experiment's name (text), got a list"),
    ("workflows-show-directory", "workflows show empty", 2, "error: workflow 'empty' is a directory, not a workflow file"),
    ("workflows-generate-directory", "workflows generate -w empty --share 0.2 --out nw", 2, "error: workflow 'empty' is a directory, not a workflow file"),
    ("workflows-generate-directory-slash", "workflows generate -w empty/ --share 0.2 --out nw", 2, "error: workflow 'empty/' is a directory, not a workflow file"),
    # hostile pass over the compiled core's inputs (hostile19, 2026-11-29)
    ("elise-list-requested-time-huge", "elise run el_req_huge.yaml --out o1", 2, "el_req_huge.csv:3: field 9 (requested time) is 1e+300, beyond the sane range (|value| <= 10,000,000,000 s)"),
    ("simulate-shared-machine-huge", "simulate small.swf --nodes 10000000 --cores-per-node 4096 --sockets 2 --pool pool.json -s easy -s easy-coloc --out o1", 2, "error: shared nodes (co-location, --pool) are accounted core by core: 10,000,000 nodes x 4,096 cores is too large (nodes x (cores per node + 1) must be at most 4,294,967,296, got 40,970,000,000)"),
    ("compare-shared-machine-huge", "compare shared_huge.yaml --out o1", 2, "shared_huge.yaml:1: 'cluster': shared nodes (co-location, --pool) are accounted core by core: 10,000,000 nodes x 4,096 cores is too large"),
    ("slurm-part-count-huge", "simulate small.swf -s slurm:bf_job_part_count_reserve=9999999999 --out o1", 2, "option bf_job_part_count_reserve must be a whole number from 1"),
    # known defects and a hostile pass (hostile20, 2026-11-29): a run that would make 10^8
    # passes or more on a clock without a look ahead (it seemed to hang); a missing trace
    # said after "--out holds a result, give --force"
    ("slurm-bf-nodes-past-limit-span-huge", "simulate past_limit.swf -s slurm:bf_nodes=true --out o1", 2, "error: scheduler slurm:bf_nodes=true: bf_nodes' node map may wake every bf_interval=30 s while a job runs past its time limit, and a job here does so for at least 9e+09 s: up to 3e+08 passes (at most 1e+08); raise bf_interval, or kill jobs at their limit (--kill-at-walltime)"),
    # hostile21: bf_nodes on long_span.swf runs (a pass at each recalculation: 3e7); clocks
    # the look ahead cannot group in classes ran more than 120 s on a 9e9-s wait. hostile22:
    # on the 1/64-s grid they run (the wait leapt over: 4 passes); refused off the grid, or
    # when bf_window makes the scans near events too many
    ("slurm-ungrouped-clock-span-huge", "simulate long_span.swf -s slurm:bf_interval=0.1,bf_resolution=3600 --out o1", 2, "error: scheduler slurm:bf_interval=0.1,bf_resolution=3600: Slurm's look ahead, proving each tick on its own (its ticks fall in classes only with clocks in whole seconds and bf_resolution / gcd(bf_interval, bf_resolution) at most 8), may wake every bf_interval=0.1 s while jobs wait, and this run spans at least 9e+09 s: up to 9e+10 passes (at most 1e+08); raise bf_interval, make it and bf_phase multiples of 1/64 s, or make bf_resolution at most 8 of its ticks"),
    ("slurm-ungrouped-clock-window-huge", "simulate long_span.swf -s slurm:bf_interval=7,bf_resolution=3600,bf_window=1e9 --out o1", 2, "may wake every bf_interval=7 s while a slot is within bf_window (6e+10 s) of the tick: up to 1.3e+09 passes (at most 1e+08); raise bf_interval, or lower bf_window"),
    ("slurm-bf-nodes-calc-period-tiny", "simulate long_span.swf -s slurm:bf_nodes=true,bf_interval=1e6,priority_calc_period=0.5 --out o1", 2, "may wake every priority_calc_period=0.5 s while jobs wait"),
    ("coupled-slurm-span-huge", "coupled simulate --system long_span.swf:name=a --system small.swf -s slurm --out o1", 2, "a gated pass (coupled, ELiSE's clock) may wake every bf_interval=30 s"),
    ("simulate-trace-missing-out-earlier", "simulate nosuch.swf --out prev", 2, "error: nosuch.swf: No such file or directory"),
    ("study-batch-no-jobs", "study batch --scaling 4:1.95,8:1.14 --jobs 0 --procs 32", 2, "error: --jobs: must be at least 1, got 0"),
    ("study-batch-negative-jobs", "study batch --scaling 4:1.95,8:1.14 --jobs -3 --procs 32", 2, "error: --jobs: must be at least 1, got -3"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "code", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_fails_cleanly(ws, capsys, args, code, says):
    insitu = args.startswith("insitu simulate") or args.startswith("insitu reproduce")
    if insitu and importlib.util.find_spec("simgrid") is None:  # not imported: see tests/insitu
        pytest.skip("SimGrid's Python bindings are not installed")
    before = digest(ws / "prev")
    got, out, err = run_cli(shlex.split(args), ws, capsys)  # ('' : an empty argument)
    assert "Traceback" not in out + err
    assert got == code, (got, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert says in lines[0], lines[0]
    assert digest(ws / "prev") == before, "the earlier result changed"
    for leftover in ws.glob(".tmp-*"):
        pytest.fail(f"temporary file left behind: {leftover}")


def test_fresh_refuses_before_deleting_anything(ws, capsys, tmp_path):
    """A comparison output that also holds the user's notes: --fresh deletes nothing."""
    shutil.copytree(ws / "cmpnotes", tmp_path / "cmpnotes")
    for name in ("spec.yaml", "trace.swf"):
        shutil.copy(ws / name, tmp_path / name)
    before = digest(tmp_path / "cmpnotes")
    assert (tmp_path / "cmpnotes" / "spec.json").is_file()
    code, out, err = run_cli(
        ["compare", "spec.yaml", "--out", "cmpnotes", "--fresh"], tmp_path, capsys
    )
    assert code == 2 and "notes.txt" in err, err
    assert digest(tmp_path / "cmpnotes") == before


def test_fresh_clears_a_comparison_output_of_its_own(ws, capsys, tmp_path):
    shutil.copytree(ws / "cmpnotes", tmp_path / "cmpnotes")
    (tmp_path / "cmpnotes" / "notes.txt").unlink()
    for name in ("spec.yaml", "trace.swf"):
        shutil.copy(ws / name, tmp_path / name)
    code, out, err = run_cli(
        ["compare", "spec.yaml", "--out", "cmpnotes", "--fresh", "-j", "1"], tmp_path, capsys
    )
    assert code == 0, err
    assert "runs already stored" not in out  # all runs done again


def test_a_damaged_stored_run_is_run_again(ws, capsys, tmp_path):
    """A stored run whose metrics.json was truncated since is not finished: resuming redoes
    it (no traceback) and the table holds every run."""
    shutil.copytree(ws / "cmpnotes", tmp_path / "c")
    for name in ("spec.yaml", "trace.swf"):
        shutil.copy(ws / name, tmp_path / name)
    damaged = next((tmp_path / "c").glob("*/easy/rep0/metrics.json"))
    damaged.write_text('{"metrics": ')
    code, out, err = run_cli(["compare", "spec.yaml", "--out", "c", "-j", "1"], tmp_path, capsys)
    assert code == 0, err
    assert "1 of 2 runs already stored; 1 to do" in " ".join(out.split())
    assert "n_jobs" in json.loads(damaged.read_text())["metrics"]


def test_a_damaged_sweep_run_file_is_run_again(ws, capsys, tmp_path):
    """The same for a sweep whose runs are JSON files (coupled, workflows, reproductions)."""
    for name in ("cpl_ok.yaml", "small.swf"):
        shutil.copy(ws / name, tmp_path / name)
    code, out, err = run_cli(["coupled", "compare", "cpl_ok.yaml", "--out", "c"], tmp_path, capsys)
    assert code == 0, err
    damaged = sorted((tmp_path / "c" / "runs").glob("*.json"))[0]
    good = damaged.read_text()
    damaged.write_text(good[: len(good) // 2])
    code, out, err = run_cli(["coupled", "compare", "cpl_ok.yaml", "--out", "c"], tmp_path, capsys)
    assert code == 0, err
    again, before = json.loads(damaged.read_text()), json.loads(good)
    assert (again["config"], again["metrics"]) == (before["config"], before["metrics"])


def test_data_lists_in_a_terminal_of_any_width(tmp_path):
    """``coschedlab data`` in a terminal a few columns wide (COLUMNS=4 was a ValueError)."""
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", "data"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "COLUMNS": "4"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = "".join(done.stdout.split())  # names folded at 4 columns
    assert "KTH-SP2-1996-2.1-cln.swf.gz" in text and "theta_2022.swf.gz" in text


def test_validate_a_jobs_csv_of_no_jobs_needs_no_machine(capsys, tmp_path):
    """A Batsim jobs.csv of a header only, without --nodes: nothing to check, no machine
    needed (it was refused: "not every job records its allocation")."""
    (tmp_path / "jobs.csv").write_text(
        "job_id,submission_time,starting_time,finish_time,requested_number_of_resources,"
        "allocated_resources\n"
    )
    code, out, err = run_cli(["validate", "jobs.csv"], tmp_path, capsys)
    assert code == 0, err
    assert "jobs.csv: 0 jobs, all invariants hold" in out and "no machine size needed" in out


def test_validate_job_ids_beyond_int64_stay_as_written(capsys, tmp_path):
    """Job ids are names: a Batsim jobs.csv whose whole-number ids exceed int64 is checked
    with the ids as written (it was an internal ArrowInvalid)."""
    (tmp_path / "jobs.csv").write_text(
        "job_id,submission_time,starting_time,finish_time,requested_number_of_resources,"
        "allocated_resources\n99999999999999999999999,0,0,50,2,0-1\n"
        "99999999999999999999998,0,10,50,2,0-1\n"
    )
    code, out, err = run_cli(["validate", "jobs.csv", "--nodes", "4"], tmp_path, capsys)
    assert code == 1, err  # the two jobs overlap on nodes 0-1
    assert "99999999999999999999998" in out and "Traceback" not in err


def test_a_gzip_bomb_is_refused_before_it_fills_the_memory(capsys, tmp_path, monkeypatch):
    """A small gzip file that decompresses to more than the limit (4 GiB; 100 kB here) is one
    line naming it; it was decompressed whole, whatever its size."""
    import gzip

    import coschedlab.errors

    monkeypatch.setattr(coschedlab.errors, "MAX_GUNZIPPED", 100_000)
    (tmp_path / "bomb.swf.gz").write_bytes(gzip.compress(SMALL.encode() + b" " * 1_000_000))
    assert (tmp_path / "bomb.swf.gz").stat().st_size < 5_000
    code, out, err = run_cli(["simulate", "bomb.swf.gz", "--out", "o"], tmp_path, capsys)
    assert code == 2, err
    assert err.strip().startswith("error: bomb.swf.gz: decompresses to more than "), err
    assert err.strip().endswith(" GiB: not a trace (a gzip bomb?)"), err
    (tmp_path / "ok.swf.gz").write_bytes(gzip.compress(SMALL.encode()) * 2)  # two members
    code, out, err = run_cli(["simulate", "ok.swf.gz", "--out", "o"], tmp_path, capsys)
    assert code == 2 and "job number 1 appears again" in err, err  # read whole: both members


def test_options_that_give_the_whole_machine_need_no_header(ws, capsys, tmp_path):
    """A header beyond the sane ranges is not read when --nodes and --cores-per-node give the
    machine (hostile19: it was refused, 'the header's machine: ...', whatever the options)."""
    out = tmp_path / "o"
    code, _, err = run_cli(
        ["simulate", str(ws / "huge_header.swf"), "--nodes", "4", "--cores-per-node", "1",
         "--out", str(out)], ws, capsys,
    )  # fmt: skip
    assert code == 0, err
    assert (out / "metrics.json").is_file() or any(out.rglob("metrics.json"))
    code, _, err = run_cli(
        ["simulate", str(ws / "huge_header.swf"), "--nodes", "4", "--out", str(tmp_path / "p")],
        ws, capsys,
    )  # fmt: skip
    assert code == 2 and "the header's machine" in err  # (the cores per node come from it)


def test_catalogue_ids_are_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


def test_force_replaces_an_earlier_result_whole(ws, capsys, tmp_path):
    shutil.copytree(ws / "prev", tmp_path / "r")
    # a folder written before manifests (a marker without a list): the rule of names
    (tmp_path / "r" / ".coschedlab").write_text(
        "written by coschedlab: --force may replace this directory\n"
    )
    (tmp_path / "r" / "stale.png").write_bytes(b"png")  # named like ours: may be replaced
    for name in ("small.swf", "trace.swf"):
        shutil.copy(ws / name, tmp_path / name)
    code, out, err = run_cli(["simulate", "trace.swf", "--out", "r", "--force"], tmp_path, capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert meta["metrics"]["n_jobs"] == 40  # the new run, whole
    assert not (tmp_path / "r" / "stale.png").exists()
    assert not list(tmp_path.glob(".tmp-*")) and not list(tmp_path.glob(".old-*"))


def test_a_long_trace_name_gets_a_default_out_that_fits(ws, capsys, tmp_path):
    """The default --out is named after the trace, cut to fit beside its temporary sibling
    (a 246-byte trace name failed: '.tmp-ccc...-PID-HEX: File name too long')."""
    name = "c" * 246
    shutil.copy(ws / "small.swf", tmp_path / f"{name}.swf")
    for want in (name[:225], name[:225] + "-2"):
        code, out, err = run_cli(["simulate", f"{name}.swf"], tmp_path, capsys)
        assert code == 0, err
        assert (tmp_path / "out" / "simulate" / want / "jobs.parquet").is_file()


@pytest.mark.parametrize("target", ["real", "nowhere"])
def test_an_out_that_is_a_symbolic_link_writes_where_it_points(ws, capsys, tmp_path, target):
    """--out LINK: the result goes to the folder the link names, and the link stays (it was
    moved aside to a hidden .old-LINK-PID-HEX for good; a dangling one failed after the run
    with '.tmp-LINK-...: Not a directory')."""
    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    if target == "real":
        (tmp_path / target).mkdir()
    (tmp_path / "link").symlink_to(target)
    code, out, err = run_cli(["simulate", "small.swf", "--out", "link"], tmp_path, capsys)
    assert code == 0, err
    assert (tmp_path / "link").is_symlink() and os.readlink(tmp_path / "link") == target
    assert (tmp_path / target / "jobs.parquet").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", target, "small.swf"]
    # the default --out is a new folder: a dangling link of its name is skipped, not followed
    (tmp_path / "out" / "simulate").mkdir(parents=True)
    (tmp_path / "out" / "simulate" / "small").symlink_to(tmp_path / "elsewhere")
    code, out, err = run_cli(["simulate", "small.swf"], tmp_path, capsys)
    assert code == 0, err
    assert (tmp_path / "out" / "simulate" / "small-2" / "jobs.parquet").is_file()
    assert not (tmp_path / "elsewhere").exists()


def test_strict_on_a_trace_from_a_pipe_names_what_cannot_run(ws, capsys, tmp_path):
    """--strict reads the trace again to name the first bad job's line: a pipe (``<(zcat
    ...)``, /dev/stdin) is read once, and the second reading said 'the file is empty'."""
    import threading

    fifo = tmp_path / "pipe.swf"
    os.mkfifo(fifo)

    stop = threading.Event()

    def writer() -> None:
        fifo.write_text((ws / "small.swf").read_text())
        while not stop.is_set():
            fifo.write_text("")  # every later reader gets nothing, as from a pipe

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    args = ["simulate", "pipe.swf", "--strict", "--nodes", "1", "--out", "o"]
    code, out, err = run_cli(args, tmp_path, capsys)
    stop.set()
    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # the writer's waiting open returns
    thread.join(10)
    assert code == 2, err
    assert err.strip() == (
        "error: pipe.swf: 3 job(s) cannot run (3 larger than the machine; not a regular file, "
        "read once: no line named); without --strict they are dropped and counted"
    )


@pytest.mark.parametrize("out", [["--out", "r"], []], ids=["out", "default"])
def test_a_result_written_meanwhile_is_not_replaced(ws, capsys, tmp_path, monkeypatch, out):
    """Two runs into one folder at once (parallel runs of one trace into its default folder):
    the later one replaced the earlier's result, without --force and without a word; it now
    keeps its own beside it and says where."""
    from coschedlab.engine.result import Result

    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    target = tmp_path / ("r" if out else "out/simulate/small")
    write = Result.write

    def write_while_another_run_finishes(self, where, *args):
        shutil.copytree(ws / "prev", target)  # the other run's result appears
        return write(self, where, *args)

    monkeypatch.setattr(Result, "write", write_while_another_run_finishes)
    code, stdout, err = run_cli(["simulate", "small.swf", *out], tmp_path, capsys)
    shown = target.relative_to(tmp_path)
    if out:  # the folder the user named: said as an error
        assert code == 2, err
        assert err.strip() == (
            f"error: --out {shown} received another run's result while this one ran; not "
            f"replacing it without --force: this result is in {shown}-2/"
        )
    else:  # its own default folder: the next free name, as if it had been taken before
        assert code == 0, err
        assert stdout.rstrip().endswith(f"outputs in {shown}-2/")
    assert digest(target) == digest(ws / "prev")
    assert (target.parent / f"{target.name}-2" / "jobs.parquet").is_file()
    assert not list(target.parent.glob(".*"))  # no temporary left


def test_default_out_never_overwrites(ws, capsys, tmp_path):
    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    for expected in ("small", "small-2", "small-3"):
        code, out, err = run_cli(["simulate", "small.swf"], tmp_path, capsys)
        assert code == 0, err
        assert f"outputs in out/simulate/{expected}/" in out
    assert sorted(p.name for p in (tmp_path / "out" / "simulate").iterdir()) == [
        "small",
        "small-2",
        "small-3",
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a\nb\x1b[31m.swf", "a_b_[31m"), ("..swf", "run"), ("tab\tname.swf.gz", "tab_name")],
)
def test_default_out_has_no_control_characters(ws, capsys, tmp_path, name, expected):
    # found by hostile23 (2026-11-29): a trace named with a line end or an escape gave its
    # default output folder the same characters (a name a shell or a listing shows garbled)
    data = (ws / "small.swf").read_bytes()
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    code, out, err = run_cli(["simulate", name], tmp_path, capsys)
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out" / "simulate").iterdir()] == [expected]


def test_unknown_pool_applications_are_counted(ws, capsys, tmp_path):
    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    shutil.copy(ws / "pool.json", tmp_path / "pool.json")
    code, out, err = run_cli(
        ["simulate", "small.swf", "--pool", "pool.json", "--out", "o"], tmp_path, capsys
    )
    assert code == 0, err
    assert "note: 3 of 3 jobs have an application the pool does not know" in err


def _coschedlab(args: list[str], cwd: Path, **popen) -> subprocess.Popen:
    """``coschedlab ARGS`` as a new process (this copy, from ``cwd``), stderr captured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, "-m", "coschedlab", *args], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, **popen)  # fmt: skip


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("out", [["--out", "r"], ["--out=r"]], ids=["fast", "typer"])
def test_a_trace_named_dash_is_read_from_standard_input(ws, tmp_path, gz, out):
    """``simulate -`` reads the trace from standard input, gzip or plain, in the fast path and
    typer's (it read a file named "-"); the same jobs as the file's."""
    import gzip

    data = (ws / "small.swf").read_bytes()
    (tmp_path / "-").write_text("not a trace\n")  # "./-" names it; "-" does not
    with _coschedlab(["simulate", "-", *out], tmp_path, stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL) as proc:  # fmt: skip
        _, err = proc.communicate(gzip.compress(data) if gz else data, timeout=120)
    assert proc.returncode == 0, err.decode()
    done = cli_here("simulate", str(ws / "small.swf"), "--out", "f", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r" / "jobs.csv").read_bytes() == (tmp_path / "f" / "jobs.csv").read_bytes()
    done = cli_here("simulate", "./-", "--out", "dash", cwd=tmp_path)
    assert done.returncode == 2 and "-:1: has 3 fields" in done.stderr, done.stderr


def test_a_trace_named_dash_from_a_terminal_is_refused(tmp_path):
    """``simulate -`` with nothing piped in (standard input a terminal) says so at once
    instead of waiting for typing."""
    import pty

    leader, follower = pty.openpty()
    try:
        with _coschedlab(["simulate", "-", "--out", "r"], tmp_path, stdin=follower,
                         stdout=subprocess.DEVNULL) as proc:  # fmt: skip
            _, err = proc.communicate(timeout=120)
    finally:
        os.close(leader)
        os.close(follower)
    assert proc.returncode == 2
    assert err.decode().strip() == (
        "error: -: standard input is a terminal: pipe a trace into it (zcat t.swf.gz | "
        "coschedlab simulate -), or give ./- for a file named -"
    )
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("out", [["--out", "r"], ["--out=r"]], ids=["fast", "typer"])
def test_a_closed_standard_output_loses_no_result(ws, tmp_path, out):
    """``coschedlab simulate ... | true``: the reader is gone before the first line; the run
    goes on, writes its result and exits 0 without a word (it stopped with "error: output:
    Broken pipe", exit 2, before writing anything)."""
    with _coschedlab(["simulate", str(ws / "small.swf"), "-s", "fcfs", "-s", "easy", *out],
                     tmp_path, stdout=subprocess.PIPE) as proc:  # fmt: skip
        proc.stdout.close()  # (the child is still importing: its first line finds no reader)
        err = proc.stderr.read()
        proc.wait(timeout=120)
    assert (proc.returncode, err) == (0, b"")
    for name in ("fcfs", "easy"):
        assert (tmp_path / "r" / name / "metrics.json").is_file()


@pytest.mark.parametrize("out", [["--out", "r"], ["--out=r"]], ids=["fast", "typer"])
def test_standard_output_on_a_full_disk_loses_no_result(ws, tmp_path, out):
    """``coschedlab simulate ... > /dev/full`` (a log on a full disk): the run goes on,
    writes its result, and one line says what was lost, exit 1 (it stopped before the run
    with "error: output: No space left on device; nothing was replaced", and once the disk
    filled after the result was written, said that of a result it had just replaced)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full, _coschedlab(
        ["simulate", str(ws / "small.swf"), "-s", "fcfs", "-s", "easy", *out], tmp_path,
        stdout=full,
    ) as proc:  # fmt: skip
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert proc.returncode == 1, err
    assert err == (
        "error: standard output: No space left on device; what the command printed is lost "
        "(it ran to its end: its files are written)\n"
    )
    for name in ("fcfs", "easy"):
        assert (tmp_path / "r" / name / "metrics.json").is_file()


def test_a_policy_closing_standard_output_loses_no_result(ws, tmp_path):
    """A policy that closes ``sys.stdout``: the run is written and the command ends with its
    own exit code (the table's print was "internal error: ValueError: I/O operation on
    closed file", exit 3, once the result was in place)."""
    fifo = POLICIES["fifo1.py"]
    (tmp_path / "closes.py").write_text(_policy(f"sys.stdout.close()\n                {fifo}"))
    with _coschedlab(["simulate", str(ws / "small.swf"), "-s", "closes.py", "--out", "r"],
                     tmp_path, stdout=subprocess.PIPE) as proc:  # fmt: skip
        out, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (0, b""), err
    assert out.startswith(b"3 jobs from ")  # (printed before the policy ran)
    assert (tmp_path / "r" / "metrics.json").is_file()


def test_version(capsys, tmp_path):
    code, out, err = run_cli(["--version"], tmp_path, capsys)
    assert code == 0 and out.startswith("coschedlab ")


def test_python_dash_m_coschedlab(tmp_path):
    """``python -m coschedlab`` is the command (it was "No module named coschedlab.__main__")."""
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab", "simulate", "nosuch.swf"],
        cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},  # this copy, from any folder
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "error: nosuch.swf: No such file or directory"


# -- the machine fails: a full or read-only file system (tmpfs mounts, root only) -----------
def _mount(target: Path, options: str) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], capture_output=True
    )
    return done.returncode == 0


@pytest.fixture
def tiny_fs(tmp_path):
    fs = tmp_path / "fs"
    if not _mount(fs, "size=48k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield fs
    subprocess.run(["umount", str(fs)], capture_output=True)


def test_full_disk_exits_1_and_keeps_the_earlier_result(ws, capsys, tiny_fs):
    write_trace(tiny_fs.parent / "trace.swf", n=3000)  # outputs of ~300 kB: beyond 48 kB
    earlier = tiny_fs / "r"
    earlier.mkdir()
    (earlier / "metrics.json").write_text('{"old": true}\n')
    code, out, err = run_cli(
        ["simulate", "trace.swf", "--out", "fs/r", "--force"], tiny_fs.parent, capsys
    )
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], err
    assert (earlier / "metrics.json").read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tiny_fs.iterdir()) == ["r"]  # no temporary left


def test_a_report_on_a_full_disk_names_its_folder(ws, capsys, tiny_fs):
    """The figures' writers name no file: a full disk was "error: output: No space left on
    device"; now the report's folder, exit 1, and the folder this command made goes."""
    shutil.copytree(ws / "prev", tiny_fs.parent / "prev")
    code, out, err = run_cli(["report", "prev", "--out", "fs/rep"], tiny_fs.parent, capsys)
    assert code == 1, err
    assert err == (
        "error: fs/rep: No space left on device; nothing was replaced, free some space and rerun\n"
    )
    assert list(tiny_fs.iterdir()) == []


def test_a_sweep_stopped_by_a_full_disk_resumes_once_there_is_room(ws, capsys, tmp_path):
    """A disk full when a sweep records its spec.json: exit 1 naming that file, and the rerun
    the message asks for works once there is room (it left an empty spec.json, and the rerun
    was refused: "not a coupled sweep directory")."""
    tiny_fs = tmp_path / "fs"
    if not _mount(tiny_fs, "size=1m"):  # (room for the sweep's figures)
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        _full_disk_then_room(ws, capsys, tiny_fs)
    finally:
        subprocess.run(["umount", str(tiny_fs)], capture_output=True)


def _full_disk_then_room(ws: Path, capsys, tiny_fs: Path) -> None:
    for name in ("small.swf", "cpl_ok.yaml"):
        shutil.copy(ws / name, tiny_fs.parent / name)
    free = os.statvfs(tiny_fs).f_bavail * os.statvfs(tiny_fs).f_frsize
    (tiny_fs / "fill").write_bytes(b"x" * (free - 4096))  # room for the marker file only
    args = ["coupled", "compare", "cpl_ok.yaml", "--out", "fs/c", "-j", "1"]
    code, out, err = run_cli(args, tiny_fs.parent, capsys)
    assert code == 1, err
    assert err.strip().splitlines()[-1] == (
        "error: fs/c/spec.json: No space left on device; nothing was replaced, free some "
        "space and rerun"
    )
    (tiny_fs / "fill").unlink()
    code, out, err = run_cli(args, tiny_fs.parent, capsys)
    assert code == 0, err
    assert (tiny_fs / "c" / "summary.csv").is_file()


def test_read_only_disk_is_refused_before_the_run(ws, capsys, tmp_path):
    ro = tmp_path / "ro"
    if not _mount(ro, "ro,size=16k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copy(ws / "small.swf", tmp_path / "small.swf")
        code, out, err = run_cli(["simulate", "small.swf", "--out", "ro/r"], tmp_path, capsys)
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
    assert code == 2, err
    assert "Read-only file system" in err and "ro" in err
    assert "jobs from" not in out  # refused before reading and simulating


@pytest.mark.parametrize(
    "args, option",
    [
        (["insitu", "simulate", "ens.yaml", "--gantt", "ro/g.png"], "--gantt ro/g.png"),
        (["workflows", "show", "cybershake", "--plot", "ro/c.png"], "--plot ro/c.png"),
        (["simulate", "small.swf", "--out", "ro/r"], "--out ro/r"),
    ],
    ids=["gantt", "plot", "out"],
)
def test_a_read_only_place_names_the_option_that_chose_it(ws, capsys, tmp_path, args, option):
    """The advice named --out whatever option gave the path ("--gantt ro/g.png cannot be
    created (...; choose an --out on a writable file system)")."""
    ro = tmp_path / "ro"
    if not _mount(ro, "ro,size=16k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copy(ws / "small.swf", tmp_path / "small.swf")
        shutil.copy(ws / "ens.yaml", tmp_path / "ens.yaml")
        code, out, err = run_cli(args, tmp_path, capsys)
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
    assert code == 2, err
    flag = option.split()[0]
    assert err == (
        f"error: {option} cannot be created (ro: Read-only file system; give {flag} a path on "
        "a writable file system)\n"
    )


@pytest.mark.parametrize("force", [False, True])
def test_a_mount_point_as_out_is_refused_before_the_run(ws, capsys, tmp_path, force):
    """A result replaces its folder whole, which a mount point cannot be (moving it aside:
    'Device or resource busy', once the whole run was done); a folder inside it is fine."""
    mnt = tmp_path / "mnt"
    if not _mount(mnt, "size=1m"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copy(ws / "small.swf", tmp_path / "small.swf")
        if force:
            shutil.copytree(ws / "prev", mnt, dirs_exist_ok=True)
        before = digest(mnt)
        args = ["simulate", "small.swf", "--out", "mnt"] + (["--force"] if force else [])
        code, out, err = run_cli(args, tmp_path, capsys)
        assert code == 2, err
        assert err.strip() == (
            "error: --out mnt is a mount point, which a result cannot replace (it replaces its "
            "folder whole); give a new folder inside it"
        )
        assert "jobs from" not in out  # refused before reading and simulating
        assert digest(mnt) == before
        code, out, err = run_cli(["simulate", "small.swf", "--out", "mnt/r"], tmp_path, capsys)
        assert code == 0, err
        assert (mnt / "r" / "jobs.parquet").is_file()
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


@pytest.mark.parametrize("when", ["written", "writing"])
def test_an_interrupt_says_whether_the_result_was_written(ws, capsys, tmp_path, monkeypatch, when):
    """Ctrl-C once the result is in place (--force: the earlier one replaced) says where it is,
    not that the earlier result is intact; during the writing, that nothing was replaced."""
    from coschedlab import bundled
    from coschedlab.cli.main import INTERRUPTED
    from coschedlab.engine.result import Result

    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    shutil.copytree(ws / "prev", tmp_path / "r")
    before = digest(tmp_path / "r")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    # written: the interrupt comes as the table is printed (its title is the trace's name)
    monkeypatch.setattr(
        *((bundled, "file_name") if when == "written" else (Result, "write")), interrupt
    )
    code, out, err = run_cli(["simulate", "small.swf", "--out", "r", "--force"], tmp_path, capsys)
    assert code == 130
    if when == "written":
        assert err.strip() == "interrupted once the result was written whole: outputs in r/"
        assert digest(tmp_path / "r") != before
        assert (tmp_path / "r" / "jobs.parquet").is_file()
    else:
        assert err.strip() == INTERRUPTED
        assert digest(tmp_path / "r") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "small.swf"]  # no temporary
    # a later command in this process, interrupted while writing: not the earlier one's words
    monkeypatch.setattr(Result, "write", interrupt)
    code, out, err = run_cli(["simulate", "small.swf", "--out", "r", "--force"], tmp_path, capsys)
    assert (code, err.strip()) == (130, INTERRUPTED)


def test_an_interrupted_report_leaves_no_folder_it_made(ws, capsys, tmp_path, monkeypatch):
    """Ctrl-C while report draws: it says no partial result was written, and the --out folder
    it made is gone (audit17: an empty folder holding only the marker was left); a folder that
    was there before stays."""
    import coschedlab.report as report_module
    from coschedlab.cli.main import INTERRUPTED

    shutil.copytree(ws / "prev", tmp_path / "prev")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_module, "write_report", interrupt)
    code, out, err = run_cli(["report", "prev", "--out", "rep"], tmp_path, capsys)
    assert (code, err.strip()) == (130, INTERRUPTED)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prev"]
    (tmp_path / "mine").mkdir()
    code, out, err = run_cli(["report", "prev", "--out", "mine"], tmp_path, capsys)
    assert code == 130 and (tmp_path / "mine").is_dir()


# -- processes ----------------------------------------------------------------------------
def _children(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    pairs = [tuple(map(int, line.split())) for line in out.splitlines() if line.strip()]
    found, frontier = set(), {pid}
    while frontier:
        nxt = {p for p, pp in pairs if pp in frontier and p not in found}
        found |= nxt
        frontier = nxt
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def _kill_expecting_no_leftover(proc: subprocess.Popen, children: set[int], what: str) -> None:
    """SIGKILL ``proc``, give its ``children`` 10 s to end, kill those still alive (nothing
    is left behind by the test) and fail naming them."""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in children):
        time.sleep(0.2)
    left = [p for p in children if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"{what} still running after their parent was killed: {left}"


def test_killing_compare_leaves_no_worker_behind(ws, tmp_path):
    for name in ("trace.swf", "sleeps.py"):
        shutil.copy(ws / name, tmp_path / name)
    (tmp_path / "spec.yaml").write_text(
        "name: slow\noutput: cmp\nbaseline: fcfs\nplots: none\n"
        "schedulers: [sleeps.py, fcfs]\nworkloads:\n  - {name: t, trace: trace.swf}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "compare", "spec.yaml", "--jobs", "2"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.3)
        workers = _children(proc.pid)
    assert workers, "no worker process started"
    _kill_expecting_no_leftover(proc, workers, "workers")


def test_killing_a_real_study_leaves_no_run_behind(ws, tmp_path):
    """A run of ``study run --executor real`` is in its own session (its parent becomes 1 when
    the study dies): a SIGKILL of the study must still end it within seconds."""
    spec = (ws / "st_cmd_fails.yaml").read_text().replace("sys.exit(1)", "time.sleep(600)")
    (tmp_path / "slow.yaml").write_text(spec.replace("import sys;", "import time;"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "study", "run", "slow.yaml", "--out", "s",
         "--executor", "real"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    runs: set[int] = set()
    while time.monotonic() < deadline and not runs:
        time.sleep(0.3)
        runs = {p for p in _children(proc.pid) if "sleep(600)" in _cmdline(p)}
    assert runs, "no run started"
    _kill_expecting_no_leftover(proc, runs, "runs")


def _force_over_prev(ws: Path, tmp_path: Path, **output) -> tuple[subprocess.Popen, str]:
    """``simulate --force`` of a sleeping policy over a copy of the earlier result ``prev``,
    started in ``tmp_path``: the process and the earlier result's digest."""
    for name in ("small.swf", "sleeps.py"):
        shutil.copy(ws / name, tmp_path / name)
    shutil.copytree(ws / "prev", tmp_path / "prev")
    before = digest(tmp_path / "prev")
    proc = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "simulate", "small.swf", "-s", "sleeps.py",
         "--out", "prev", "--force"],
        cwd=tmp_path, **output,
    )  # fmt: skip
    return proc, before


def test_a_killed_force_leaves_nothing_a_later_run_does_not_remove(ws, capsys, tmp_path):
    """``simulate --force`` SIGKILLed mid-run keeps the earlier result and leaves its hidden
    temporary copy; the next run beside it removes that copy (its process is dead)."""
    proc, before = _force_over_prev(
        ws, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob(".tmp-prev-*")):
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(tmp_path.glob(".tmp-prev-*")), "the killed run left no temporary copy"
    assert digest(tmp_path / "prev") == before
    mine = tmp_path / f".tmp-mine-{os.getpid()}-0123abcd"  # a live process's: kept
    mine.mkdir()
    code, out, err = run_cli(["simulate", "small.swf", "--out", "again"], tmp_path, capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob(".*")) == [mine.name]


def test_an_earlier_result_moved_aside_by_a_killed_swap_is_put_back(tmp_path):
    from coschedlab.outputs import check_target

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    aside = tmp_path / f".old-res-{dead.pid}-0123abcd"
    aside.mkdir()
    (aside / "metrics.json").write_text("{}")
    (tmp_path / f".tmp-res-{dead.pid}-89abcdef").mkdir()  # the new one, half written
    with pytest.raises(InputError, match="already holds a result"):
        check_target(tmp_path / "res")  # the earlier result is back: not replaced silently
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]
    assert (tmp_path / "res" / "metrics.json").read_text() == "{}"


DEFIANT = {  # policies that ignore or swallow the pass time limit's interruption
    "ignores_sigint": "signal.signal(signal.SIGINT, signal.SIG_IGN)\n        while True:\n            pass",
    "swallows_all": "while True:\n            try:\n                time.sleep(1)\n            except BaseException:\n                pass",
    "blocks_ignoring": "signal.signal(signal.SIGINT, signal.SIG_IGN)\n        time.sleep(3600)",
    "returns_late": "try:\n            time.sleep(3600)\n        except KeyboardInterrupt:\n            return []",
}


def _simulate_with_limit(tmp_path: Path) -> subprocess.CompletedProcess:
    """``simulate small.swf -s p.py --pass-timeout 0.5`` in ``tmp_path``: exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", "simulate", "small.swf", "-s", "p.py",
         "--pass-timeout", "0.5", "--out", "o"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done


@pytest.mark.parametrize("name", sorted(DEFIANT))
def test_the_pass_time_limit_holds_against_a_defiant_policy(ws, tmp_path, name):
    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    (tmp_path / "p.py").write_text(
        "import signal, time\nfrom coschedlab.schedulers import Scheduler\n\n"
        f"class P(Scheduler):\n    name = 'p'\n\n    def schedule(self, view):\n        {DEFIANT[name]}\n"
    )
    t0 = time.monotonic()
    done = _simulate_with_limit(tmp_path)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "a pass at t=0 took more than 0.5 s" in lines[0], done.stderr
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "base, method",
    [("EASY", "schedule"), ("Conservative", "schedule"), ("EASY", "ordered_queue"),
     ("Conservative", "ordered_queue"), ("FCFS", "ordered_queue"), ("EASY", "order_key")],
)  # fmt: skip
def test_the_pass_time_limit_holds_for_the_backfilling_family(ws, tmp_path, base, method):
    """A subclass of EASY or conservative that writes its own pass is timed (Backfill.setup
    used to bind the pass after the limit wrapped ``schedule``: the limit never fired). So
    is one that keeps the compiled pass with its own ``ordered_queue`` or order key, which the
    kernel calls in Python at each pass (no ``schedule`` to time: the limit never fired)."""
    shutil.copy(ws / "small.swf", tmp_path / "small.swf")
    hook = (
        "    def __init__(self):\n        super().__init__(order=lambda view, j: self.key(j))\n\n"
        "    def key(self, j):\n"
        if method == "order_key"
        else f"    def {method}(self, view):\n"
    )
    (tmp_path / "p.py").write_text(
        f"from coschedlab.schedulers import {base}\n\n"
        f"class P({base}):\n    name = 'p'\n\n{hook}"
        "        while True:\n            pass\n"
    )
    done = _simulate_with_limit(tmp_path)
    assert "a pass at t=0 took more than 0.5 s" in done.stderr
    assert not (tmp_path / "o").exists()


def test_the_pass_time_limit_leaves_the_policy_as_it_found_it():
    from coschedlab.api import simulate
    from coschedlab.jobs import Workload
    from coschedlab.platform import Cluster
    from coschedlab.schedulers import get_scheduler

    sched = get_scheduler("easy")
    before = (sched.__dict__.get("schedule"), sched.__dict__.get("setup"))
    w = Workload.from_records(
        [{"id": i, "submit": i, "run": 10, "requested_time": 20, "procs": 1} for i in range(1, 6)]
    )
    a = simulate(w, Cluster(nodes=2, sockets_per_node=1, cores_per_socket=1), sched,
                 pass_timeout=5.0)  # fmt: skip
    assert "setup" not in sched.__dict__  # the class's own setup again
    assert "schedule" not in sched.__dict__ and before == (None, None)
    b = simulate(w, Cluster(nodes=2, sockets_per_node=1, cores_per_socket=1), "easy")
    assert a.jobs["start"].tolist() == b.jobs["start"].tolist()


def test_the_pass_time_limit_on_a_compiled_pass_hooks_changes_nothing():
    """The limit wraps a compiled pass's Python hooks (a subclass's ``ordered_queue``, an
    order key) for the run only: the same schedule as without it, the hooks as they were.
    Each pass is timed alone: a run far longer than the limit, of short passes, is fine."""
    from coschedlab.api import simulate
    from coschedlab.jobs import Workload
    from coschedlab.platform import Cluster
    from coschedlab.schedulers import EASY

    class Widest(EASY):
        name = "widest"

        def ordered_queue(self, view):
            time.sleep(0.001)  # a run of ~600 passes: longer than the limit, each pass not
            return sorted(view.queue, key=lambda j: -view.nodes[j])

    def narrowest(view, j):
        if j == view.queue[0]:
            time.sleep(0.001)
        return view.nodes[j]

    w = Workload.from_records(
        [{"id": i, "submit": 3 * i, "run": 40 + 7 * (i % 5), "requested_time": 90,
          "procs": 1 + (5 * i) % 4} for i in range(1, 600)]
    )  # fmt: skip
    cluster = Cluster(nodes=4, sockets_per_node=1, cores_per_socket=1)
    for sched in (Widest(), EASY(order=narrowest)):
        key = sched.order_key
        plain = simulate(w, cluster, sched)
        assert plain.wall_time > 0.3  # the whole run; each pass takes far less
        timed = simulate(w, cluster, sched, pass_timeout=0.3)
        assert "ordered_queue" not in sched.__dict__ and sched.order_key is key
        assert timed.jobs["start"].tolist() == plain.jobs["start"].tolist()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_ctrl_c_says_so_and_leaves_nothing_half_written(ws, tmp_path):
    proc, before = _force_over_prev(
        ws, tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob(".tmp-prev-*")):
        time.sleep(0.1)  # the run has begun once its temporary directory exists
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines() == [
        "interrupted; no partial result was written (earlier results are intact; sweeps resume)"
    ]
    assert digest(tmp_path / "prev") == before
    assert not list(tmp_path.glob(".tmp-*")) and not list(tmp_path.glob(".old-*"))


def test_ctrl_c_while_the_workers_start_prints_one_line(ws, tmp_path):
    """Ctrl-C (to the terminal's process group) while the forkserver imports the runs'
    modules and the sweep waits to start its workers: one line and exit code 130. The
    forkserver printed its KeyboardInterrupt traceback, and a worker it forked after this
    process had gone printed another (its queue's semaphore gone)."""
    for name in ("spec.yaml", "trace.swf"):
        shutil.copy(ws / name, tmp_path / name)
    for attempt in range(3):  # on a loaded machine the short sweep may end before the signal
        proc = subprocess.Popen(
            [sys.executable, "-m", "coschedlab.cli", "compare", "spec.yaml", "--out",
             f"c{attempt}", "-j", "2"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
            "forkserver" in _cmdline(p) for p in _children(proc.pid)
        ):
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        if proc.returncode != 0:
            break
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted"), err


SLOW = """
import time
from coschedlab.schedulers import Scheduler, start_in_order


class Slow(Scheduler):
    name = "slow"

    def schedule(self, view):
        time.sleep(0.05)
        return start_in_order(view, view.queue, view.free)
"""


@pytest.mark.parametrize("jobs", [pytest.param("1", marks=pytest.mark.slow), "2"])
def test_sigterm_stops_a_sweep_as_ctrl_c_does(tmp_path, jobs):
    """SIGTERM to the whole process group (``timeout``, a Slurm time limit) once some runs
    are stored: the Ctrl-C line with how to resume, exit code 130, no worker's run stored as
    failed, nothing else on stderr (it died silently: a "leaked semaphore" warning, no
    resume line); the resumed sweep runs only what is missing."""
    from experiments._experiments_data import base_spec, write_spec

    doc = base_spec(tmp_path)
    (tmp_path / "slow.py").write_text(SLOW)
    doc["schedulers"] = ["fcfs", "slow.py"]
    write_spec(tmp_path / "s.yaml", doc)
    args = [sys.executable, "-m", "coschedlab.cli", "compare", "s.yaml", "--out", "o", "-j", jobs]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=env)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((tmp_path / "o").glob("*/*/rep*/run.json")):
        time.sleep(0.05)  # a first run stored (its files are written in a hidden folder first)
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = [line for line in err.strip().splitlines() if not line.startswith("tiny: ")]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    assert f"resume with: coschedlab compare s.yaml --out o --jobs {jobs}" in lines[0]
    stored = int(lines[0].split()[1])
    assert 0 < stored < 12, err
    assert not [p for p in (tmp_path / "o").rglob("*") if "error" in p.name]
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr
    assert f"{stored} of 12 runs already stored" in again.stdout + again.stderr, again.stdout


def test_interrupted_compare_says_only_how_to_resume(capsys, tmp_path, monkeypatch):
    from experiments._experiments_data import base_spec, write_boom, write_spec

    doc = base_spec(tmp_path)
    write_boom(tmp_path / "boom.py")
    doc["schedulers"] = ["fcfs", "boom.py"]
    write_spec(tmp_path / "s.yaml", doc)
    monkeypatch.setenv("COSCHEDLAB_TEST_INTERRUPT", "1")  # Ctrl-C in the middle of a run
    code, out, err = run_cli(["compare", "s.yaml", "--out", "o", "-j", "1"], tmp_path, capsys)
    assert code == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: 1 of 12 runs are stored"), err
    assert "resume with: coschedlab compare s.yaml --out o --jobs 1" in lines[0]
