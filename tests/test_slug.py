"""The one slug (coschedlab.outputs.slug) behind every name made from a label: a comparison's
scheduler folders, a report's figure prefixes, a workflow sweep's run keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from coschedlab.outputs import slug

ROOT = Path(__file__).resolve().parents[1]


def test_scheduler_folders_keep_options_readable():
    assert slug("easy:depth=50") == "easy_depth=50"
    assert slug("slurm: age=1, size=2") == "slurm_age=1,_size=2"
    assert slug("my policy.py+x") == "my_policy.py+x"
    assert slug(":/:") == "scheduler"


def test_report_prefixes_keep_only_dots_and_dashes():
    assert slug("easy:depth=50", keep=".-", fallback="run") == "easy_depth_50"
    assert slug("a+b, c-d.e", keep=".-", fallback="run") == "a_b_c-d.e"
    assert slug("==", keep=".-", fallback="run") == "run"


def test_workflow_run_keys():
    keep = ".+="
    assert slug("montage", keep=keep) == "montage"
    assert slug("CyberShake_1000", keep=keep) == "CyberShake_1000"
    assert slug("montage-chameleon-2mass", keep=keep) == "montage_chameleon_2mass"
    assert slug("a b/c", keep=keep) == "a_b_c"


@pytest.mark.parametrize(
    "spec, runs", [("woas_shares.yaml", "shares"), ("woas_groups.yaml", "groups")]
)
def test_the_stored_reproduction_runs_keep_their_keys(spec, runs):
    """A resumed reproduction finds every run it stored (a changed key would run it again)."""
    import json

    from coschedlab.workflows.sweep import load_workflow_spec

    keys = set(load_workflow_spec(ROOT / "examples" / spec).configs())
    folder = ROOT / "docs" / "workflows_reproduction" / runs
    # the run files are not in the repository (.gitignore): where a reproduction was run here,
    # every stored run must keep its key; everywhere, each workflow name of the stored spec
    # appears unchanged in the keys (a key embeds the name's slug)
    stored = {p.stem for p in (folder / "runs").glob("*.json")}
    assert stored <= keys
    names = json.loads((folder / "spec.json").read_text())["workflows"]
    assert names and all(any(k.startswith(f"{n}-") for k in keys) for n in names), names
