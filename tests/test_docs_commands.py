"""Every command of README.md and docs/*.md runs as written, on the bundled data.

A document is read as a newcomer reads it: in order, in one fresh folder holding a copy of
``examples/`` (nothing else of the repository, no file of this machine), every ``coschedlab``
line of its shell blocks (``bash``, ``sh``, ``console``, unlabelled; continuation lines joined,
shell variables assigned in the document kept), every complete ``coschedlab`` command quoted in
its prose, every ``python examples/...`` line and its ``python`` blocks (each on its own: a
reader copies one block). Each must exit with 0 and print no traceback, and together they
leave nothing in the folder but ``out/`` (and ``examples/``, ``docs/`` where a command writes the
repository's reproduction folders).

Not run: blocks marked ``text`` (transcripts of errors, commands that need a cluster), prose
quotes holding an upper-case placeholder (``SPEC.yaml``, ``DIR...``, ``OUT``), names of commands
alone (``coschedlab insitu reproduce``), and ``make``, ``pytest`` and benchmark lines. Commands
that take more than a few seconds run with ``-m slow``; the longest (``LONG``: sweeps of many
minutes) are started as written, must run cleanly for a while, and are then interrupted: Ctrl-C
must say how to resume (exit code 130). ``coschedlab gui`` must serve its address.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"bash", "sh", "shell", "console", ""}
PLACEHOLDER = re.compile(r"[A-Z][A-Z_]+(\.\w+)?\.*|\[.*")  # SPEC.yaml, OUT, DIR..., [--json]

#: commands that take more than ~5 s: run with -m slow (substrings of the command)
SLOW = (
    'simulate coschedlab:KTH-SP2-1996-2.1-cln.swf.gz -s "slurm',
    "-s slurm",
    "--jobs 500",
    "generate --pool $POOL --jobs 500",
    "compare examples/compare_coloc.yaml",
    "elise run",
    "workflows generate",
    "workflows simulate",
    "woas_small.yaml",
    "coupled simulate",
    "coupled compare",
    "study run",
    "study reproduce",
    "insitu simulate",
    "insitu reproduce",
    "compare examples/compare_small.yaml",
    "fair_share.py",
    "smallest_first_backfill.py",
    "--kill-at-walltime",
    "report out/",
    "woas_figure1.py",
)
#: sweeps of many minutes: started as written, interrupted after LONG_RUN_S seconds
LONG = ("woas_shares.yaml", "woas_groups.yaml", "woas_full.yaml", "insitu reproduce")
LONG_RUN_S = 40.0
#: the documented commands that serve until stopped
SERVERS = ("coschedlab gui",)


@dataclass
class Step:
    """One thing a reader of ``doc`` runs: a shell command or a python block."""

    doc: str
    line: int
    kind: str  # "sh" or "python"
    text: str
    env: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def slow(self) -> bool:
        return any(s in self.text for s in SLOW + LONG + SERVERS) or self.kind == "python"

    @property
    def long(self) -> bool:
        return any(s in self.text for s in LONG)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # an unbalanced quote: run it and let the shell say so
        return command.split()


def _command_names() -> set[str]:
    """The names of coschedlab's commands and command groups."""
    import typer

    from coschedlab.cli.main import app

    names: set[str] = set()
    todo = [typer.main.get_command(app)]
    while todo:
        group = todo.pop()
        for name, cmd in getattr(group, "commands", {}).items():
            names.add(name)
            todo.append(cmd)
    return names


def _is_template(command: str) -> bool:
    """A prose quote that names a command or shows its synopsis rather than a runnable line."""
    words = _words(command)
    if "..." in command or any(PLACEHOLDER.fullmatch(part) for w in words for part in w.split("/")):
        return True
    # `coschedlab coupled simulate`, `coschedlab insitu simulate --search --json`: a name
    return all(w in _command_names() or w.startswith("-") for w in words[1:])


def _runnable(line: str) -> bool:
    if line.startswith("coschedlab ") or re.search(r"\|\s*coschedlab ", line):
        return True  # (a pipe into coschedlab: README's `zcat ... | coschedlab simulate -`)
    return line.startswith("python examples/")


