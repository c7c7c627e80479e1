"""The profile-guided build (scripts/pgo_build.py, setup.py's stages): it never leaves a broken
or instrumented build, and says in one line why it fell back to a plain one."""

from __future__ import annotations

import importlib.util
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pgo(monkeypatch):
    spec = importlib.util.spec_from_file_location("pgo_build", ROOT / "scripts" / "pgo_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delenv("COSCHEDLAB_PGO", raising=False)
    monkeypatch.setattr(module, "not_gcc", lambda: None)
    return module


def _run(pgo, training):
    stages, lines = [], []
    last = pgo.pgo_build(build=stages.append, run_training=training, say=lines.append)
    return last, stages, lines


def test_trained_then_rebuilt_with_the_profiles(pgo):
    assert _run(pgo, lambda: None) == ("use", ["generate", "use"], [])


def test_a_training_that_crashes_falls_back_to_a_plain_build(pgo):
    def crash():
        raise pgo.PgoFailed("the training failed (exit code 1): ZeroDivisionError")

    last, stages, lines = _run(pgo, crash)
    assert (last, stages) == ("plain", ["generate", "plain"])  # no instrumented module left
    assert len(lines) == 1 and "ZeroDivisionError" in lines[0] and "plain" in lines[0]


def test_opt_out_and_other_compilers_build_plain(pgo, monkeypatch):
    monkeypatch.setenv("COSCHEDLAB_PGO", "0")
    assert _run(pgo, lambda: None) == ("plain", ["plain"], [])
    monkeypatch.delenv("COSCHEDLAB_PGO")
    monkeypatch.setattr(pgo, "not_gcc", lambda: "CC 'clang' is not gcc")
    last, stages, lines = _run(pgo, lambda: None)
    assert (last, stages) == ("plain", ["plain"]) and len(lines) == 1 and "clang" in lines[0]


def test_not_gcc_reads_the_compilers_version(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("pgo_build2", ROOT / "scripts" / "pgo_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fake = tmp_path / "cc"
    fake.write_text("#!/bin/sh\necho 'Debian clang version 14.0.6'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    monkeypatch.setenv("CXX", "g++")
    assert "is not gcc" in module.not_gcc()
    monkeypatch.setenv("CC", str(tmp_path / "nothing"))
    assert "did not run" in module.not_gcc()


@pytest.mark.parametrize("code, written", [(1, ["kernel"]), (0, ["kernel", "nodepool"])])
def test_training_failures_are_said(pgo, tmp_path, monkeypatch, code, written):
    """A crash (its last line said) or a trained module that wrote no profile is a failure."""
    monkeypatch.setattr(pgo, "PROFILES", tmp_path / "pgo")

    def fake_run(cmd, **kwargs):
        for name in written:
            (tmp_path / "pgo" / f"#build#temp#engine#{name}.gcda").write_bytes(b"")
        err = "Traceback (most recent call last):\nRuntimeError: boom" if code else ""
        return subprocess.CompletedProcess(cmd, code, "", err)

    monkeypatch.setattr(pgo.subprocess, "run", fake_run)
    with pytest.raises(pgo.PgoFailed, match="RuntimeError: boom" if code else "passes"):
        pgo.run_training()


def _modules_of(stage: str, monkeypatch) -> tuple[list[str], set[tuple[str, ...]]]:
    """setup.py's extension modules (names) and compile flags at ``stage``, built nowhere."""
    import Cython.Build
    import setuptools

    got = {}
    monkeypatch.setattr(Cython.Build, "cythonize", lambda exts, **kw: exts)
    monkeypatch.setattr(setuptools, "setup", lambda **kw: got.update(kw))
    monkeypatch.setenv("COSCHEDLAB_PGO_STAGE", stage)
    monkeypatch.setenv("COSCHEDLAB_PGO_DIR", "/p")
    runpy.run_path(str(ROOT / "setup.py"))
    exts = got["ext_modules"]
    return [e.name for e in exts], {tuple(e.extra_compile_args) for e in exts}


def test_setup_builds_each_module_once_across_the_stages(monkeypatch):
    trained = runpy.run_path(str(ROOT / "scripts" / "pgo_build.py"))["trained_modules"]()
    every, flags = _modules_of("", monkeypatch)
    assert flags == {("-O3",)} and set(trained) <= set(every)
    later, _ = _modules_of("later", monkeypatch)
    assert sorted(later + trained) == sorted(every)
    gen, flags = _modules_of("generate", monkeypatch)
    assert sorted(gen) == sorted(trained)
    assert flags == {("-O3", "-fprofile-generate=/p", "-fprofile-update=single")}
    _, flags = _modules_of("use", monkeypatch)
    assert flags == {("-O3", "-fprofile-use=/p", "-fprofile-correction", "-Wno-missing-profile")}
    _, flags = _modules_of("plain", monkeypatch)
    assert flags == {("-O3",)}
    with pytest.raises(SystemExit, match="COSCHEDLAB_PGO_STAGE='gen'"):
        _modules_of("gen", monkeypatch)


def test_the_training_set_runs_on_bundled_data():
    """The training itself, on whatever build is in place (plain here): no file outside the
    package, no failure."""
    code = "import runpy; runpy.run_path('scripts/pgo_build.py')['train']()"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert "trained: workflows" in out.stdout
