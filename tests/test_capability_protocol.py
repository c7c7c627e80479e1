"""The capability protocol: a toy capability registered here, and nowhere else, gets its
command line sweep command (``coschedlab toy compare SPEC``: runs, resumes, prints its table)
and its dashboard page (its sweep section and callbacks), or its section on the page it names;
an existing capability (workflows) registered again under another name, with nothing but its
registration, gets the same, and its reader of uploaded specs; the built-in capabilities'
parts all resolve."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coschedlab.errors import InputError
from coschedlab.schema import load_yaml
from coschedlab.sweeps.capability import (
    Capability,
    capabilities,
    capability,
    register,
    resolve,
    unregister,
)
from coschedlab.sweeps.sweep import Sweep, sweep_kind


@dataclass(frozen=True)
class ToySpec:
    name: str
    values: tuple[int, ...]
    output: Path

    def configs(self) -> dict[str, dict[str, Any]]:
        return {f"v{v}": {"value": v} for v in self.values}


def load_toy(path: Path) -> ToySpec:
    doc = load_yaml(Path(path))
    return ToySpec(doc["name"], tuple(doc["values"]), Path(doc.get("output", "out/toy")))


def square(config: dict[str, Any]) -> dict[str, Any]:
    return {"config": config, "square": config["value"] ** 2}


def shape(record: dict[str, Any]) -> None:
    record["config"]["value"], record["square"]  # noqa: B018


def report(spec: ToySpec, out: Path, rows: list[dict[str, Any]]) -> list[Path]:
    path = out / "squares.json"
    path.write_text(json.dumps({r["config"]["value"]: r["square"] for r in rows}))
    return [path]


def summary(out: Path) -> tuple[str, list[str], list[list[str]]] | None:
    path = out / "squares.json"
    if not path.is_file():
        return None
    squares = json.loads(path.read_text())
    return "toy squares", ["value", "square"], [[k, str(v)] for k, v in sorted(squares.items())]


TOY = Capability(
    "toy", Sweep("toy", square, lambda spec: {"toy": spec.name}, ("toy",), shape),
    load_spec=load_toy, summary=summary, report=report, help="Square every value.",
    title="Sweep: squares", prefix="toy", default_out="sweeps/toy",
)  # fmt: skip


@pytest.fixture
def toy():
    register(TOY)
    yield TOY
    unregister("toy")


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "toy.yaml"
    path.write_text("name: toy\nvalues: [1, 2, 3]\n")
    return path


def test_an_unregistered_capability_has_no_command(spec, tmp_path):
    from coschedlab.cli.main import build_app

    assert "toy" not in [c.name for c in capabilities()]
    r = CliRunner().invoke(build_app(), ["toy", "compare", str(spec)])
    assert r.exit_code != 0


def test_a_registered_capability_gets_its_command_which_runs_and_resumes(toy, spec, tmp_path):
    from coschedlab.cli.main import build_app

    out = tmp_path / "o"
    app = build_app()
    help_text = CliRunner().invoke(app, ["toy", "compare", "--help"]).output
    assert "Square every value." in help_text
    r = CliRunner().invoke(app, ["toy", "compare", str(spec), "--out", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "toy squares" in r.output and "9" in r.output
    assert sweep_kind(out) == "toy"
    assert sorted(p.name for p in (out / "runs").glob("*.json")) == ["v1.json", "v2.json",
                                                                      "v3.json"]  # fmt: skip
    (out / "runs" / "v2.json").unlink()  # as if interrupted: one run is missing
    r = CliRunner().invoke(app, ["toy", "compare", str(spec), "--out", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "2 of 3 runs already stored; 1 to do" in r.output
    assert json.loads((out / "squares.json").read_text()) == {"1": 1, "2": 4, "3": 9}
    # the folder's manifest knows every file the interrupted and the resumed sweep wrote (its
    # runs as they finished, its report): a user's file named like them is not one of them
    from coschedlab.outputs import first_foreign, written

    assert written(out) >= {"spec.json", "runs/v1.json", "runs/v2.json", "squares.json"}
    assert first_foreign(out) is None
    (out / "runs" / "v4.json").write_text("{}")
    assert first_foreign(out) == out / "runs" / "v4.json"


def test_a_registered_capability_gets_its_dashboard_page(toy, tmp_path):
    from coschedlab.gui.app import Context, make_app
    from coschedlab.gui.pages import pages
    from coschedlab.gui.workspace import Workspace

    page = next(p for p in pages() if p.NAME == "toy")
    assert page.PATH == "/toy"
    ctx = Context(Workspace(tmp_path))
    shown = str(page.layout(ctx))
    assert "Sweep: squares" in shown and "toy-sweep-run" in shown and "sweeps/toy" in shown
    app = make_app(ctx)
    outputs = " ".join(app.callback_map)
    assert "toy-sweep-active.data" in outputs and "toy-sweep-result.children" in outputs


def load_scaled(path: Path, *, factor: int = 1) -> ToySpec:
    toy = load_toy(path)
    return ToySpec(toy.name, tuple(v * factor for v in toy.values), toy.output)


def square_but_nine(config: dict[str, Any]) -> dict[str, Any]:
    if config["value"] == 9:
        raise ValueError("nine refused")
    return square(config)


def test_a_capability_declares_its_command_words_options_and_exit_status(spec, tmp_path):
    """A top-level command of its own words, with an option of its own (its value reaches
    the spec loader), its failed runs listed with the command that resumes, exit 1."""
    from dataclasses import replace

    from coschedlab.cli.main import build_app
    from coschedlab.sweeps.capability import Option

    scaled = replace(
        TOY, name="scaled", command="squares", load_spec=load_scaled, failed_exit=1,
        sweep=Sweep("scaled", square_but_nine, lambda spec: {"toy": spec.name}, ("toy",), shape),
        options=(Option("factor", ("--factor",), int, 1, "multiply every value"),),
    )  # fmt: skip
    register(scaled)
    try:
        app = build_app()
        assert "--factor" in CliRunner().invoke(app, ["squares", "--help"]).output
        out = tmp_path / "o"
        args = ["squares", str(spec), "--out", str(out), "-j", "1", "--factor", "3"]
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 1, r.output
        assert json.loads((out / "squares.json").read_text()) == {"3": 9, "6": 36}
        assert "v9: ValueError: nine refused" in " ".join(r.output.split())
        resume = f"resume with: coschedlab squares {spec} --out {out} --jobs 1 --factor 3"
        assert resume in " ".join(r.output.split())
    finally:
        unregister("scaled")


def test_every_built_in_capability_resolves():
    names = [c.name for c in capabilities()]
    # (these at least: a new built-in capability is its registration, no line here)
    assert names == sorted(names) and set(names) >= {
        "comparison", "coupled", "elise", "insitu", "study", "workflows"
    }  # fmt: skip
    for cap in capabilities():
        sweep = cap.the_sweep()
        assert isinstance(sweep, Sweep) and sweep.what
        for part in (cap.load_spec, cap.summary, cap.report, cap.check):
            assert part is None or callable(resolve(part))
    assert capability("workflows").what == "workflow"
    assert capability("study").command_args("S.yaml", "o") == [
        "study", "reproduce", "--spec", "S.yaml", "--out", "o",
    ]  # fmt: skip
    assert capability("comparison").command_args("S.yaml", "o") == ["compare", "S.yaml", "--out",
                                                                   "o"]  # fmt: skip
    assert capability("elise").command_args("E.yaml", "o") == ["elise", "run", "E.yaml", "--out",
                                                              "o"]  # fmt: skip
    # the generated commands with their declared options: none takes what it does not declare
    from coschedlab.cli.main import build_app

    app = build_app()
    helps = {words: CliRunner().invoke(app, [*words.split(), "--help"]).output
             for words in ("compare", "insitu reproduce", "study reproduce", "elise run",
                           "elise")}  # fmt: skip
    assert "SPEC" in helps["compare"].upper() and "--fresh" in helps["compare"]
    assert "--trials" in helps["insitu reproduce"] and "Arguments" not in helps["insitu reproduce"]
    assert "--seeds" in helps["study reproduce"] and "--force" in helps["study reproduce"]
    assert "--fresh" in helps["study reproduce"]  # its own, as compare's (--force: its old name)
    assert "--fresh" not in helps["insitu reproduce"]
    # elise run: generated into the hand-written group (beside its schedulers command)
    assert all(f in helps["elise run"] for f in ("--seed", "--compat", "--fresh", "-o"))
    assert "run" in helps["elise"] and "schedulers" in helps["elise"]


#: a workflows sweep of four short runs (3 modes + the baseline)
TINY_WORKFLOWS = (
    "machine: 60x24\nworkflows: [A2]\nshares: [0.2]\nwindow: 3600\nwarmup: 0\n"
    "target_wait: 600\nseeds: 1\n"
)


@pytest.fixture
def woas_again():
    """The workflows capability registered a second time, under another name: its
    registration's parts and nothing else (no command, page or reader written for it)."""
    cap = register(Capability(
        "woas-again", "coschedlab.workflows.sweep:SWEEP",
        load_spec="coschedlab.workflows.sweep:load_workflow_spec",
        summary="coschedlab.workflows.sweep:summary",
        report="coschedlab.workflows.sweep:report",
        bundled=(("woas-small (bundled)", "coschedlab:sweeps/woas_small.yaml"),),
        title="Sweep: the workflows again", help="The workflow sweep, registered again.",
        upload="woas-again-sweep", prefix="wa",
    ))  # fmt: skip
    yield cap
    unregister("woas-again")


