"""What a hostile pass of the running dashboard found, kept as tests: values the forms never
send (crafted requests), names and paths that would leave the workspace, uploads that would
run or leave files behind, numbers that would run for days, and any callback failure shown
as one line in the page instead of a silent HTTP 500."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re

import pytest

from coschedlab.errors import InputError
from coschedlab.experiments.spec import spec_from_dict
from coschedlab.gui import Workspace
from coschedlab.gui import workspace as W
from coschedlab.gui.launch import launch_name
from coschedlab.gui.pages.run import spec_document
from coschedlab.gui.results import Comparison


def data_url(raw: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


@pytest.fixture
def ws(tmp_path):
    return Workspace.at(tmp_path / "ws")


@pytest.mark.parametrize(("text", "says"), [
    ("notes.txt", "is a file"),
    ("specs/c1.yaml", "cannot be in specs/"),
    ("uploads", "cannot be in uploads/"),
    ("specs/mine", "cannot be in specs/"),
    ("x\ny", "control character"),
    ("a" * 300, "too long"),
    ("/".join(["b" * 200] * 30), "too long"),
    (["a"], "must be text"),
    (5, "must be text"),
])  # fmt: skip
def test_output_folders_that_would_fail_later_are_refused_now(ws, text, says):
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "c1.yaml").write_text("x")
    (ws.root / "notes.txt").write_text("x")
    with pytest.raises(InputError, match=says) as got:
        ws.output(text)
    assert "\n" not in str(got.value).replace("x\ny", "")


def test_nested_folders_never_share_spec_log_and_progress_files(ws):
    names = {launch_name(ws, ws.output(p)) for p in ("a/b", "a_b", "a/b/c", "a_b_c", "a_b/c")}
    assert len(names) == 5 and "a_b" in names


def test_upload_names_are_cleaned_shortened_and_a_refusal_leaves_nothing(ws):
    swf = b"; t\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    path = ws.save_upload("../../../../tmp/" + "x" * 1000 + ".swf", data_url(swf), "swf")
    assert path.parent.parent == ws.root / "uploads" and path.name.endswith(".swf")
    assert len(path.name) <= W.MAX_NAME and path.read_bytes() == swf
    before = sorted(p.relative_to(ws.root) for p in ws.root.rglob("*"))
    bad_gz = gzip.compress(b"1 0 5 100 4\n" * 100)[:-30] + b"garbage" * 5  # a broken stream
    for name, raw, kind in (("t.swf.gz", bad_gz, "swf"), ("t.swf", b"\n\n", "swf"),
                            ("p.json", b"{", "pool"), ("x.py", b"import sys; sys.exit(3)\n",
                                                       "policy")):  # fmt: skip
        with pytest.raises(InputError) as got:
            ws.save_upload(name, data_url(raw), kind)
        assert str(got.value).startswith(name) and "\n" not in str(got.value)
    after = sorted(p.relative_to(ws.root) for p in ws.root.rglob("*"))
    assert after == before  # no file, no empty folder, no checking folder left
    for contents in (["a", "b"], 5, None):
        with pytest.raises(InputError, match="not a file the browser sent"):
            ws.save_upload("t.swf", contents, "swf")


def test_a_policy_upload_runs_in_a_process_of_its_own_with_a_time_limit(ws, monkeypatch):
    marker = ws.root / "imported-in.txt"
    code = f"import os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"
    with pytest.raises(InputError, match="defines no subclass"):
        ws.save_upload("mine.py", data_url(code.encode()), "policy")
    assert int(marker.read_text()) != os.getpid()  # never imported by the server
    monkeypatch.setattr(W, "UPLOAD_CHECK_S", 2.0)
    with pytest.raises(InputError, match="took over 2 s"):
        ws.save_upload("slow.py", data_url(b"while True:\n    pass\n"), "policy")


@pytest.mark.parametrize("text", ["/tmp/evil.py", "../evil.py", "evil.py:x=1", "a\\b"])
def test_scheduler_specs_naming_files_are_refused(text):
    with pytest.raises(InputError, match="uploaded"):
        W.scheduler_text(text)
    assert W.scheduler_text(" easy:depth=50 ") == "easy:depth=50"


def test_a_comparison_opens_only_its_own_stored_runs(tmp_path):
    c = Comparison(tmp_path, "c", "easy", ("easy",), None, (("pool", "easy", 0),))
    assert c.run_dir("pool", "easy", 0) == tmp_path / "pool" / "easy" / "rep0"
    for bad in (("../../other/pool", "easy", 0), ("pool", "easy", "0/../../x"),
                ("pool", ["easy"], 0), ("pool", "easy", 1)):  # fmt: skip
        with pytest.raises(InputError, match="no stored run"):
            c.run_dir(*bad)


FORM = {"nodes": 20, "sockets": 2, "cores": 10, "kind": "pool",
        "pool": "coschedlab:pools/lm-aris.compute-NAS.json", "jobs": 50,
        "arrival": "poisson:30", "schedulers": ["easy"], "repetitions": 1, "seed": 0}  # fmt: skip


@pytest.mark.parametrize(("change", "says"), [
    ({"nodes": 0}, "number of nodes must be a whole number >= 1, got 0"),
    ({"nodes": True}, "number of nodes"),
    ({"nodes": "inf"}, "number of nodes"),
    ({"nodes": "nan"}, "number of nodes"),
    ({"nodes": 10**30}, "'cluster.nodes' must be <= 10,000,000"),
    ({"repetitions": 0}, "repetitions must be a whole number >= 1, got 0"),
    ({"repetitions": 10**9}, "'repetitions' must be <= 1,000"),
    ({"jobs": 10**12}, "'workloads[0].jobs' must be <= 5,000,000"),
    ({"seed": 2**70}, "'seed' must be <= 9,223,372,036,854,775,807"),
    ({"arrival": ["x"]}, "arrival must be text"),
    ({"schedulers": [{"a": 1}]}, "scheduler must be text"),
    ({"schedulers": "easy"}, "schedulers must be a list"),
])  # fmt: skip
def test_form_values_that_make_no_sense_are_one_line_errors(tmp_path, change, says):
    with pytest.raises(InputError, match=re.escape(says)) as got:
        spec_from_dict(spec_document({**FORM, **change}), tmp_path / "x.yaml")
    assert "\n" not in str(got.value)


def test_an_unexpected_callback_failure_is_one_line_in_the_page(ws, monkeypatch):
    """A failure no callback expects (here: opening a stored sweep breaks): the callback
    answers (no HTTP 500, no traceback) and the page shows one line under the navigation
    bar; clicking it dismisses it."""
    from coschedlab.gui import sweeps
    from coschedlab.gui.app import ERROR_BANNER, Context, make_app

    def broken(*_args):
        raise RuntimeError("the disk\nwent away")

    monkeypatch.setattr(sweeps, "sweep_view", broken)
    app = make_app(Context(ws))
    client = app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()

    def call(output_id: str, inputs: list, state: list | None = None) -> dict:
        cb = next(d for d in deps if d["output"].strip(".").split("...")[0].startswith(
            output_id))  # fmt: skip
        outputs = [{"id": o.split(".")[0], "property": o.split(".")[1].split("@")[0]}
                   for o in cb["output"].strip(".").split("...")]  # fmt: skip
        body = {"output": cb["output"], "inputs": inputs,
                "outputs": outputs if len(outputs) > 1 else outputs[0],  # as Dash's client
                "state": state or [],
                "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"]}  # fmt: skip
        got = client.post("/_dash-update-component", json=body)
        assert got.status_code == 200, got.data[:300]
        return json.loads(got.data)

    answer = call("wf-sweep-result.children", [
        {"id": "wf-sweep-open", "property": "value", "value": "somewhere"},
        {"id": "wf-sweep-tick", "property": "disabled", "value": True}])  # fmt: skip
    shown = answer["sideUpdate"][ERROR_BANNER]["children"]
    assert shown == "error: RuntimeError: the disk went away"
    cleared = call(f"{ERROR_BANNER}.children",
                   [{"id": ERROR_BANNER, "property": "n_clicks", "value": 1}])  # fmt: skip
    assert cleared["response"][ERROR_BANNER]["children"] == ""


WF_SPEC = ("name: tiny\nmachine: 60x24\nworkflows: [A2]\nshares: [0.2]\nwindow: 14400\n"
           "warmup: 0\ntarget_wait: 600\nseeds: 1\n")  # fmt: skip


@pytest.mark.parametrize(("kind", "extra", "says"), [
    ("workflow-sweep", "scheduler: /tmp/evil.py\n", "outside the workspace: '/tmp/evil.py'"),
    ("workflow-sweep", "scheduler: ../../../evil.py\n", "outside the workspace"),
    ("workflow-sweep", "executor: dask-local:2\n", "cannot choose the executor"),
    ("coupled-sweep", "", "outside the workspace: '/etc/x.swf'"),
])  # fmt: skip
def test_an_uploaded_sweep_spec_reaches_nothing_outside_the_workspace(ws, kind, extra, says):
    text = (WF_SPEC + extra if kind == "workflow-sweep" else
            "large: theta\nsmall: /etc/x.swf\nschemes: [HH]\nloads: [0.5]\n")  # fmt: skip
    with pytest.raises(InputError, match=re.escape(says)):
        ws.save_upload("spec.yaml", data_url(text.encode()), kind)
    assert not (ws.root / "uploads").exists() or not any((ws.root / "uploads").rglob("*.yaml"))


def test_a_scheduler_a_sweep_spec_names_is_loaded_outside_the_server(ws):
    """A spec naming a policy file in the workspace is read in a process of its own: the
    policy's module code never runs in the server, and one that ends its process is a
    one-line error."""
    folder = ws.root / "uploads" / "mine"
    folder.mkdir(parents=True)
    (folder / "ends.py").write_text("import os\nos._exit(7)\n")
    (folder / "spec.yaml").write_text(WF_SPEC + "scheduler: uploads/mine/ends.py\n")
    from coschedlab.gui.isolated import call_isolated, dotted
    from coschedlab.sweeps.capability import check_sweep

    with pytest.raises(InputError, match="ended the process"):
        call_isolated(dotted(check_sweep), "workflows", str(folder / "spec.yaml"),
                      str(ws.root / "o"), cwd=ws.root, timeout=60, where="spec.yaml")  # fmt: skip


def test_sweeps_too_large_for_the_dashboard_are_refused_before_they_start(ws):
    from coschedlab.sweeps.capability import capability

    coupled_check = capability("coupled").check_command
    workflow_check = capability("workflows").check_command

    big = ws.root / "big.yaml"
    shares = ", ".join(f"{0.0001 * (k + 1):.4f}" for k in range(4000))
    big.write_text(WF_SPEC.replace("[0.2]", f"[{shares}]"))
    with pytest.raises(InputError, match="12,001 runs: the dashboard starts at most 10,000"):
        workflow_check(str(big), str(ws.root / "o"))
    loads = ", ".join(f"{0.0001 * (k + 1):.4f}" for k in range(3000))
    big.write_text(f"large: theta\nsmall: kth\nschemes: [HH, HY, YH, YY]\nloads: [{loads}]\n")
    with pytest.raises(InputError, match="runs: the dashboard starts at most 10,000"):
        coupled_check(str(big), str(ws.root / "o"))


def test_a_damaged_stored_sweep_says_so_and_odd_figures_are_not_inlined(ws):
    from coschedlab.gui.sweeps import sweep_view
    from coschedlab.sweeps.capability import capability

    SWEEP = capability("workflows")

    out = ws.root / "sw"
    (out / "runs").mkdir(parents=True)
    (out / "spec.json").write_text('{"sweep": "workflow"}')
    (out / "summary.csv").write_text(
        "workflow,share,mode,compared,median_wait_h,median_runtime_h,median_turnaround_h,"
        "actual_utilization\nA2,abc,woas,1,0.1,0.2,0.3,0.5\n")  # fmt: skip
    with pytest.raises(InputError, match="damaged table"):
        sweep_view(SWEEP, ws, out)
    (out / "summary.csv").unlink()
    (out / "fake.png").write_text("not a png")
    shown = str(sweep_view(SWEEP, ws, out))
    assert "no table yet" in shown and "not a PNG the command wrote" in shown


def test_output_folders_inside_another_sweep_and_other_kinds_are_refused(ws):
    from coschedlab.sweeps.sweep import check_folder

    (ws.root / "cmp").mkdir()
    (ws.root / "cmp" / "spec.json").write_text('{"runs": {"schedulers": {}, "workloads": {}}}')
    with pytest.raises(InputError, match="inside the stored sweep cmp"):
        ws.output("cmp/inner")
    with pytest.raises(InputError, match="holds a comparison sweep, not a workflow sweep"):
        check_folder(ws.root / "cmp", "workflow", None, ())


def test_in_situ_ensembles_too_large_to_plan_in_the_page_are_refused(ws):
    from coschedlab.gui.pages.insitu import ensemble_file, within_limits

    form = {"S": 64, "A": 8, "V": 4, "N": 64, "steps": 10, "seed": 0, "network": "paper"}
    with pytest.raises(InputError, match="S x A must be at most 256"):
        ensemble_file(ws, form)
    for key, value in (("N", 10**5), ("steps", 10**6), ("S", 10**9)):
        with pytest.raises(InputError, match=f"{key} must be a whole number from 1 to"):
            ensemble_file(ws, {**form, "A": 1, key: value})
    path = ensemble_file(ws, {**form, "A": 1, "S": 16, "N": 4096})  # at the limits: fine
    within_limits(path)
    big = ws.root / "big.yaml"
    big.write_text(path.read_text().replace("nodes: 4096", "nodes: 50000"))
    with pytest.raises(InputError, match="50,000 nodes: this page plans at most 4,096"):
        within_limits(big)


def test_a_comparison_naming_a_policy_never_imports_it_in_the_server(ws):
    """The policy's module code runs in the upload's check and in the comparison's own
    process, never in the dashboard's (the spec is checked there in a process of its own)."""
    from pathlib import Path as P

    from coschedlab.gui.launch import launch

    marker = ws.root / "imported-by.txt"
    code = (P(__file__).parents[2] / "examples" / "smallest_first_backfill.py").read_text()
    code += f"\nimport os\nopen({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
    policy = ws.save_upload("mine.py", data_url(code.encode()), "policy")
    doc = spec_document({**FORM, "jobs": 20, "policies": [str(policy)]})
    started = launch(ws, doc, ws.output("c"), jobs=1)
    started.cancel(grace=2)
    started.proc.wait(60)
    pids = {int(x) for x in marker.read_text().split()}
    assert pids and os.getpid() not in pids


