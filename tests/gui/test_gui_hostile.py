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
    monkeypatch.setattr(W, "POLICY_CHECK_S", 2.0)
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


def test_an_unexpected_callback_failure_is_one_line_in_the_page(ws):
    """A value no form sends, reaching code that does not expect it: the callback answers
    (no HTTP 500, no traceback) and the page shows one line under the navigation bar."""
    from coschedlab.gui.app import ERROR_BANNER, Context, make_app

    app = make_app(Context(ws))
    client = app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    cb = next(d for d in deps if any(i["id"] == "wf-sweep-tick" for i in d["inputs"]))
    outputs = [{"id": o.split(".")[0], "property": o.split(".")[1]}
               for o in cb["output"].strip(".").split("...")]  # fmt: skip
    body = {"output": cb["output"], "outputs": outputs,
            "inputs": [{"id": "wf-sweep-tick", "property": "n_intervals", "value": 1}],
            "state": [{"id": "wf-sweep-active", "property": "data", "value": {"x": [1]}}],
            "changedPropIds": ["wf-sweep-tick.n_intervals"]}  # fmt: skip
    got = client.post("/_dash-update-component", json=body)
    assert got.status_code == 200, got.data[:300]
    shown = json.loads(got.data)["sideUpdate"][ERROR_BANNER]["children"]
    assert shown.startswith("error: TypeError") and "\n" not in shown
