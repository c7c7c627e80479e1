"""Comparison specs: strict validation with the key path, the file and a suggestion."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from _experiments_data import base_spec, write_spec

from coschedlab.errors import InputError
from coschedlab.experiments import load_spec
from coschedlab.platform import Cluster


@pytest.fixture
def doc(tmp_path: Path) -> dict:
    return base_spec(tmp_path)


def error_of(tmp_path: Path, doc: dict | str) -> str:
    path = write_spec(tmp_path / "spec.yaml", doc)
    with pytest.raises(InputError) as info:
        load_spec(path)
    return str(info.value)


def test_valid_spec_is_normalised(tmp_path: Path, doc: dict) -> None:
    spec = load_spec(write_spec(tmp_path / "spec.yaml", doc))
    assert spec.name == "tiny"
    assert spec.repetitions == 2 and spec.seed == 3 and spec.baseline == "fcfs"
    assert [s.label for s in spec.schedulers] == ["fcfs", "easy"]
    mix, small, trace = spec.workloads
    assert mix.kind == "pool" and Path(mix.path) == (tmp_path / "pool.json").resolve()
    assert mix.cluster == Cluster(4, 1, 4) and mix.colocation is False
    assert small.select_procs == (4,)
    assert trace.kind == "trace" and trace.limit == 30
    assert spec.output == Path("out") / "spec"  # default: out/<spec stem>


def test_unknown_key_names_path_file_and_suggestion(tmp_path: Path, doc: dict) -> None:
    doc["workloads"][1]["arival"] = doc["workloads"][1].pop("select") and "constant:0"
    msg = error_of(tmp_path, doc)
    assert re.search(
        r"spec\.yaml:\d+: unknown key 'workloads\[1\]\.arival' \(did you mean 'arrival'\?\)$", msg
    ), msg


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d.update(repetition=3), "'repetition' (did you mean 'repetitions'?)"),
        (lambda d: d["cluster"].update(cores=4), "unknown key 'cluster.cores'"),
        (lambda d: d["workloads"][1]["select"].update(proc=[4]), "'workloads[1].select.proc'"),
        (lambda d: d["schedulers"].append({"nam": "x", "spec": "sjf"}), "'schedulers[2].nam'"),
    ],
)
def test_unknown_keys_everywhere(tmp_path: Path, doc: dict, edit, expected: str) -> None:
    edit(doc)
    msg = error_of(tmp_path, doc)
    assert "unknown key" in msg and expected in msg and "spec.yaml" in msg


def test_unknown_key_without_close_match_lists_known(tmp_path: Path, doc: dict) -> None:
    doc["zzz"] = 1
    assert "known: name, cluster" in error_of(tmp_path, doc)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d.update(repetitions="four"), "'repetitions' must be an integer, got 'four'"),
        (lambda d: d.update(repetitions=0), "'repetitions' must be >= 1"),
        (lambda d: d.update(kill_at_walltime="yes"), "'kill_at_walltime' must be true or false"),
        (lambda d: d["workloads"][0].update(jobs=2.5), "'workloads[0].jobs' must be an integer"),
        (lambda d: d["cluster"].update(nodes=0), "'cluster.nodes' must be >= 1"),
        (lambda d: d.update(schedulers="fcfs"), "'schedulers' must be a non-empty list"),
        (lambda d: d["workloads"][0].update(names="A"), "'workloads[0].names' must be a non-emp"),
        (lambda d: d["workloads"][0].update(requested_factor=0), "requested_factor' must be > 0"),
        (lambda d: d.update(plots="some"), "'plots' must be one of comparison, full, none"),
    ],
)
def test_bad_types_and_values(tmp_path: Path, doc: dict, edit, expected: str) -> None:
    edit(doc)
    assert expected in error_of(tmp_path, doc)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["workloads"][2].update(jobs=5), "'workloads[2].jobs' does not apply to a tr"),
        (lambda d: d["workloads"][0].update(limit=5), "'workloads[0].limit' does not apply to a p"),
        (lambda d: d["workloads"][0].update(trace="t.swf"), "both 'pool' and 'trace'"),
        (lambda d: d["workloads"][0].pop("pool"), "needs 'pool' (an application pool) or 'trace'"),
        (lambda d: d["workloads"][0].update(pool="nope.json"), "'workloads[0].pool': no such file"),
        (lambda d: d["workloads"][1].update(name="mix"), "workload name 'mix' is used twice"),
        (lambda d: d["workloads"][1].update(name="a/b"), "'workloads[1].name' must use letters"),
        (lambda d: d["workloads"][0].update(names=["A", "Q"]), "unknown application 'Q'"),
        (lambda d: d["workloads"][1].update(select={"procs": [3]}), "matches no application"),
        (lambda d: d["schedulers"].append("nosuch"), "'schedulers[2]': unknown scheduler 'nos"),
        (lambda d: d["schedulers"].append("fcfs"), "two schedulers share the label 'fcfs'"),
        (lambda d: d.update(baseline="eas"), "'baseline' must be one of the scheduler labels"),
        (lambda d: d.pop("workloads"), "missing key 'workloads'"),
        (lambda d: d["cluster"].update(nodes=1), "needs 8 processors but the cluster has 4"),
    ],
)
def test_inconsistent_specs(tmp_path: Path, doc: dict, edit, expected: str) -> None:
    edit(doc)
    msg = error_of(tmp_path, doc)
    assert expected in msg, msg


def test_pool_workload_needs_a_cluster(tmp_path: Path, doc: dict) -> None:
    doc.pop("cluster")
    assert "'workloads[0]' is a pool workload: give 'cluster'" in error_of(tmp_path, doc)
    # a trace alone takes its cluster from the SWF header
    only_trace = copy.deepcopy(doc)
    only_trace["workloads"] = [doc["workloads"][2]]
    spec = load_spec(write_spec(tmp_path / "t.yaml", only_trace))
    assert spec.workloads[0].cluster == Cluster(4, 1, 4)


def test_yaml_problems(tmp_path: Path) -> None:
    assert "not valid YAML" in error_of(tmp_path, "name: [unclosed\n")
    assert "appears twice" in error_of(tmp_path, "seed: 1\nseed: 2\n")
    assert "the spec is empty" in error_of(tmp_path, "")
    with pytest.raises(InputError, match="no such file"):
        load_spec(tmp_path / "missing.yaml")


def test_scheduler_labels_and_files(tmp_path: Path, doc: dict) -> None:
    (tmp_path / "mine.py").write_text(
        "from coschedlab.schedulers import Scheduler\n"
        "class Mine(Scheduler):\n"
        "    def schedule(self, view):\n"
        "        return []\n"
    )
    doc["schedulers"] = [
        "easy:depth=2",
        {"name": "cons", "spec": "conservative"},
        "mine.py",
    ]
    doc["baseline"] = "conservative"  # a spec string names its scheduler too
    spec = load_spec(write_spec(tmp_path / "spec.yaml", doc))
    labels = [s.label for s in spec.schedulers]
    assert labels == ["easy:depth=2", "cons", "mine"]
    assert [s.slug for s in spec.schedulers] == ["easy_depth=2", "cons", "mine"]
    assert spec.schedulers[2].spec == str((tmp_path / "mine.py").resolve())
    assert spec.baseline == "cons"


def test_each_scheduler_is_built_once_when_the_spec_is_read(tmp_path: Path, doc: dict) -> None:
    """The check of shared nodes built every scheduler a second time (and told a ``.py``
    policy by ``spec.split(":")``): each is parsed and built once, its
    ``needs_shared_nodes`` kept; a co-scheduler with a trace is still refused."""
    (tmp_path / "counted.py").write_text(
        "from pathlib import Path\n"
        "from coschedlab.schedulers import Scheduler\n"
        "class Counted(Scheduler):\n"
        "    def __init__(self, k: int = 1, order: str = 'fcfs'):\n"
        "        super().__init__(order)\n"
        "        self.k = k\n"
        f"        with open({str(tmp_path / 'built.txt')!r}, 'a') as f:\n"
        "            f.write('built\\n')\n"
        "    def schedule(self, view):\n"
        "        return []\n"
    )
    assert any(w.get("trace") for w in doc["workloads"])  # (a workload without shared nodes)
    doc["schedulers"], doc["baseline"] = ["easy", "counted.py:k=2"], "easy"
    load_spec(write_spec(tmp_path / "spec.yaml", doc))
    assert (tmp_path / "built.txt").read_text() == "built\n"
    doc["schedulers"], doc["baseline"] = ["counted.py:k=3", "easy-coloc"], "counted:k=3"
    with pytest.raises(InputError, match=r"'schedulers\[1\]' \(easy-coloc\) needs shared nodes"):
        load_spec(write_spec(tmp_path / "spec.yaml", doc))


def test_every_name_a_comparison_writes_is_reserved_for_workloads():
    from coschedlab.experiments import store
    from coschedlab.experiments.spec import RESERVED_NAMES
    from coschedlab.sweeps import progress

    written = {*store.ANALYSIS_OUTPUTS, store.SPEC_FILE, progress.SWEEP_FILE}
    assert written <= set(RESERVED_NAMES)


@pytest.mark.parametrize(
    ("edit", "at"),
    [
        (lambda d: d.update(baseline="eas"), "baseline: eas"),
        (lambda d: d.update(plots="some"), "plots: some"),
        (lambda d: d["schedulers"].append("nosuch"), "- nosuch"),
        (lambda d: d["schedulers"].append("fcfs"), "- fcfs"),
        (lambda d: d["workloads"][1].update(name="mix"), "- name: mix"),
        (lambda d: d["workloads"][0].update(trace="t.swf"), "- name: "),
        (lambda d: d["workloads"][2].update(jobs=5), "jobs: 5"),
        (lambda d: d["workloads"][0].update(names=["A", "Q"]), "- name: "),
    ],
)
def test_consistency_errors_give_the_line(tmp_path: Path, doc: dict, edit, at: str) -> None:
    """Every spec error names file:line, the line of the key at fault (the last one when two
    clash); 'baseline', 'plots' and an unknown scheduler named the file alone."""
    import re

    edit(doc)
    msg = error_of(tmp_path, doc)
    found = re.match(r".*spec\.yaml:(\d+): ", msg)
    assert found, msg
    line = (tmp_path / "spec.yaml").read_text().splitlines()[int(found.group(1)) - 1]
    assert line.strip().startswith(at), (line, msg)
    if at == "- fcfs":  # the second fcfs, not the first
        text = (tmp_path / "spec.yaml").read_text().splitlines()
        assert [t.strip() for t in text].index("- fcfs") < int(found.group(1)) - 1
