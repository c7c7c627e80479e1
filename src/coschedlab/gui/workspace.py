"""The dashboard's one directory: every file it reads or writes lies inside it.

The dashboard is given a workspace (``coschedlab gui --root DIR``, default the current
directory). Output directories, uploads and the specs it writes are paths *inside* it: a
user-typed output directory is resolved against it and refused when it would leave it
(``..``, an absolute path elsewhere, a symbolic link pointing out), so nothing is written
outside the chosen directory and no file outside the workspace is listed or read.

Uploads are size-limited and parsed with the command line's own readers (an SWF trace with
:func:`~coschedlab.workload.swf.read_swf`, a pool with :func:`~coschedlab.coloc.pool.load_pool`),
so a malformed file gives the same one-line error, ``FILE:LINE: what``, shown in the page.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from .isolated import call_isolated, dotted

__all__ = ["MAX_UPLOAD_BYTES", "Workspace"]

#: the largest file an upload may carry (a month of a large machine's SWF is ~20 MB gzipped)
MAX_UPLOAD_BYTES = 64 << 20

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.+=,-]+")
_PATHLIKE = re.compile(r"[/\\]|\.(py|swf|gz|json|ya?ml|dax|xml|csv|txt)$", re.IGNORECASE)
UPLOADS = "uploads"
#: the dashboard's own folders, which no output goes into
RESERVED = {UPLOADS: "uploads", "specs": "specs, logs and progress files"}
#: the longest path text accepted (the file system's own limit is 4,096 bytes)
MAX_PATH = 1024
#: the longest name an upload is stored under (its end kept: the suffix says its format)
MAX_NAME = 100


@dataclass(frozen=True)
class Workspace:
    """The directory the dashboard reads and writes in (module doc)."""

    root: Path

    @classmethod
    def at(cls, root: str | Path) -> Workspace:
        """The workspace at ``root`` (created if missing)."""
        path = Path(root).expanduser()
        if path.exists() and not path.is_dir():
            raise InputError("the dashboard's --root must be a directory", str(path))
        path.mkdir(parents=True, exist_ok=True)
        return cls(path.resolve())

    def inside(self, text: str, what: str = "output directory") -> Path:
        """``text`` (relative to the workspace, or absolute inside it) as a path inside the
        workspace; :class:`InputError` when it is empty, not text, holds control characters,
        is too long for a file system, or would leave the workspace."""
        text = form_text(text, what)
        if not text:
            raise InputError(f"give the {what} (a folder inside the workspace)")
        if any(ord(c) < 32 or c == "\x7f" or 0xD800 <= ord(c) <= 0xDFFF for c in text):
            raise InputError(f"the {what} {text!r} holds a control character")
        if len(text) > MAX_PATH or any(len(p.encode()) > 255 for p in Path(text).parts):
            raise InputError(f"the {what} is too long (at most {MAX_PATH} characters, 255 "
                             "per folder name)")  # fmt: skip
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = candidate.resolve()  # follows symbolic links: one pointing out is refused
        if resolved != self.root and self.root not in resolved.parents:
            raise InputError(
                f"the {what} {text!r} is outside the workspace {self.root}: "
                "choose a folder inside it"
            )
        if resolved == self.root:
            raise InputError(f"the {what} cannot be the workspace itself: name a folder in it")
        return resolved

    def output(self, text: str, what: str = "output folder") -> Path:
        """An output folder the user typed: :meth:`inside` the workspace, not an existing
        file, and not one of the dashboard's own folders (uploads, specs)."""
        path = self.inside(text, what)
        top = path.relative_to(self.root).parts[0]
        if top in RESERVED:
            raise InputError(f"the {what} cannot be in {top}/ (the dashboard keeps its "
                             f"{RESERVED[top]} there): choose another folder")  # fmt: skip
        if path.exists() and not path.is_dir():
            raise InputError(f"the {what} {text.strip()!r} is a file: choose a folder")
        from ..sweeps.sweep import sweep_kind

        for parent in path.parents:  # a sweep inside another's folder could not be listed
            if parent == self.root:
                break
            if (parent / "spec.json").is_file() or sweep_kind(parent) is not None:
                inner = self.relative(parent)
                raise InputError(f"the {what} {text.strip()!r} is inside the stored sweep "
                                 f"{inner}: choose a folder outside it")  # fmt: skip
        return path

    def data_file(self, value: str | None, what: str = "file") -> str:
        """A data file a page names (a value the browser sends back, so not trusted): bundled
        data (``coschedlab:NAME``) as it is, else a file inside the workspace (an upload)."""
        from ..bundled import bundled, is_bundled

        if value is not None and not isinstance(value, str):
            raise InputError(f"the {what} must be named by text, got {type(value).__name__}")
        text = (value or "").strip()
        if not text:
            raise InputError(f"no {what} chosen: pick or upload one first")
        if is_bundled(text):
            try:
                bundled(text)
            except InputError:
                name = text.removeprefix("coschedlab:")
                raise InputError(f"no bundled {what} {name!r}") from None
            return text
        path = self.inside(text, what)
        if not path.is_file():
            raise InputError(f"no such {what} in the workspace: {text!r}")
        return str(path)

    def words(self, text: str) -> str:
        """``text`` (a message, a command) with paths named as the pages name them: bundled
        data as ``coschedlab:NAME``, files of the workspace relative to it."""
        from ..bundled import in_words

        return in_words(text).replace(f"{self.root}{os.sep}", "")

    def relative(self, path: Path) -> str:
        """``path`` as the workspace-relative text the pages show."""
        return str(Path(path).resolve().relative_to(self.root))

    def outputs(self, kind: str = "comparison", depth: int = 4) -> list[str]:
        """Output directories in the workspace holding a sweep of ``kind`` (a ``spec.json``
        that :func:`~coschedlab.sweeps.sweep.sweep_kind` reads as it: "comparison",
        "workflow", "coupled", "study reproduction", "elise"), workspace-relative, sorted;
        hidden folders and uploads skipped."""
        from ..sweeps.sweep import sweep_kind

        found = []

        def walk(folder: Path, level: int) -> None:
            here = None if folder == self.root else sweep_kind(folder)
            if here is not None or (folder != self.root and (folder / "spec.json").is_file()):
                if here == kind:
                    found.append(self.relative(folder))
                return
            if level >= depth:
                return
            try:
                children = sorted(p for p in folder.iterdir() if p.is_dir())
            except OSError:
                return
            for child in children:
                if child.name.startswith(".") or child.is_symlink():
                    continue
                if folder == self.root and child.name == UPLOADS:
                    continue
                walk(child, level + 1)

        walk(self.root, 0)
        return found

    def save_upload(self, filename: str, contents: str, kind: str) -> Path:
        """Store an upload (a dcc.Upload ``data:...;base64,...`` string) under
        ``uploads/`` once :func:`check_upload` read it as the command line would (``kind``);
        the stored path, named by the file's content and its (cleaned) name. Errors are one
        line naming the uploaded file; a refused file leaves nothing behind."""
        if filename is not None and not isinstance(filename, str):
            raise InputError("the upload's file name is not text")
        if not isinstance(contents, str):
            raise InputError("the upload is not a file the browser sent")
        # one name in the upload's own folder: no separator, no leading dot or dash (hidden
        # file, or an option where a command is given the name)
        name = _SAFE_NAME.sub("_", Path(filename or "upload").name).strip("._-") or "upload"
        name = name[-MAX_NAME:].lstrip("._-") or "upload"  # keep the suffix (.swf.gz)
        _, _, payload = contents.partition(",")
        if len(payload) > (MAX_UPLOAD_BYTES * 4) // 3 + 4:
            raise InputError(f"the file is larger than {MAX_UPLOAD_BYTES >> 20} MB", name)
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise InputError("the upload is not a file the browser sent", name) from None
        if not data:
            raise InputError("the file is empty", name)
        folder = self.root / UPLOADS / hashlib.sha256(data).hexdigest()[:12]
        path = folder / name
        if path.is_file() and path.read_bytes() == data:
            return path  # the same file again: read and stored before
        # checked at the depth it is stored at (uploads/<digest>/), so that the paths it
        # names resolve the same during the check and after
        (self.root / UPLOADS).mkdir(exist_ok=True)
        checking = Path(tempfile.mkdtemp(prefix=".checking-", dir=self.root / UPLOADS))
        try:
            trial = checking / name
            trial.write_bytes(data)
            try:
                call_isolated(dotted(check_uploaded), str(trial), kind, str(self.root),
                              cwd=checking, timeout=UPLOAD_CHECK_S, where=str(trial))  # fmt: skip
            except InputError as exc:
                what = exc.what.replace(f"{trial}: ", "").replace(str(trial), name)
                where = (exc.where or str(trial)).replace(str(trial), name)
                raise InputError(what, where) from None
            except Exception as exc:  # a reader's own failure: still one line, nothing kept
                text = " ".join(str(exc).replace(str(trial), name).split())
                raise InputError(f"cannot be read as a {kind} file ({type(exc).__name__}: "
                                 f"{text})", name) from None  # fmt: skip
            folder.mkdir(parents=True, exist_ok=True)
            os.replace(trial, path)
        finally:
            shutil.rmtree(checking, ignore_errors=True)
        return path


