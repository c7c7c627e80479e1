"""Writing results without losing any: checked targets, temporary siblings, atomic moves.

Every command that writes a result goes through here:

* :func:`check_target` runs *before* the work (a long simulation must not end in "cannot
  write"): the target must not be an existing file, its parent must be writable, and an
  existing non-empty target is refused unless ``force``; even with ``force``, a directory
  holding files coschedlab did not write is never replaced. A directory coschedlab made
  carries a :data:`MARKER` file listing every file coschedlab wrote under it (its manifest:
  :func:`record` adds to it before each file is moved into place, :class:`atomic_dir` writes
  a finished directory's whole, a sweep's grows run by run): only those are ours, and a
  user's file named like them (a ``summary.csv`` written after the run) is not. The nearest
  marker above a file decides for it. A marker without a list (a folder written before
  manifests) keeps the rule of names: :data:`OUR_FILES` in it are ours. A directory without
  any marker (the user's) may hold only the exact names of a single result
  (:data:`RESULT_FILES`): ``--out ~/thesis --force`` deletes nothing.
* :func:`atomic_dir` / :func:`atomic_file` write into a temporary sibling and move it into
  place only when everything was written: a failure (full disk, Ctrl-C, a bug) leaves the
  earlier result untouched and no half-written one.

Failures of the environment (a full disk, an I/O error) become :class:`OutputError` (the
command line exits with code 1); a target the user chose badly is an
:class:`~coschedlab.errors.InputError` (exit code 2).
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from .errors import InputError, OutputError

__all__ = [
    "OLD_PREFIX",
    "OUR_FILES",
    "TMP_PREFIX",
    "atomic_dir",
    "atomic_file",
    "check_target",
    "clean_stale",
    "first_foreign",
    "forget",
    "is_empty",
    "left_by_the_dead",
    "mark",
    "marked_folder",
    "os_error",
    "record",
    "recorded",
    "write_parquet",
    "written",
]

#: the list of the files the last report wrote into a folder, before manifests (the marker's
#: list, :func:`record`, holds them now): still read once, then removed
REPORT_FILES = ".report-files"
#: Names of the files coschedlab writes into a result or report directory. ``--force``
#: replaces a directory only when every file in it (recursively) matches one of these.
OUR_FILES = (
    "jobs.parquet", "jobs.csv", "result.swf", "metrics.json", "run.json", "error.txt",
    "spec.json", "*.png", "*.html", "*.csv", "*.md", "*.swf", "*.json", "*.error.txt",
    REPORT_FILES,
)  # fmt: skip
#: the exact names a single result holds: all that an unmarked directory may contain
RESULT_FILES = (
    "jobs.parquet", "jobs.csv", "result.swf", "metrics.json", "run.json", "error.txt",
    "spec.json", "*.error.txt",
)  # fmt: skip
#: the file that marks a directory coschedlab made (results, reports, sweeps)
MARKER = ".coschedlab"
#: name prefixes of the temporary siblings (a killed process may leave them behind)
TMP_PREFIX = ".tmp-"
OLD_PREFIX = ".old-"
#: the longest name (bytes) a result may have: its temporary siblings' names (the prefix, a
#: process id of up to 7 digits and 8 hex digits added) must fit the file system's 255
MAX_NAME = 255 - len(TMP_PREFIX) - len("-4194304-") - 8
#: errno values that mean the machine, not the user, failed: exit code 1
ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.ENOMEM}


def os_error(exc: OSError, what: str = "", option: str = "--out") -> Exception:
    """``exc`` as a one-line error naming the file: :class:`OutputError` when the machine
    failed (full disk, I/O error), else :class:`~coschedlab.errors.InputError` (a read-only
    or forbidden place: the advice names ``option``, the option that chose it)."""
    name = exc.filename or what or "output"
    reason = exc.strerror or str(exc)
    if exc.errno in ENVIRONMENT_ERRNOS:
        return OutputError(f"{reason}; nothing was replaced, free some space and rerun", name)
    if exc.errno == errno.EROFS:
        return InputError(f"{reason}; give {option} a path on a writable file system", name)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return InputError(f"{reason}; give {option} a path you may write", name)
    return InputError(reason, name)


#: the marker's first line, and the second of one that lists the files written (its manifest:
#: one JSON string a line, a path relative to the marker's folder; a writer's own tag and the
#: path as a JSON pair ``["report", "comparison.png"]``)
MARKER_HEAD = "written by coschedlab: --force may replace this directory\n"
MANIFEST_HEAD = "files it wrote (--force replaces only these), one JSON string a line:\n"


def _entries(folder: str | Path) -> list[tuple[str, str]] | None:
    """The (tag, relative path) of every file the marker of ``folder`` lists, None when it
    has no marker or one without a list (written before manifests)."""
    try:
        text = (Path(folder) / MARKER).read_text(errors="replace")
    except OSError:
        return None
    if not text.startswith(MARKER_HEAD + MANIFEST_HEAD):
        return None
    out = []
    for line in text[len(MARKER_HEAD + MANIFEST_HEAD) :].split("\n"):
        try:
            v = json.loads(line)
        except ValueError:
            continue  # (a line cut short by a killed writer)
        if isinstance(v, str):
            out.append(("", v))
        elif isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v):
            out.append((v[0], v[1]))
    return out


def written(folder: str | Path) -> set[str] | None:
    """The files (relative paths) the marker of ``folder`` lists as written there, None when
    it has no list (no marker, or one written before manifests)."""
    listed = _entries(folder)
    return None if listed is None else {p for _, p in listed}


def _has_list(folder: Path) -> bool:
    """True when ``folder``'s marker lists the files written (only its head read: a sweep's
    marker grows with each run)."""
    head = (MARKER_HEAD + MANIFEST_HEAD).encode()
    try:
        with open(folder / MARKER, "rb") as f:
            return f.read(len(head)) == head
    except OSError:
        return False


def _walk(
    path: Path, top: Path | None = None, legacy: tuple[str, ...] | None = None
) -> Iterator[tuple[Path, Path | None, bool]]:
    """(file, the folder of the marker that decides for it or None, ours) for every file
    under the directory ``path`` but markers (the module docstring): the nearest marker at or
    above the file's folder, up to ``top`` (default ``path``), decides; its list when it has
    one, else :data:`OUR_FILES` when ``top`` is marked and :data:`RESULT_FILES` when not."""
    path = Path(path)
    top = path if top is None else Path(top)
    top_s = os.path.normpath(top)
    names = legacy or (OUR_FILES if (top / MARKER).is_file() else RESULT_FILES)
    rules: dict[str, tuple[Path | None, Any]] = {}

    def rule(d: str) -> tuple[Path | None, Any]:
        if d not in rules:
            if os.path.isfile(os.path.join(d, MARKER)):
                listed = _entries(d)
                rules[d] = (Path(d), names if listed is None else {p for _, p in listed})
            elif os.path.normpath(d) == top_s or os.path.dirname(d) in ("", d):
                rules[d] = (None, names)
            else:
                rules[d] = rule(os.path.dirname(d))
        return rules[d]

    temporary: set[str] = set()  # what a killed write left (a temporary sibling): ours
    for root, dirs, files in os.walk(path):
        dirs.sort()
        temporary.update(os.path.join(root, d) for d in dirs if _temporary(d) or root in temporary)
        where, ours = rule(root)
        for name in sorted(files):
            if name == MARKER:
                continue
            file = Path(root) / name
            if root in temporary or _temporary(name):
                yes = True
            elif isinstance(ours, set):
                yes = Path(os.path.relpath(file, where)).as_posix() in ours
            else:
                yes = any(fnmatch(name, pattern) for pattern in ours)
            yield file, where, yes


def first_foreign(
    path: Path,
    patterns: tuple[str, ...] | None = None,
    top: Path | None = None,
    legacy: tuple[str, ...] | None = None,
) -> Path | None:
    """The first file under the directory ``path`` that coschedlab did not write, if any
    (the module docstring; ``top``: the folder above ``path`` whose marker counts too;
    ``patterns``: names that are ours wherever they are, instead; ``legacy``: the names that
    are ours where no marker lists its files, instead of the module docstring's)."""
    if patterns is not None:
        for root, _dirs, files in os.walk(path):
            for name in files:
                if name != MARKER and not any(fnmatch(name, p) for p in patterns):
                    return Path(root) / name
        return None
    return next((file for file, _where, ours in _walk(path, top, legacy) if not ours), None)


def is_empty(path: str | Path) -> bool:
    """True when the directory ``path`` holds nothing but, perhaps, the :data:`MARKER`."""
    return all(p.name == MARKER for p in Path(path).iterdir())


def _write_marker(path: Path, entries: Iterable[tuple[str, str]]) -> None:
    """Write ``path``'s marker listing ``entries`` (tag, relative path), in one move."""
    lines = [json.dumps(p) if not tag else json.dumps([tag, p]) for tag, p in entries]
    marker = path / MARKER
    tmp = path / f"{TMP_PREFIX}{os.getpid()}-{_tag()}-{MARKER}"
    try:
        tmp.write_text(MARKER_HEAD + MANIFEST_HEAD + "".join(f"{x}\n" for x in lines))
        os.replace(tmp, marker)
    except OSError as exc:  # (a full disk: the file named, not "output")
        tmp.unlink(missing_ok=True)
        raise os_error(exc, str(marker)) from None


def _adopt(path: Path) -> None:
    """Give ``path`` a marker listing what the rule of names counts as ours in it now (a
    folder without a marker, or with one written before manifests: from now on only these
    and what is recorded later are ours)."""
    ours = [
        ("", Path(os.path.relpath(file, path)).as_posix())
        for file, where, yes in _walk(path)
        if yes and where in (None, path)
    ]
    _write_marker(path, ours)


def mark(path: str | Path) -> Path:
    """Create the directory ``path`` if needed and mark it as coschedlab's (:data:`MARKER`);
    what it already holds, it lists as written when the rule of names counts it ours (an
    unmarked folder: :data:`RESULT_FILES`, which ``--force`` accepted)."""
    path = Path(path)
    if path.exists() and not path.is_dir():  # mkdir's own word was "File exists"
        raise InputError(f"{path} exists and is not a directory; choose a directory")
    path.mkdir(parents=True, exist_ok=True)
    if not (path / MARKER).exists():
        _adopt(path)
    return path


def marked_folder(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that holds a marker."""
    folder = Path(os.path.abspath(folder))
    for d in (folder, *folder.parents):
        if (d / MARKER).is_file():
            return d
    return None


def record(paths: Iterable[str | Path], tag: str = "", once: bool = False) -> None:
    """Add ``paths`` (files about to be written, or written) to the manifest of the nearest
    marked folder above each (nothing for a file under no marker); a marker without a list
    gets one first (:func:`mark`). One appended write per marker: another process recording
    into the same folder (a sweep resumed beside) loses nothing. ``tag``: the writer's own
    (:func:`recorded`); ``once``: not a path the manifest lists already (with ``tag``: a
    writer that records the same names each time it starts, a resumed study's)."""
    lines: dict[Path, list[str]] = {}
    listed: dict[Path, set[tuple[str, str]]] = {}
    for p in paths:
        p = Path(os.path.abspath(p))
        where = marked_folder(p.parent)
        if where is not None:
            rel = p.relative_to(where).as_posix()
            if once:
                if where not in listed:
                    listed[where] = set(_entries(where) or ())
                if (tag, rel) in listed[where]:
                    continue
                listed[where].add((tag, rel))
            lines.setdefault(where, []).append(json.dumps([tag, rel] if tag else rel))
    for where, text in lines.items():
        if not _has_list(where):
            _adopt(where)
        try:
            fd = os.open(where / MARKER, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, "".join(f"{x}\n" for x in text).encode())
            finally:
                os.close(fd)
        except OSError as exc:
            raise os_error(exc, str(where / MARKER)) from None


def forget(paths: Iterable[str | Path]) -> None:
    """Take ``paths`` (files removed, or never written) off the manifest of the nearest marked
    folder above each, so that a user's file given one of their names later is the user's;
    an entry listed twice stays once. The marker is rewritten in one move (not for a folder
    another process records into at the same time: a sweep's)."""
    drop: dict[Path, set[str]] = {}
    for p in paths:
        p = Path(os.path.abspath(p))
        where = marked_folder(p.parent)
        if where is not None:
            drop.setdefault(where, set()).add(p.relative_to(where).as_posix())
    for where, rels in drop.items():
        listed = _entries(where)
        if listed is not None:
            _write_marker(where, dict.fromkeys(e for e in listed if e[1] not in rels))


def recorded(folder: str | Path, tag: str) -> list[Path]:
    """The files directly in ``folder`` that the manifest above it lists with ``tag`` (the
    report's: the figures it wrote before); never a path outside ``folder``."""
    folder = Path(folder)
    where = marked_folder(folder)
    listed = _entries(where) if where is not None else None
    if not listed:
        return []
    here = Path(os.path.relpath(os.path.abspath(folder), where)).as_posix()
    out = []
    for t, rel in listed:
        parent, _, name = rel.rpartition("/")
        if (
            t == tag
            and (parent or ".") == here
            and name not in ("", ".", "..")
            and "\\" not in name
        ):
            out.append(folder / name)
    return sorted(set(out))


def _named(option: str, path: Path | None = None) -> str:
    """How a message names the target ``path`` given by ``option``: ``--out PATH`` on the
    command line; ``out_dir='PATH'`` for a Python argument (``option`` ending in "=", e.g.
    ``"out_dir="``: :meth:`Result.save <coschedlab.engine.result.Result.save>`)."""
    if not option.endswith("="):
        return option if path is None else f"{option} {path}"
    return option[:-1] if path is None else f"{option}{str(path)!r}"


def _force(option: str) -> str:
    """What replaces an existing target: ``--force`` on the command line, ``force=True`` for
    a Python argument (:func:`_named`)."""
    return "force=True" if option.endswith("=") else "--force"


def check_target(
    path: str | Path,
    force: bool = False,
    kind: str = "dir",
    option: str = "--out",
    probe: bool = True,
    whole: bool = False,
    inputs: Iterable[str | Path | None] = (),
) -> Path:
    """Check, before any work, that ``path`` can receive a result of ``kind`` ("dir" or "file").

    Raises :class:`~coschedlab.errors.InputError` (naming ``option`` and the path) when it is
    an existing file where a directory is wanted (or the reverse), when it already holds a
    result and ``force`` is not given, when ``force`` would delete files coschedlab did not
    write, or when its parent cannot be written; ``whole`` (a directory :func:`atomic_dir`
    will replace whole): also when it is a mount point; ``inputs`` (files or folders the
    command reads; None and ``coschedlab:NAME`` skipped): also when the directory is one of
    them or holds one (``--force`` replaced the workload it had just read).
    """
    path = Path(path)
    who, give = _named(option, path), _force(option)  # (--out PATH / out_dir='PATH')
    size = len(os.fsencode(path.name))
    if size > MAX_NAME:  # (its temporary sibling's name, or its own, would be too long)
        raise InputError(
            f"{who}: the name is {size:,} bytes long, at most {MAX_NAME} (the result "
            "is first written beside it under a longer temporary name); choose a shorter name"
        )
    if probe:
        clean_stale(path)
    if kind == "dir":
        if path.is_dir() and Path.cwd().resolve().is_relative_to(path.resolve()):
            raise InputError(
                f"{who} is the current directory (or holds it): a result replaces "
                "its folder whole; give a new folder inside it"
            )
        if path.exists() and not path.is_dir():
            raise InputError(f"{who} exists and is not a directory; choose a directory")
        if whole and path.is_dir() and os.path.ismount(path):  # (moving it aside: EBUSY)
            raise InputError(
                f"{who} is a mount point, which a result cannot replace (it replaces "
                "its folder whole); give a new folder inside it"
            )
        if path.is_dir():
            _check_holds_no_input(path, inputs, who)
        if path.is_dir() and not is_empty(path):
            # (a folder of other files first: "give --force" would only be refused next)
            foreign = first_foreign(path)
            if foreign is not None:
                raise InputError(
                    f"{who} holds files coschedlab did not write ({foreign}); "
                    f"refusing to replace it, {give} or not: move it away, or choose "
                    "another directory"
                )
            if not force:
                raise InputError(
                    f"{who} already holds a result; give {give} to replace it, or "
                    "choose another directory"
                )
    else:
        if path.is_dir():
            raise InputError(f"{who} is a directory; give a file name")
        if path.exists() and not force:
            raise InputError(
                f"{who} already exists; give {give} to replace it, or choose another name"
            )
        if path.exists() and not path.is_file():
            raise InputError(f"{who} is not a regular file; give a file name")
    if probe:
        _check_writable(path, option)
    return path


def _check_holds_no_input(path: Path, inputs: Iterable[str | Path | None], who: str) -> None:
    """Refuse the directory ``path`` when it is one of ``inputs`` or holds one: a result
    replaces its folder whole, and what coschedlab wrote there (a workload, a result.swf) is
    no foreign file that would stop ``--force``."""
    from .bundled import is_bundled

    here = path.resolve()
    for given in inputs:
        if given is None or str(given) == "-" or is_bundled(str(given)):
            continue
        read = Path(given).resolve()
        if read == here or here in read.parents:
            raise InputError(
                f"{who} {'is' if read == here else 'holds'} {given}, which this command "
                "reads: a result replaces its folder whole; choose another directory"
            )


#: the names of temporary siblings: a directory's (and its old copy's), a file's, the probe's
#: (compiled by ``re`` when first matched: a run that meets none does not pay for them)
_TEMPORARY = (
    r"(?P<target>.+)-(?P<pid>\d+)-[0-9a-f]{8}",
    r"(?P<pid>\d+)-[0-9a-f]{8}-(?P<target>.+)",
)


def _temporary(name: str) -> tuple[int, str] | None:
    """(process id, target name) when ``name`` is a temporary sibling that :func:`atomic_dir`,
    :func:`atomic_file` or the writability probe made, else None."""
    for prefix in (TMP_PREFIX, OLD_PREFIX):
        if name.startswith(prefix):
            rest = name[len(prefix) :]
            for pattern in _TEMPORARY:
                found = re.fullmatch(pattern, rest)
                if found:
                    return int(found["pid"]), found["target"]
    return None


def _dead(pid: int) -> bool:
    """True when no process ``pid`` runs here (one of another user's counts as running)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def left_by_the_dead(name: str) -> bool:
    """False when ``name`` is a temporary sibling that a running process is writing (another
    sweep into the same folder), else True (a killed write's leftover)."""
    found = _temporary(name)
    return found is None or _dead(found[0])


def clean_stale(path: str | Path) -> None:
    """Remove the temporary siblings beside ``path`` that killed processes left (the process
    id in their names no longer runs): a killed ``--force`` keeps the earlier result but would
    otherwise leave a hidden copy beside it for good. An earlier result moved aside by a
    process killed in the middle of its swap (``.old-*`` while its target is gone) is put
    back."""
    path = Path(path)
    try:
        names = os.listdir(path.parent if str(path.parent) else ".")
    except OSError:
        return
    for name in names:
        found = _temporary(name)
        if found is None or not _dead(found[0]):
            continue
        stale, target = path.parent / name, path.parent / found[1]
        try:
            if name.startswith(OLD_PREFIX) and not os.path.lexists(target):
                os.replace(stale, target)  # the earlier result, back in place
            elif stale.is_dir() and not stale.is_symlink():
                _rmtree(stale)
            else:
                stale.unlink()
        except OSError:
            pass  # another process cleaned it, or it cannot be: the target still works


def _tag() -> str:
    """Eight random hex digits: a temporary name's own part."""
    return os.urandom(4).hex()


def _rmtree(path: Path, ignore_errors: bool = False) -> None:
    """``shutil.rmtree`` (imported here: it loads the compression modules, which a command
    that removes nothing does not need)."""
    import shutil

    shutil.rmtree(path, ignore_errors=ignore_errors)


def _check_writable(path: Path, option: str) -> None:
    """Create ``path``'s parent if needed and prove a file can be made in it; else one line
    saying that ``path`` cannot be created, and why."""
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = parent / f"{TMP_PREFIX}probe-{os.getpid()}-{_tag()}"
        probe.mkdir()
        probe.rmdir()
    except FileExistsError as exc:
        raise InputError(f"{_named(option)}: {exc.filename} is a file, not a directory") from None
    except NotADirectoryError as exc:
        raise InputError(
            f"{_named(option)}: {exc.filename}: a parent is a file, not a directory"
        ) from None
    except OSError as exc:
        exc.filename = str(parent)  # the directory, not the probe inside it
        err = os_error(exc, str(parent), _named(option))
        if isinstance(err, InputError):  # the machine's failures (full disk) stay as they are
            err = InputError(f"{_named(option, path)} cannot be created ({err})")
        raise err from None


class atomic_dir:  # noqa: N801 (a context manager used as a function is: with atomic_dir(..))
    """``with atomic_dir(path) as tmp``: a fresh temporary directory beside ``path``; when the
    block ends normally, it replaces ``path`` in one move (the old one, if any, is removed
    only after). On any error the temporary directory is removed and ``path`` is left as it
    was. A symbolic link is followed: the folder it names is replaced (the link itself was
    moved aside, and a dangling one failed after the work). ``path`` filled by another run
    meanwhile is not replaced without ``force``: the result goes to ``PATH-2`` (``-3``, ...),
    said by an :class:`InputError`, or (``beside``: a folder the caller chose itself) kept
    there quietly; :attr:`final` is where the result went."""

    def __init__(
        self, path: str | Path, force: bool = False, option: str = "--out", beside: bool = False
    ) -> None:
        if os.path.islink(path):
            path = os.path.realpath(path)
        self.path = check_target(path, force, "dir", option, whole=True)
        self.force, self.option, self.beside = force, option, beside
        self.final = self.path
        self.tmp = self.path.parent / f"{TMP_PREFIX}{self.path.name}-{os.getpid()}-{_tag()}"

    def __enter__(self) -> Path:
        try:
            self.tmp.mkdir()
        except OSError as exc:
            raise os_error(exc, str(self.path)) from None
        return self.tmp

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 _tb: Any) -> None:  # fmt: skip
        try:
            if kind is not None:
                raise exc  # type: ignore[misc]
            _seal(self.tmp)
            path = self.path
            if not self.force and path.is_dir() and not is_empty(path):  # filled meanwhile
                self.final = _keep_beside(self.tmp, path)
                if not self.beside:
                    raise InputError(
                        f"{_named(self.option, path)} received another run's result while this one "
                        f"ran; not replacing it without {_force(self.option)}: this result is in "
                        f"{self.final}/"
                    )
            else:
                _swap_in(self.tmp, path)
        except OSError as err:
            _rmtree(self.tmp, ignore_errors=True)
            raise os_error(err, str(self.path)) from None
        except BaseException:
            _rmtree(self.tmp, ignore_errors=True)
            raise


def _seal(tmp: Path) -> None:
    """Mark the finished directory ``tmp`` listing every file in it (all written by its
    writer; a folder in it with a marker of its own lists its files itself), before it is
    moved into place."""
    earlier = _entries(tmp) or []
    walked = [
        ("", Path(os.path.relpath(file, tmp)).as_posix())
        for file, where, _ours in _walk(tmp)
        if where in (None, tmp)
    ]
    _write_marker(tmp, dict.fromkeys([*earlier, *walked]))


def _keep_beside(tmp: Path, path: Path) -> Path:
    """Move the finished result ``tmp`` to a new ``PATH-2`` (``-3``, ...), and return that:
    ``path``, empty or absent when checked, holds another run's result now (parallel runs of
    one trace into its default folder)."""
    k = 1
    while True:
        k += 1
        kept = path.with_name(f"{path.name}-{k}")
        if os.path.lexists(kept):
            continue
        try:
            os.rename(tmp, kept)  # (an empty folder made meanwhile is taken: nothing lost)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                continue  # taken meanwhile
            raise
        return kept


def _swap_in(tmp: Path, path: Path) -> None:
    if path.exists():
        old = path.parent / f"{OLD_PREFIX}{path.name}-{os.getpid()}-{_tag()}"
        os.replace(path, old)
        try:
            os.replace(tmp, path)
        except BaseException:
            os.replace(old, path)
            raise
        _rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, path)


@contextmanager
def atomic_file(
    path: str | Path, force: bool = False, option: str = "--out", probe: bool = True
) -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; when the block ends normally the file
    replaces ``path`` (``os.replace``). On any error it is removed and ``path`` is untouched.
    ``probe=False`` skips proving the directory writable first (a store writing run after
    run into its own directory: the write itself fails clearly)."""
    path = check_target(path, force, "file", option, probe=probe)
    # the temporary name ends with the target's name: writers that choose a format by the
    # suffix (".gz", ".png") see the same suffix
    tmp = path.parent / f"{TMP_PREFIX}{os.getpid()}-{_tag()}-{path.name}"
    try:
        yield tmp
        record([path])  # before it is in place: a killed write leaves nothing unlisted
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise os_error(exc, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def slug(name: str, keep: str = ".+=,-", fallback: str = "scheduler") -> str:
    """A file-system-safe form of a label (``easy:depth=50`` -> ``easy_depth=50``): each run of
    characters other than ASCII letters, digits, ``_`` and those of ``keep`` becomes one
    ``_``, and none is left at either end; ``fallback`` when nothing is left."""
    return re.sub(f"[^A-Za-z0-9_{re.escape(keep)}]+", "_", name).strip("_") or fallback


# -- the jobs table as Parquet, without pandas ---------------------------------------------------
#: pandas' (logical type, NumPy type) of a column, per NumPy kind, as pyarrow records them in the
#: ``pandas`` schema metadata of a table made by ``Table.from_pandas`` (pandas 3 strings are
#: ``str``, stored as large_string)
_PANDAS_TYPES = {"i": None, "u": None, "f": None, "b": ("bool", "bool"), "O": ("object", "str")}


#: rows of each row group of a jobs.parquet written from NumPy columns: the columns are
#: converted and encoded a row group at a time (a million jobs: the allocation texts and the
#: encoder's buffers of 256Ki rows at once, not of all)
ROW_GROUP_ROWS = 1 << 18

#: columns a workload keeps in 32 bits (its labels, the SWF processor counts) and a run's
#: result too (``nodes``, ``start_pass``: :meth:`~coschedlab.engine.result.Result.narrow_counts`)
#: that jobs.parquet writes as int64, as before they were 32-bit (cast a row group at a time)
INT64_COLUMNS = frozenset(
    ("user", "group", "app", "queue", "partition", "status", "alloc_procs", "req_procs",
     "nodes", "start_pass")
)  # fmt: skip


def _file_dtype(name: str, a: Any) -> Any:
    """The NumPy type column ``name`` is written with: int64 for a narrower whole-number
    column of :data:`INT64_COLUMNS`, else its own."""
    import numpy as np

    dtype = a.dtype
    if name in INT64_COLUMNS and dtype.kind in "iu" and dtype.itemsize < 8:
        return np.dtype(np.int64)
    return dtype


def write_parquet(path: str | Path, table: Any) -> None:
    """Write a jobs table as Parquet: a mapping of NumPy arrays (numbers, booleans, or
    objects that are all strings), or a DataFrame of such columns, with pyarrow alone, in row
    groups of :data:`ROW_GROUP_ROWS` rows, with the schema and the ``pandas`` schema metadata
    that ``DataFrame.to_parquet(path, index=False)`` of the same columns writes (so pandas and
    pyarrow read the file back as the same frame and table). Other columns go through pandas
    (``to_parquet``)."""
    import numpy as np

    to_parquet = getattr(table, "to_parquet", None)
    if to_parquet is not None:
        # a frame of plain columns: the same writer as its columns (the same file whichever
        # a run's result holds), else pandas'
        arrays = _frame_arrays(table)
        texts = None if arrays is None else _text_buffers(arrays)
        if texts is None:
            to_parquet(path, index=False)
            return
    else:
        # a column that makes its own text buffers (a run's allocations) stays as it is
        arrays = {n: v if hasattr(v, "text_chunks") else np.asarray(v) for n, v in table.items()}
        texts = _text_buffers(arrays)
        if texts is None:
            import pandas as pd

            pd.DataFrame(arrays).to_parquet(path, index=False)
            return
    import json

    pa = import_pyarrow()

    fields, meta = [], []
    wide = {}
    for name, a in arrays.items():
        if not hasattr(a, "text_chunks") and (to := _file_dtype(name, a)) != a.dtype:
            wide[name] = to
        dtype = wide.get(name, a.dtype)
        kinds = _PANDAS_TYPES[a.dtype.kind] or (dtype.name, dtype.name)
        kind = pa.from_numpy_dtype(dtype) if name in wide else _arrow_type(a)
        fields.append(pa.field(name, kind))
        meta.append(
            {"name": name, "field_name": name, "pandas_type": kinds[0],
             "numpy_type": kinds[1], "metadata": None}
        )  # fmt: skip
    pandas_meta = {
        "index_columns": [],
        "column_indexes": [],
        "columns": meta,
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": pandas_version(),
    }
    schema = pa.schema(fields, metadata={"pandas": json.dumps(pandas_meta)})
    # the strings of object columns: one array, sliced per row group (no copy)
    whole = {name: arrow_array(None, text) for name, text in texts.items() if text is not None}
    n = len(next(iter(arrays.values()))) if arrays else 0
    size = ROW_GROUP_ROWS
    # a column that makes its own texts (a run's allocations) makes them a row group at a time
    made = {name: a.text_chunks(size) for name, a in arrays.items() if hasattr(a, "text_chunks")}

    def anew(values: Any, to: Any, same: dict) -> Any:
        """A row group's ``values`` as an Arrow array of ``to`` made anew (widened, or made
        contiguous); when they are one value (bit for bit: a label or an unknown field, -1),
        the array of that value in ``same``, shared by every such column of the row group (a
        million jobs: ~14 MB less while a row group is written)."""
        if len(values) and values.dtype.kind in "iuf":
            bits = values.view(f"u{values.itemsize}")
            if values.strides == (0,) or (bits[-1] == bits[0] and (bits == bits[0]).all()):
                one = values[:1].astype(to)
                key = (one.dtype.str, one.tobytes())
                if key not in same:
                    same[key] = arrow_array(np.full(len(values), one[0]))
                return same[key]
        return arrow_array(values.astype(to, copy=False))

    def groups() -> Iterator[Any]:
        for lo in range(0, n, size):
            part: list = []
            same: dict = {}
            for name, a in arrays.items():
                if name in whole:
                    part.append(whole[name].slice(lo, min(size, n - lo)))
                elif name in made:
                    part.append(arrow_array(None, next(made[name])))
                elif name in wide or not a.flags.c_contiguous:
                    part.append(anew(a[lo : lo + size], wide.get(name, a.dtype), same))
                else:
                    part.append(arrow_array(a[lo : lo + size]))
            del same
            table = pa.table(part, schema=schema)
            del part
            yield table
            del table

    write_arrow_tables(schema, groups(), path, options=_column_options(arrays))
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed memory else


def import_pyarrow() -> Any:
    """``pyarrow``, imported (the first time) without ``cloudpickle``: pyarrow 26's
    ``compat.pxi`` binds ``pickle`` to cloudpickle when it is installed, and its
    ``types.pxi``, included later in ``pyarrow.lib``, binds the same name to the standard
    ``pickle`` again (``pyarrow.lib.pickle`` is the standard module either way), so the import
    of cloudpickle (with ``logging``, ``uuid``, ``dataclasses``: ~5 ms of CPU, 1/7 of
    pyarrow's import) does nothing for pyarrow. cloudpickle is hidden only while pyarrow is
    first imported, and only when nothing imported it before (dask imports it itself)."""
    import sys

    if "pyarrow" not in sys.modules and "cloudpickle" not in sys.modules:
        sys.modules["cloudpickle"] = None  # type: ignore[assignment]  (import -> ImportError)
        try:
            import pyarrow
        finally:
            if sys.modules.get("cloudpickle", 0) is None:
                del sys.modules["cloudpickle"]
    import pyarrow

    return pyarrow


def _frame_arrays(frame: Any) -> dict[str, Any] | None:
    """A DataFrame's columns as NumPy arrays when each is of a kind :func:`write_parquet`
    writes as pandas does (numbers and booleans of NumPy types, pandas' ``str`` texts), its
    column names strings, without a name for its columns or ``attrs``; else None."""
    import numpy as np

    if frame.columns.name is not None or getattr(frame, "attrs", None):
        return None  # (pandas records these in its metadata)
    out: dict[str, Any] = {}
    for name in frame.columns:
        if not isinstance(name, str) or name in out:
            return None
        v = frame[name]
        if isinstance(v.dtype, np.dtype) and v.dtype.kind in "iufb":
            out[name] = v.to_numpy()
        elif str(v.dtype) == "str":  # pandas 3 texts: objects, a missing one not a str
            out[name] = v.to_numpy(dtype=object)
        else:
            return None
    return out


def _arrow_type(values: Any) -> Any:
    """The Arrow type :func:`arrow_array` gives a column (large_string for texts)."""
    import pyarrow as pa

    if hasattr(values, "text_chunks") or values.dtype.kind in "OU":
        return pa.large_string()
    if values.dtype.kind == "b":
        return pa.bool_()
    return pa.from_numpy_dtype(values.dtype)


#: the columns of a jobs table with few distinct values (labels, counts, requested times,
#: allocations): jobs.parquet dictionary-encodes these and texts, and writes the others (ids,
#: times, per-job metrics: mostly distinct) plain. On SDSC-SP2 the file is 14% smaller and
#: written in 0.65x the time of a dictionary tried on every column (and given up on most).
#: ``app`` (the SWF's executable number: one per job on SDSC-SP2, 48,626 values of 54,044)
#: and ``reservation`` (a time per job) are plain: their dictionaries cost 5.6 of the
#: writer's 28 ms there for a larger file (3.53 -> 3.42 MB plain; CTC-SP2 and KTH-SP2 within
#: 0.5%)
DICTIONARY_COLUMNS = frozenset(
    ("procs", "nodes", "alloc", "user", "group", "queue", "partition", "status",
     "requested_time", "alloc_procs", "req_procs", "used_mem", "req_mem",
     "node_cores", "cores", "placement", "deps")
)  # fmt: skip


def _column_options(arrays: dict[str, Any]) -> dict[str, Any]:
    """The Parquet writer's per-column choices for jobs.parquet: dictionary encoding for
    :data:`DICTIONARY_COLUMNS` and texts; the other columns' values split by byte
    (``BYTE_STREAM_SPLIT``: floats, times and per-job metrics) or as differences
    (``DELTA_BINARY_PACKED``: whole numbers, ids and passes), whose bytes snappy compresses
    better than plain doubles and integers (SDSC-SP2: 3.42 -> 2.70 MB, the writer 24 -> 20.5
    ms); statistics and snappy for all."""
    import pyarrow as pa

    texts = pa.large_string()
    dictionary, encoding = [], {}
    for name, a in arrays.items():
        kind = _arrow_type(a)
        if name in DICTIONARY_COLUMNS or kind == texts:
            dictionary.append(name)
        elif pa.types.is_floating(kind):
            encoding[name] = "BYTE_STREAM_SPLIT"
        elif pa.types.is_integer(kind):
            encoding[name] = "DELTA_BINARY_PACKED"
    return {"use_dictionary": dictionary, "column_encoding": encoding or None}


def write_arrow_tables(
    schema: Any, tables: Iterable[Any], path: str | Path, options: dict[str, Any] | None = None
) -> None:
    """Write pyarrow tables of ``schema`` to ``path`` as one Parquet file, each table its own
    row group, with pyarrow's Parquet writer itself (``options`` left out: the keywords that
    ``pyarrow.parquet.write_table(table, path, compression="snappy")`` passes it):
    ``pyarrow.parquet`` imports ``pyarrow.fs``, and with it ``ssl`` and the cloud file systems
    (~0.02 s of CPU that a local file does not need). ``options`` override the writer's
    keywords (``use_dictionary``, ``write_statistics``, ``compression``...). A file that fails
    half-way is removed, as pyarrow removes it."""
    pa = import_pyarrow()
    from pyarrow._parquet import ParquetWriter

    kwargs = dict(
        version="2.6", compression="snappy", use_dictionary=True, write_statistics=True,
        use_deprecated_int96_timestamps=False, compression_level=None,
        use_byte_stream_split=False, column_encoding=None, writer_engine_version="V2",
        data_page_version="1.0", use_compliant_nested_type=True, encryption_properties=None,
        write_batch_size=None, dictionary_pagesize_limit=None, store_schema=True,
        write_page_index=False, write_page_checksum=False, sorting_columns=None,
        store_decimal_as_integer=False,
    )  # fmt: skip
    kwargs.update(options or {})
    try:
        with pa.OSFile(str(path), "wb") as sink:
            writer = ParquetWriter(sink, schema, **kwargs)
            try:
                wrote = False
                for table in tables:
                    writer.write_table(table, row_group_size=None)
                    wrote = True
                    del table  # (not held while the next is made)
                if not wrote:  # no row: one empty row group, as write_table writes
                    writer.write_table(schema.empty_table(), row_group_size=None)
            finally:
                writer.close()
    except BaseException:
        Path(path).unlink(missing_ok=True)
        raise


def _text_buffers(arrays: dict[str, Any]) -> dict[str, tuple | None] | None:
    """Arrow's buffers (:func:`~coschedlab._core.textrows.utf8_column`) of each object
    column (None for a column that makes its own, a row group at a time), or None when some
    column is not one pyarrow alone writes as pandas would (a kind other than numbers,
    booleans and objects that are all ``str``)."""
    from ._core.textrows import utf8_column  # compiled: no bytes object per text

    out = {}
    for name, a in arrays.items():
        if hasattr(a, "text_chunks"):
            out[name] = None  # made a row group at a time
            continue
        if a.dtype.kind not in _PANDAS_TYPES:
            return None
        if a.dtype.kind == "O":
            try:
                out[name] = utf8_column(a.tolist())
            except TypeError:  # not all str (None, bytes, a str subclass)
                return None
    return out


def pandas_version() -> str:
    """``pandas.__version__`` without importing pandas (nor ``importlib.metadata``, which
    reads every installed distribution): the version file pandas' own ``__init__`` reads, else
    the distribution's metadata."""
    from importlib.util import find_spec

    spec = find_spec("pandas")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        try:
            text = (Path(folder) / "_version_meson.py").read_text()
        except OSError:
            continue
        found = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
        if found:
            return found[1]
    from importlib.metadata import version

    return version("pandas")


def arrow_array(values: Any, text: tuple | None = None) -> Any:
    """A pyarrow array of a NumPy column (whole numbers, floats, booleans, or strings: a
    ``str`` array or objects that are all strings, as large_string), NaN as null (as
    ``from_pandas``), built from its buffers: ``pyarrow.array`` of any NumPy array imports
    pandas (its categorical check), which the simulate command does not need. ``text``: the
    strings' buffers when already made (:func:`_text_buffers`)."""
    import numpy as np
    import pyarrow as pa

    if text is None and hasattr(values, "text_buffers"):
        text = values.text_buffers()
    if text is not None:
        offsets, data = text
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        return pa.Array.from_buffers(pa.large_string(), len(offsets) - 1, buffers)
    a = np.asarray(values)
    n = len(a)
    if a.dtype.kind in "OU":
        from ._core.textrows import utf8_column  # compiled: no bytes object per text

        offsets, data = utf8_column(a.tolist())
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        return pa.Array.from_buffers(pa.large_string(), n, buffers)
    if a.dtype.kind == "b":
        bits = np.packbits(a, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bits)])
    kind = pa.from_numpy_dtype(a.dtype)
    a = np.ascontiguousarray(a)
    valid = None
    if a.dtype.kind == "f" and np.isnan(a).any():
        valid = pa.py_buffer(np.packbits(~np.isnan(a), bitorder="little"))
    return pa.Array.from_buffers(kind, n, [valid, pa.py_buffer(a)])
