"""A plain ``coschedlab simulate`` command line runs without typer
(``coschedlab.cli.main.plain_simulate``): it must give the command the values typer gives it,
and leave every other form to typer; the ``coschedlab`` program then ends the process without
the interpreter's teardown, after the atexit handlers and with its output flushed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from coschedlab.cli.main import plain_simulate

#: this copy's sources, for the programs the tests start from another folder (a relative
#: PYTHONPATH=src would fall back to whichever coschedlab is installed)
SRC = str(Path(__file__).resolve().parents[1] / "src")

#: plain command lines (TRACE, POOL, OUT: files made by the test)
PLAIN = [
    ["simulate", "TRACE"],
    ["simulate", "TRACE", "-s", "easy", "--out", "OUT"],
    ["simulate", "TRACE", "--out", "OUT", "-s", "fcfs", "--scheduler", "easy:depth=3",
     "-s", "x.py"],
    ["simulate", "--force", "TRACE", "--nodes", "12", "--cores-per-node", "4", "--sockets", "2"],
    ["simulate", "TRACE", "--pass-timeout", "0.5", "--kill-at-walltime", "--dependencies",
     "--strict", "--swf-integers", "--no-validate"],
    ["simulate", "TRACE", "--validate", "--pass-timeout", "3", "--nodes", "0"],
    ["simulate", "TRACE", "--pool", "POOL", "--heatmap", "POOL", "--compact-times", "POOL"],
    ["simulate", "TRACE", "--nodes", "99999999999999999999", "--out", "no/such/dir"],
    ["simulate", "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz", "--out", "OUT"],
]  # fmt: skip

#: command lines typer parses (help, usage errors, other forms of the options, values that
#: typer's pydantic coercion reads its own way)
NOT_PLAIN = [
    [],
    ["simulate"],
    ["simulate", "--help"],
    ["simulate", "TRACE", "--help"],
    ["schedulers"],
    ["--version"],
    ["simulate", "TRACE", "TRACE"],
    ["simulate", "TRACE", "--out=OUT"],
    ["simulate", "TRACE", "-seasy"],
    ["simulate", "TRACE", "--nodes", "-1"],
    ["simulate", "TRACE", "--nodes", " 12"],
    ["simulate", "TRACE", "--nodes", "1_0"],
    ["simulate", "TRACE", "--nodes", "1.5"],
    ["simulate", "TRACE", "--pass-timeout", "-1"],
    ["simulate", "TRACE", "--pass-timeout", "nan"],
    ["simulate", "TRACE", "--out", "a", "--out", "b"],
    ["simulate", "TRACE", "--force", "--force"],
    ["simulate", "TRACE", "--validate", "--no-validate"],
    ["simulate", "TRACE", "--out"],
    ["simulate", "TRACE", "--out", ""],
    ["simulate", ""],
    ["simulate", "TRACE", "-s"],
    ["simulate", "TRACE", "-s", "-x"],
    ["simulate", "TRACE", "--"],
    ["simulate", "TRACE", "-"],
    ["simulate", "TRACE", "--no-such-option"],
    ["simulate", "TRACE", "--kill"],  # not a prefix of --kill-at-walltime here
]


def _files(tmp_path: Path, argv: list[str]) -> list[str]:
    (tmp_path / "TRACE").write_text("; MaxNodes: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n")
    (tmp_path / "POOL").write_text("{}")
    return argv


def _typer_values(argv: list[str], monkeypatch) -> dict:
    """The values typer's ``simulate`` command hands to ``run_simulate`` for ``argv``."""
    from typer.testing import CliRunner

    from coschedlab.cli import core
    from coschedlab.cli.main import build_app

    seen = {}

    def capture(*args, **kwargs):
        import inspect

        from coschedlab.cli.batch import run_simulate

        bound = inspect.signature(run_simulate).bind(*args, **kwargs)
        bound.apply_defaults()  # what run_simulate sees
        seen.update(bound.arguments)
        return 0

    monkeypatch.setattr(core, "run_simulate", capture)
    done = CliRunner().invoke(build_app("simulate"), argv)
    assert done.exit_code == 0, done.output
    return seen


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_command_line_gets_typers_values(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path, argv)
    import inspect

    from coschedlab.cli.batch import run_simulate

    plain = plain_simulate(argv)
    assert plain is not None
    bound = inspect.signature(run_simulate).bind(**plain)
    bound.apply_defaults()  # what run_simulate sees
    got = dict(bound.arguments)
    want = _typer_values(argv, monkeypatch)
    assert got == want
    assert [type(got[k]) for k in sorted(got)] == [type(want[k]) for k in sorted(want)]


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=lambda a: " ".join(a) or "(nothing)")
def test_every_other_command_line_goes_to_typer(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path, argv)
    assert plain_simulate(argv) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_goes_to_typer(tmp_path, monkeypatch):
    """typer refuses a path that is there but not readable, with its own message."""
    monkeypatch.chdir(tmp_path)
    _files(tmp_path, [])
    (tmp_path / "TRACE").chmod(0)
    assert plain_simulate(["simulate", "TRACE"]) is None