def doc_steps(path: Path) -> list[Step]:
    """The steps of one document, in reading order."""
    text = path.read_text()
    doc = str(path.relative_to(ROOT))
    steps: list[Step] = []
    env: dict[str, str] = {}
    blocks = list(re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M))
    for m in blocks:
        lang, body = m.group(1), m.group(2)
        first = text[: m.start()].count("\n") + 2
        if lang == "python":
            steps.append(Step(doc, first - 1, "python", body))
            continue
        if lang not in SHELL:
            continue
        lines = body.split("\n")
        k = 0
        while k < len(lines):
            line, lineno = lines[k], first + k
            while line.endswith("\\") and k + 1 < len(lines):
                k += 1
                line = line[:-1] + " " + lines[k].strip()
            k += 1
            line = line.strip()
            if lang == "console":
                if not line.startswith("$ "):
                    continue  # output shown in a transcript
                line = line[2:]
            assign = re.fullmatch(r"([A-Za-z_]\w*)=(\S+)(\s+#.*)?", line)
            if assign:
                env[assign.group(1)] = assign.group(2)
            elif _runnable(line):
                command = " ".join(_strip_comment(line).split())
                steps.append(Step(doc, lineno, "sh", command, dict(env)))
    prose = text
    for m in reversed(blocks):
        prose = prose[: m.start()] + "\n" * m.group(0).count("\n") + prose[m.end() :]
    for m in re.finditer(r"`(coschedlab [^`]+)`", prose):
        command = " ".join(m.group(1).split())
        if not _is_template(command):
            lineno = prose[: m.start()].count("\n") + 1
            steps.append(Step(doc, lineno, "sh", command, dict(env)))
    steps.sort(key=lambda s: s.line)
    seen: set[str] = set()  # a command quoted again is not run again
    return [s for s in steps if not (s.text in seen or seen.add(s.text))]


def _strip_comment(line: str) -> str:
    """``line`` without its trailing ``# comment`` (a ``#`` inside quotes stays)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line


def _workspace(base: Path) -> Path:
    shutil.copytree(ROOT / "examples", base / "examples")
    (base / "home").mkdir()
    return base


def _env(ws: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(ws / "home")
    env["BROWSER"] = "true"  # `gui --open`: a browser that opens nothing
    env["COLUMNS"] = "80"
    env.pop("PYTHONPATH", None)
    return env


def _script(step: Step) -> str:
    assigns = "".join(f"{k}={shlex.quote(v)}; " for k, v in step.env.items())
    return assigns + step.text


def run_step(step: Step, ws: Path) -> str:
    """Run one step in ``ws``; its output, or a failed assertion naming the document line."""
    env = _env(ws)
    if step.kind == "python":
        p = subprocess.run(
            [sys.executable, "-"],
            input=step.text,
            capture_output=True,
            text=True,
            cwd=ws,
            env=env,
            timeout=600,
        )
        assert p.returncode == 0 and "Traceback" not in p.stderr, (step.id, p.stderr[-3000:])
        return p.stdout
    if any(step.text.startswith(s) for s in SERVERS):
        return _serve(step, ws, env)
    if step.long:
        return _start_and_interrupt(step, ws, env)
    p = subprocess.run(
        ["bash", "-o", "pipefail", "-c", _script(step)],  # (each command of a pipe must work)
        capture_output=True,
        text=True,
        cwd=ws,
        env=env,
        timeout=900,
    )
    assert p.returncode == 0, (step.id, step.text, p.stdout[-2000:], p.stderr[-3000:])
    assert "Traceback" not in p.stderr, (step.id, p.stderr[-3000:])
    return p.stdout


def _popen(step: Step, ws: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        ["bash", "-c", "exec " + _script(step)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ws,
        env=env,
        start_new_session=True,
    )


def _serve(step: Step, ws: Path, env: dict[str, str]) -> str:
    """A server command: it must print its address (http://...) and keep serving."""
    p = _popen(step, ws, env)
    out = ""
    if "--window" in step.text and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        out = p.communicate(timeout=60)[0]  # no desktop here: it must say so in one line
        assert p.returncode == 2 and "display" in out and len(out.strip().splitlines()) == 1, (
            step.id,
            out,
        )
        return out
    try:
        deadline = time.monotonic() + 60
        while "http://" not in out and time.monotonic() < deadline and p.poll() is None:
            out += p.stdout.readline()
        assert "http://" in out and p.poll() is None, (step.id, out[-2000:])
    finally:
        os.killpg(p.pid, signal.SIGINT)
        try:
            out += p.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out += p.communicate()[0]
    assert "Traceback" not in out, (step.id, out[-3000:])
    return out


def _start_and_interrupt(step: Step, ws: Path, env: dict[str, str]) -> str:
    """A sweep of many minutes: it runs cleanly for LONG_RUN_S seconds (or ends with 0), then
    Ctrl-C stops it with exit code 130 and one line on how to resume."""
    p = _popen(step, ws, env)
    try:
        out = p.communicate(timeout=LONG_RUN_S)[0]
        assert p.returncode == 0, (step.id, out[-3000:])
        return out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT)
        out = p.communicate(timeout=120)[0]
    assert p.returncode == 130, (step.id, p.returncode, out[-3000:])
    assert "Traceback" not in out and "resume" in out.lower(), (step.id, out[-3000:])
    return out