@pytest.mark.parametrize(("body", "says"), [
    (b"import os\nos._exit(0)\n", "ended the process (exit code 0)"),
    (b"import os\nos._exit(7)\n", "ended the process (exit code 7)"),
])  # fmt: skip
def test_a_check_whose_process_merely_ends_is_not_a_pass(ws, body, says):
    with pytest.raises(InputError, match=re.escape(says)):
        ws.save_upload("quits.py", data_url(body), "policy")


def test_spec_paths_are_checked_through_aliases_and_with_spaces(ws, tmp_path):
    import time

    bomb = "a0: &a0 [x]\n" + "".join(
        f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]\n" for k in range(1, 10))  # fmt: skip
    spec = ws.root / "bomb.yaml"
    spec.write_text(bomb)
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="aliases"):  # 10**9 leaves: refused on reading
        W.check_spec_paths(spec, ws.root)
    spec.write_text("\n".join(bomb.splitlines()[:6]) + "\n")  # 10**5 leaves: a spec may
    W.check_spec_paths(spec, ws.root)  # each node read once
    assert time.perf_counter() - t0 < 2.0
    for value in ("/tmp/out side/x.swf", "../../out side/x.swf", " /etc/passwd "):
        spec.write_text(f"workflows: [{value!r}]\n")
        with pytest.raises(InputError, match="outside the workspace"):
            W.check_spec_paths(spec, ws.root)
    spec.write_text("command: /usr/bin/env python sim.py {x}\nworkflows: [uploads/a/b.json]\n")
    W.check_spec_paths(spec, ws.root)  # a study's command is never run here


def test_a_comparison_never_resumes_into_or_clears_another_kind_of_sweep(tmp_path):
    from coschedlab.experiments.spec import spec_from_dict as checked
    from coschedlab.experiments.store import check_spec_compatible, clear

    out = tmp_path / "wf"
    (out / "runs").mkdir(parents=True)
    (out / "spec.json").write_text('{"sweep": "workflow", "modes": ["woas"]}')
    spec = checked(spec_document(FORM), tmp_path / "x.yaml")
    for step in (check_spec_compatible, clear):
        with pytest.raises(InputError, match="holds a workflow sweep, not a comparison"):
            step(out, spec)
    assert (out / "spec.json").is_file()


def test_text_no_file_system_can_hold_is_one_line(ws):
    with pytest.raises(InputError, match="control character"):
        ws.inside("a\ud800b")
