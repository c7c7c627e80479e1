"""Bundled data: ``coschedlab:NAME`` wherever a file is taken, ``coschedlab data`` lists it
all, and a folder of the user's never hides a bundled name."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from coschedlab.bundled import CATALOGUE, bundled, local_path, read_bytes
from coschedlab.coloc import load_pool
from coschedlab.errors import InputError
from coschedlab.schema import load_yaml
from coschedlab.workflows.formats import load_workflow
from coschedlab.workload.swf import read_swf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli import cli  # noqa: E402
from experiments._experiments_data import write_trace  # noqa: E402

DATA = Path(str(resources.files("coschedlab") / "data"))
KTH = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"


def _shipped() -> set[str]:
    return {
        str(p.relative_to(DATA))
        for p in DATA.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"
    }


def test_the_catalogue_names_every_shipped_file_and_only_those():
    assert set(CATALOGUE) == _shipped()
    assert all(len(what) > 20 for what in CATALOGUE.values())


def test_a_name_resolves_with_or_without_its_folder():
    pool = bundled("coschedlab:pools/lm-aris.compute-NAS.json")
    assert (
        bundled("lm-aris.compute-NAS.json")
        == pool
        == bundled("coschedlab:lm-aris.compute-NAS.json")
    )
    assert local_path("some/file.swf") == Path("some/file.swf")
    for bad in (
        "coschedlab:../pyproject.toml",
        "coschedlab:/etc/passwd",
        "coschedlab:",
        "nope.swf",
    ):
        with pytest.raises(InputError, match="coschedlab data"):
            bundled(bad)


def test_every_reader_takes_a_bundled_name():
    by_name, by_path = read_swf(KTH), read_swf(DATA / "KTH-SP2-1996-2.1-cln.swf.gz")
    assert len(by_name) == len(by_path) == 28475
    assert np.array_equal(by_name.columns["submit"], by_path.columns["submit"])
    assert len(load_pool("coschedlab:lm-aris.compute-NAS.json").apps) > 0
    assert load_yaml("coschedlab:helium_study.yaml")["name"] == "helium"
    assert read_bytes("coschedlab:sweeps/woas_small.yaml").startswith(b"#")
    wf = load_workflow("coschedlab:CyberShake_1000.xml.gz", coarse=True)
    assert wf.name == "CyberShake_1000" and len(wf.tasks) == 5


def test_data_lists_and_locates_the_bundled_files():
    p = cli("data")
    assert p.returncode == 0, p.stderr
    for name in CATALOGUE:
        assert name in p.stdout
    p = cli("data", "lm-aris.compute-NAS.json")
    assert p.returncode == 0 and Path(p.stdout.strip()).is_file()
    p = cli("data", "nope")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "error: no bundled data file 'nope' (`coschedlab data` lists them)"
    ]


def test_simulate_names_its_default_folder_after_the_bundled_trace(tmp_path):
    p = cli("simulate", KTH, "-s", "fcfs", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [d.name for d in (tmp_path / "out" / "simulate").iterdir()] == ["KTH-SP2-1996-2.1-cln"]


def test_a_folder_does_not_hide_a_bundled_study(tmp_path):
    (tmp_path / "helium").mkdir()  # what `study run helium --out helium` leaves
    p = cli("study", "run", "helium", "-c", "O", "--out", "out/h", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "h").is_dir()


def test_report_writes_under_out_by_default(tmp_path):
    trace = write_trace(tmp_path / "t.swf")
    assert cli("simulate", str(trace), "-s", "easy", "--out", "res", cwd=tmp_path).returncode == 0
    for _ in range(2):
        p = cli("report", "res", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
    assert sorted(d.name for d in (tmp_path / "out" / "report").iterdir()) == ["res", "res-2"]
    assert {f.name for f in (tmp_path / "res").iterdir()} <= {
        "jobs.parquet",
        "jobs.csv",
        "result.swf",
        "metrics.json",
        ".coschedlab",
    }