def _ids(steps: list[Step]) -> list[str]:
    return [s.id for s in steps]


ALL = {str(d.relative_to(ROOT)): doc_steps(d) for d in DOCS}


@pytest.mark.parametrize("doc", [d for d, steps in ALL.items() if any(not s.slow for s in steps)])
def test_quick_commands_of_each_document_run_as_written(doc, tmp_path):
    """The default run: each document's quick commands, in order (their inputs are made by
    quick commands before them or bundled)."""
    ws = _workspace(tmp_path)
    for step in quick_steps(ALL[doc]):
        run_step(step, ws)
    _nothing_left_outside_out(ws, doc)


def _outputs(step: Step) -> list[str]:
    words = _words(step.text)
    return [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("--out", "-o")]


def quick_steps(steps: list[Step]) -> list[Step]:
    """The quick steps whose inputs no slow step makes (a quick command reading the output of
    a slow one waits for ``-m slow``)."""
    made_slowly: set[str] = set()
    quick = []
    for step in steps:
        words = [
            w
            for k, w in enumerate(_words(step.text))
            if k == 0 or _words(step.text)[k - 1] not in ("--out", "-o")
        ]
        needs = any(w == m or w.startswith(m.rstrip("/") + "/") for w in words for m in made_slowly)
        if step.slow or needs:
            made_slowly.update(_outputs(step))
        else:
            quick.append(step)
    return quick


@pytest.mark.slow
@pytest.mark.parametrize("doc", list(ALL))
def test_every_command_of_each_document_runs_as_written(doc, tmp_path):
    ws = _workspace(tmp_path)
    for step in ALL[doc]:
        run_step(step, ws)
    _nothing_left_outside_out(ws, doc)


def _nothing_left_outside_out(ws: Path, doc: str) -> None:
    left = sorted(p.name for p in ws.iterdir() if p.name not in {"out", "examples", "home"})
    left = [name for name in left if name != "docs"]  # the reproduction folders' own --out
    assert not left, f"{doc}: commands left {left} outside out/"


def test_the_reader_finds_the_commands():
    """The parser sees what a reader sees: the README's commands, in order, with the
    document's variables, and leaves templates and transcripts of errors alone."""
    readme = ALL["README.md"]
    texts = [s.text for s in readme if s.kind == "sh"]
    assert texts[0] == "coschedlab data"
    assert len(texts) >= 30 and all(_runnable(t) for t in texts)
    assert any("| coschedlab simulate -" in t for t in texts)  # (a pipe into coschedlab)
    assert any(s.kind == "python" for s in readme)
    coloc = [s for s in ALL["docs/coloc.md"] if "$POOL" in s.text]
    assert coloc and all(s.env.get("POOL", "").startswith("coschedlab:") for s in coloc)
    everything = [s.text for steps in ALL.values() for s in steps]
    assert not any("fig9.yaml" in t or "SPEC.yaml" in t for t in everything)
    assert _is_template("coschedlab compare SPEC.yaml") and _is_template("coschedlab insitu plan")
    assert not _is_template("coschedlab workflows show cybershake")
    assert _strip_comment('coschedlab x -s "a#b"  # note') == 'coschedlab x -s "a#b"'


def test_documents_name_no_file_a_newcomer_lacks():
    """No runnable step names a placeholder file or this machine's folders."""
    bad = re.compile(
        r"(^|\s)(trace\.swf(\.gz)?|POOL\.json|W\.swf|w\.swf|/work/|\.\./\.\./shared)\b"
    )
    for steps in ALL.values():
        for s in steps:
            assert not bad.search(s.text), (s.id, s.text)
