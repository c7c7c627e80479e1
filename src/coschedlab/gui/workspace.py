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
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

__all__ = ["MAX_UPLOAD_BYTES", "Workspace"]

#: the largest file an upload may carry (a month of a large machine's SWF is ~20 MB gzipped)
MAX_UPLOAD_BYTES = 64 << 20

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.+=,-]+")
UPLOADS = "uploads"


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
        workspace; :class:`InputError` when it is empty or would leave the workspace."""
        text = (text or "").strip()
        if not text:
            raise InputError(f"give an {what} (a folder inside {self.root})")
        if "\x00" in text:
            raise InputError(f"the {what} {text!r} holds a NUL character")
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

    def data_file(self, value: str | None, what: str = "file") -> str:
        """A data file a page names (a value the browser sends back, so not trusted): bundled
        data (``coschedlab:NAME``) as it is, else a file inside the workspace (an upload)."""
        from ..bundled import bundled, is_bundled

        text = str(value or "").strip()
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

    def relative(self, path: Path) -> str:
        """``path`` as the workspace-relative text the pages show."""
        return str(Path(path).resolve().relative_to(self.root))

    def outputs(self, kind: str = "comparison", depth: int = 4) -> list[str]:
        """Output directories in the workspace holding a sweep of ``kind`` (a ``spec.json``
        that :func:`~coschedlab.experiments.store.sweep_kind` reads as it: "comparison",
        "workflow", "coupled", "study reproduction"), workspace-relative, sorted; hidden
        folders and uploads skipped."""
        from ..experiments.store import sweep_kind

        found = []

        def walk(folder: Path, level: int) -> None:
            if (folder / "spec.json").is_file() and folder != self.root:
                if sweep_kind(folder) == kind:
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
        ``uploads/`` and check it with the command line's reader for ``kind`` ("swf" or
        "pool"); the stored path. Errors are one line naming the uploaded file."""
        name = _SAFE_NAME.sub("_", Path(filename or "upload").name).strip("._") or "upload"
        _, _, payload = (contents or "").partition(",")
        if len(payload) > (MAX_UPLOAD_BYTES * 4) // 3 + 4:
            raise InputError(f"the file is larger than {MAX_UPLOAD_BYTES >> 20} MB", name)
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise InputError("the upload is not a file the browser sent", name) from None
        if not data:
            raise InputError("the file is empty", name)
        digest = hashlib.sha256(data).hexdigest()[:12]
        folder = self.root / UPLOADS / digest
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_bytes(data)
        try:
            check_upload(path, kind)
        except InputError as exc:
            path.unlink(missing_ok=True)
            what = exc.what.replace(f"{path}: ", "").replace(str(path), name)
            raise InputError(what, _shown(exc.where, path, name)) from None
        return path


def check_upload(path: Path, kind: str) -> None:
    """Read ``path`` as the command line would (raises its :class:`InputError`)."""
    if kind == "swf":
        from ..workload.swf import read_swf

        read_swf(path)
    elif kind == "pool":
        from ..coloc.pool import load_pool

        load_pool(path)
    elif kind == "ensemble":
        from ..insitu.spec import load_ensemble

        load_ensemble(path)
    elif kind == "workflow":
        from ..workflows.formats import load_workflow

        load_workflow(path)
    elif kind == "workflow-sweep":
        from ..experiments.workflows import load_workflow_spec

        load_workflow_spec(path)
    elif kind == "coupled-sweep":
        from ..experiments.coupled import load_coupled_spec

        load_coupled_spec(path)
    elif kind == "study":
        from ..studies.spec import load_spec

        load_spec(path)
    elif kind == "policy":
        from ..schedulers.registry import get_scheduler

        if path.suffix != ".py":
            raise InputError("a policy is a Python file (.py)", str(path))
        get_scheduler(str(path))
    else:
        raise ValueError(f"unknown upload kind {kind!r}")


def _shown(where: str | None, path: Path, name: str) -> str:
    """An error's place with the upload's stored path replaced by the name the user gave."""
    if not where:
        return name
    return where.replace(str(path), name)