def scheduler_text(text: str, what: str = "scheduler") -> str:
    """A scheduler spec typed into a page (``easy:depth=50``): one naming a file is refused
    (a policy of one's own is uploaded, and runs in a process of its own, never named by a
    path the server would import)."""
    text = form_text(text, what)
    name = text.split(":", 1)[0]
    if "/" in name or "\\" in name or name.endswith(".py"):
        raise InputError(f"{text!r}: a policy file of your own is uploaded (your "
                         "policy), not named")  # fmt: skip
    return text


def form_text(v: Any, what: str) -> str:
    """A text a page's form sent back (not trusted), stripped; None is empty, anything else
    is refused in one line naming ``what``."""
    if v is None:
        return ""
    if not isinstance(v, str):
        raise InputError(f"the {what} must be text, got {type(v).__name__}")
    return v.strip()


def form_number(v: Any) -> float:
    """A number a page's form sent back (not trusted): ``float(v)``, NaN for a bool or
    anything that is not a number."""
    try:
        return math.nan if isinstance(v, bool) else float(v)
    except (TypeError, ValueError):
        return math.nan


def form_whole(v: Any, what: str, low: int = 1, high: int | None = None) -> int:
    """A whole number from ``low`` to ``high`` (None: no bound) a page's form sent back (not
    trusted); anything else (NaN, infinity, a fraction) is refused in one line naming
    ``what``."""
    f = form_number(v)
    if not math.isfinite(f) or f != int(f) or f < low or (high is not None and f > high):
        bounds = f">= {low}" if high is None else f"from {low} to {high:,}"
        raise InputError(f"{what} must be a whole number {bounds}, got {v!r}")
    return int(f)