def test_an_existing_capability_registered_again_gets_command_page_reader(woas_again, tmp_path):
    from coschedlab.cli.main import build_app
    from coschedlab.gui.app import Context, make_app
    from coschedlab.gui.pages import pages
    from coschedlab.gui.workspace import Workspace, check_upload

    spec = tmp_path / "s.yaml"
    spec.write_text(TINY_WORKFLOWS)
    out = tmp_path / "o"
    app = build_app()
    assert "registered again" in CliRunner().invoke(app, ["woas-again", "--help"]).output
    r = CliRunner().invoke(app, ["woas-again", "compare", str(spec), "--out", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    assert sweep_kind(out) == "workflow"
    assert len(list((out / "runs").glob("*.json"))) == 4  # 3 modes + the baseline
    title, _, rows = resolve("coschedlab.workflows.sweep:summary")(out)
    assert title in r.output and rows and all(row[0] in r.output for row in rows)
    # its page: its own section, the bundled spec offered, the stored sweep listed
    ctx = Context(Workspace(tmp_path))
    page = next(p for p in pages() if p.NAME == "woas-again")
    shown = str(page.layout(ctx))
    assert "Sweep: the workflows again" in shown and "woas_small.yaml" in shown
    assert "wa-sweep-active.data" in " ".join(make_app(ctx).callback_map)
    assert "value='o'" in shown  # the stored sweep in tmp_path/o, offered to open
    # its reader of uploaded specs: the workflows' spec checks
    check_upload(spec, "woas-again-sweep")
    (tmp_path / "bad.yaml").write_text("machine: 60x24\nworkflows: [A2]\nshares: nope\n")
    with pytest.raises(InputError):
        check_upload(tmp_path / "bad.yaml", "woas-again-sweep")


def test_a_capability_naming_a_page_gets_its_section_there_and_no_page_of_its_own(tmp_path):
    from dataclasses import replace

    from coschedlab.gui.app import Context
    from coschedlab.gui.pages import pages
    from coschedlab.gui.workspace import Workspace

    register(replace(TOY, page="coupled"))
    try:
        every = pages()
        assert "toy" not in [p.NAME for p in every]
        coupled = next(p for p in every if p.NAME == "coupled")
        shown = str(coupled.layout(Context(Workspace(tmp_path))))
        assert "toy-sweep-run" in shown and "cp-run" in shown  # the page's own form kept
        # the built-in ones: the study's section ends the studies page
        studies = str(next(p for p in every if p.NAME == "studies").layout(
            Context(Workspace(tmp_path))))  # fmt: skip
        assert "st-sweep-run" in studies and "st-run" in studies
    finally:
        unregister("toy")


def test_every_bundled_spec_is_read_by_its_capability():
    """Each spec a capability offers (its dashboard page's list) is in the catalogue of
    bundled data and reads with the capability's own loader (a page offering a spec its
    command refuses would fail at a user's first click)."""
    from coschedlab.bundled import CATALOGUE, bundled

    offered = [(cap, value) for cap in capabilities() for _, value in cap.bundled]
    assert {cap.name for cap, _ in offered} >= {"workflows", "coupled", "study", "elise"}
    for cap, value in offered:
        assert value.removeprefix("coschedlab:") in CATALOGUE, value
        common = ("spec", "jobs", "out", "executor", "fresh")  # (the driver's own)
        defaults = {o.name: o.default for o in cap.options if o.name not in common}
        assert cap.read(bundled(value), **defaults) is not None, value


def test_every_option_of_a_sweep_command_has_help() -> None:
    """Each registered capability's command documents every option and argument it has
    (insitu reproduce's --trials, --steps and --seed had no help text)."""
    import typer.main

    from coschedlab import capabilities as _registered  # noqa: F401  (the built-in ones)
    from coschedlab.cli.sweeps import compare_command
    from coschedlab.sweeps.capability import capabilities

    app = typer.Typer()
    seen = []
    for cap in capabilities():
        app.command(cap.name)(compare_command(cap))
        seen.append(cap.name)
    group = typer.main.get_command(app)
    bare = [
        f"{name} {param.name}"
        for name in seen
        for param in group.commands[name].params  # type: ignore[attr-defined]
        if not (getattr(param, "help", None) or "").strip() and param.name != "help"
    ]
    assert "insitu" in seen and not bare, bare


def test_spec_place_reads_where_a_sweep_runs_and_is_stored(tmp_path):
    """The fields every sweep spec loader reads alike (workflows, coupled, comparison and
    study specs): the name (the file's stem by default; a folder's name, or any text of at
    most ``most`` characters), the output (out/NAME by default, or the loader's) and the
    executor; the stored runs' record leaves exactly them out."""
    from coschedlab.schema import Checker
    from coschedlab.sweeps.capability import PLACE, spec_place, spec_record

    path = tmp_path / "my-sweep.yaml"
    ck = Checker(str(path), {})
    placed = {"path": path, "name": "my-sweep", "output": Path("out/my-sweep"), "executor": None}
    assert spec_place(ck, {}, path) == placed
    given = spec_place(ck, {"name": "a b", "executor": "dask-local:2"}, path, 5, Path("o"))
    assert given["name"] == "a b" and given["output"] == Path("o")
    assert given["executor"].kind == "dask-local"
    assert spec_place(ck, {"output": "x/y"}, path, None, Path("o"))["output"] == Path("x/y")
    with pytest.raises(InputError, match=r"'name' must use letters, digits .* got 'a b'"):
        spec_place(ck, {"name": "a b"}, path)
    with pytest.raises(InputError, match="'name'"):
        spec_place(ck, {"name": "a long name"}, path, 5)
    with pytest.raises(InputError, match="'executor'"):
        spec_place(ck, {"executor": "nowhere:1"}, path)

    @dataclass(frozen=True)
    class Placed:
        path: Path
        name: str
        runs: int
        output: Path
        executor: Any

    assert spec_record(Placed(**spec_place(ck, {}, path), runs=3)) == {"runs": 3}
    assert set(PLACE) == set(spec_place(ck, {}, path))