#: a program that runs the ``coschedlab`` program's entry point, with an atexit handler and
#: an object whose finaliser prints only if the interpreter tears its modules down
PROGRAM = """
import atexit, gc, os, sys
class Torn:
    def __del__(self):
        print("torn down", flush=True)
keep = Torn()
atexit.register(lambda: print("atexit ran, BLAS threads:", os.environ.get("OPENBLAS_NUM_THREADS"),
                              "gc:", gc.isenabled()))
sys.argv = ["coschedlab", *sys.argv[1:]]
from coschedlab.cli import main
main()
"""


def _program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["PYTHONPATH"] = SRC
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True, cwd=cwd,
        timeout=300, env=env,
    )  # fmt: skip


def test_a_plain_simulate_ends_without_teardown(tmp_path):
    """... with NumPy's BLAS on one thread and no cyclic garbage collection."""
    trace = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
    done = _program("simulate", trace, "-s", "fcfs", "--out", "o", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("outputs in o/\natexit ran, BLAS threads: 1 gc: False")
    assert "torn down" not in done.stdout
    assert sorted(p.name for p in (tmp_path / "o").iterdir() if p.name[0] != ".") == [
        "jobs.csv", "jobs.parquet", "metrics.json", "result.swf",
    ]  # fmt: skip
    # an error: the same one line and exit code 2, also without teardown
    again = _program("simulate", trace, "-s", "fcfs", "--out", "o", cwd=tmp_path)
    assert again.returncode == 2
    assert "already holds a result; give --force" in again.stderr
    assert again.stdout.strip() == "atexit ran, BLAS threads: 1 gc: False"


def test_other_commands_end_as_before(tmp_path):
    """The test above can fail: a command typer runs is torn down as Python does, with
    NumPy's threads as they were."""
    done = _program("simulate", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "atexit ran, BLAS threads: None gc: True\ntorn down" in done.stdout


def test_a_users_policy_file_keeps_blas_threads_and_the_garbage_collector(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from coschedlab.schedulers import FCFS\n\nclass Mine(FCFS):\n    pass\n"
    )
    trace = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
    done = _program("simulate", trace, "-s", "mine.py", "--out", "o", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # and the interpreter's teardown (a user's code: test_a_policy_files_open_log_...)
    assert done.stdout.rstrip().endswith("atexit ran, BLAS threads: None gc: True\ntorn down")


def test_the_plain_options_are_the_typer_commands_own():
    """:data:`_SIMULATE_OPTIONS` restates ``simulate``'s options for the plain path: each one
    must be an option of the typer command, for the same parameter, a flag exactly where the
    command has a flag (with the same value), and a list only for ``--scheduler``."""
    import typer

    from coschedlab.cli.main import _SIMULATE_OPTIONS, build_app

    cmd = typer.main.get_command(build_app("simulate")).commands["simulate"]
    by_opt = {}
    for p in cmd.params:
        for o in p.opts:
            by_opt[o] = (p, True)
        for o in getattr(p, "secondary_opts", []):
            by_opt[o] = (p, False)
    for opt, (name, kind) in _SIMULATE_OPTIONS.items():
        assert opt in by_opt, opt
        param, primary = by_opt[opt]
        assert param.name == name, opt
        flag = getattr(param, "is_flag", False)
        assert isinstance(kind, bool) == flag, opt
        if flag:
            assert kind == primary, opt  # --validate True, --no-validate False
        assert (kind == "list[str]") == bool(param.multiple), opt


@pytest.mark.parametrize("closed", [(1,), (1, 2)], ids=["stdout", "stdout-and-stderr"])
def test_a_closed_standard_output_ends_as_typers_path(tmp_path, closed):
    """Started with standard output closed (``>&-``: ``sys.stdout`` is None), a plain
    simulate writes its result and exits 0 as the typer path does (it ended with a traceback
    from flushing None, exit 1)."""
    _files(tmp_path, [])

    def close() -> None:
        for fd in closed:
            os.close(fd)

    done = subprocess.run(
        [sys.executable, "-m", "coschedlab", "simulate", "TRACE", "--out", "o"], cwd=tmp_path,
        stderr=subprocess.PIPE if 2 not in closed else None, stdout=None, text=True,
        timeout=300, preexec_fn=close, env={**os.environ, "PYTHONPATH": SRC},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not done.stderr
    assert (tmp_path / "o" / "jobs.parquet").is_file()


@pytest.mark.parametrize("out", [["--out", "o"], ["--out=o"]], ids=["plain", "typer"])
def test_a_trace_name_standard_output_cannot_encode(tmp_path, out):
    """``PYTHONIOENCODING=ascii`` (or a Latin-1 terminal) and a trace named ``é.swf``: the
    name is printed escaped and the run goes on, on either path (it was an internal error,
    exit 3, before anything ran)."""
    _files(tmp_path, [])
    (tmp_path / "TRACE").rename(tmp_path / "é.swf")
    done = subprocess.run(
        [sys.executable, "-m", "coschedlab", "simulate", "é.swf", *out], cwd=tmp_path,
        capture_output=True, timeout=300,
        env={**os.environ, "PYTHONPATH": SRC, "PYTHONIOENCODING": "ascii"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"1 job from \\xe9.swf on 4 nodes")
    assert (tmp_path / "o" / "jobs.parquet").is_file()


def test_importing_the_main_modules_runs_nothing(tmp_path):
    """``import coschedlab.__main__`` (pydoc, documentation tools) printed the help and exited
    2; ``python -m coschedlab`` and ``python -m coschedlab.cli`` still run the program."""
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", "import coschedlab.__main__, coschedlab.cli.__main__"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    for module in ("coschedlab", "coschedlab.cli"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--version"], cwd=tmp_path, capture_output=True,
            text=True, timeout=300, env=env,
        )  # fmt: skip
        assert done.returncode == 0 and done.stdout.startswith("coschedlab "), done.stderr


def test_a_policy_files_open_log_keeps_its_lines(tmp_path):
    """A user's policy that writes to a file it never closes: the process ends with the
    interpreter's teardown, which flushes it (ended without it, the log was empty)."""
    _files(tmp_path, [])
    (tmp_path / "logger.py").write_text(
        "from coschedlab.schedulers import Scheduler\n\nLOG = open('policy.log', 'w')\n\n\n"
        "class Logger(Scheduler):\n    def schedule(self, view):\n"
        "        LOG.write(f'pass at {view.now}\\n')\n"
        "        return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]\n"
    )
    done = _program("simulate", "TRACE", "-s", "logger.py", "--out", "o", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "torn down" in done.stdout
    assert (tmp_path / "policy.log").read_text().startswith("pass at 0")