#: the command line's reader of each kind of upload (``module:function`` of a path); the
#: registered capabilities' sweep specs are read by their own readers (:func:`readers`)
READERS = {
    "swf": "coschedlab.workload.swf:read_swf",
    "pool": "coschedlab.coloc.pool:load_pool",
    "ensemble": "coschedlab.insitu.spec:load_ensemble",
    "workflow": "coschedlab.workflows.formats:load_workflow",
    "policy": "coschedlab.schedulers.registry:get_scheduler",  # as simulate -s FILE.py
}


def readers() -> dict[str, str]:
    """Every kind of upload's reader: :data:`READERS` and each registered capability's
    sweep spec reader (by its ``upload`` name)."""
    from ..sweeps.capability import readers as sweep_readers

    return {**READERS, **sweep_readers()}


def check_upload(path: Path | str, kind: str) -> None:
    """Read ``path`` with the command line's reader for ``kind`` (:func:`readers`; raises
    its :class:`InputError`); the dashboard calls it in a process of its own
    (:func:`~.isolated.call_isolated`): a policy's module code runs when it is loaded."""
    import importlib

    path = Path(path)
    every = readers()
    if kind not in every:
        raise ValueError(f"unknown upload kind {kind!r}")
    if kind == "policy" and path.suffix != ".py":
        raise InputError("a policy is a Python file (.py)", str(path))
    module, _, name = every[kind].partition(":")
    reader = getattr(importlib.import_module(module), name)
    reader(str(path) if kind == "policy" else path)


#: how long reading an upload may take (s): it runs in a process of its own
UPLOAD_CHECK_S = 60.0
#: uploads whose reading may run the user's code (a policy file, a spec naming one), besides
#: the registered capabilities' sweep specs (:func:`spec_kinds`)
SPEC_KINDS = ("ensemble",)


def spec_kinds() -> tuple[str, ...]:
    """The uploads that are specs: :data:`SPEC_KINDS` and every capability's sweep specs."""
    from ..sweeps.capability import readers as sweep_readers

    return (*sweep_readers(), *SPEC_KINDS)


def check_spec_paths(path: Path | str, root: Path | str) -> None:
    """An uploaded spec must not reach outside the workspace ``root``: every path-like value
    (a ``/`` or ``\\`` in it, or a data file's suffix; ``coschedlab:NAME`` bundled data is
    fine; a study's run ``command`` is never executed by the dashboard), resolved against the
    spec's folder and against the workspace (where commands run), must lie inside it; and an
    ``executor`` key is refused (the dashboard's own ``--executor`` says where runs go). The
    dashboard calls it in a process of its own (:func:`check_uploaded`)."""
    from ..schema import load_yaml

    path, root = Path(path), Path(root)
    doc = load_yaml(path)
    if isinstance(doc, dict) and "executor" in doc:
        raise InputError("an uploaded spec cannot choose the executor: the dashboard's "
                         "--executor says where runs go (remove the key)", str(path))  # fmt: skip
    seen: set[int] = set()

    def walk(v: Any, key: Any = None) -> None:
        if isinstance(v, dict | list):
            if id(v) in seen:  # YAML aliases share nodes: each is read once
                return
            seen.add(id(v))
            for k, x in v.items() if isinstance(v, dict) else ((key, x) for x in v):
                walk(x, k)
        elif isinstance(v, str) and key != "command" and _PATHLIKE.search(v.strip()):
            if v.startswith("coschedlab:"):
                return
            given = Path(v.strip()).expanduser()
            if any(
                t != root and root not in t.parents
                for t in ((path.parent / given).resolve(), (root / given).resolve())
            ):
                raise InputError(f"names a file outside the workspace: {v!r} (upload the file "
                                 "and name it from there)", str(path))  # fmt: skip

    walk(doc)


def check_uploaded(path: str, kind: str, root: str) -> None:
    """Everything an upload of ``kind`` is checked for (:func:`check_spec_paths` for specs,
    then :func:`check_upload`); the dashboard calls it in a process of its own."""
    if kind in spec_kinds():
        check_spec_paths(path, root)
    check_upload(path, kind)
