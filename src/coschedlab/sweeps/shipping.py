"""Inputs shipped to Dask workers: an input several runs share is pickled once and scattered
to every worker (:class:`Shipped`); an input file the runs read by path is read once by the
client, written once to each worker's local cache, and the runs' arguments pointed at that
copy (:class:`ShippedFile`, :func:`localize`): workers need neither a shared file system nor
the client's paths."""

from __future__ import annotations

import os
import pickle
import uuid
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from .tasks import Task

__all__ = ["Shipped", "ShippedFile", "input_files", "local_copy", "localize", "ship_file",
           "shared_args", "unship"]  # fmt: skip


@dataclass(frozen=True)
class Shipped:
    """An input several runs share, pickled once by the client and scattered to every worker
    (Dask serialises a pickled blob at memory speed, where it walks a large list item by
    item); each worker unpickles it once (:data:`_SHIPPED`)."""

    token: str
    blob: bytes


_SHIPPED: dict[str, Any] = {}  # on a worker: token -> the unpickled input

#: files larger than this are not shipped (the workers must then see them at the same path)
MOST_SHIPPED_BYTES = 1 << 30


@dataclass(frozen=True)
class ShippedFile:
    """An input file a sweep's runs read by path (a trace, a pool, a workflow), read once by
    the client and scattered to every worker, where it is written once to a local cache and
    the runs' arguments are pointed at that copy (:func:`localize`): workers need neither a
    shared file system nor the client's paths."""

    path: str
    digest: str
    data: bytes


def input_files(a: Any, found: set[str]) -> None:
    """Add to ``found`` the absolute paths of existing regular files among the strings and
    paths of ``a`` (:func:`_rewrite_paths` walks it)."""

    def note(text: str) -> str:
        if os.path.isabs(text) and len(text) < 4096 and os.path.isfile(text):
            found.add(text)
        return text

    _rewrite_paths(a, note)


def ship_file(path: str) -> ShippedFile:
    import hashlib

    size = os.path.getsize(path)
    if size > MOST_SHIPPED_BYTES:
        raise InputError(
            f"{path}: {size / 2**20:.0f} MiB is too large to ship to the Dask workers; "
            "put it where every worker sees it at the same path"
        )
    data = Path(path).read_bytes()
    return ShippedFile(path, hashlib.sha256(data).hexdigest(), data)


def local_copy(f: ShippedFile) -> str:
    """This worker's copy of a shipped file (written once, atomically)."""
    import tempfile

    folder = Path(tempfile.gettempdir()) / "coschedlab-inputs" / f.digest[:32]
    local = folder / Path(f.path).name
    if not local.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f".{local.name}.{uuid.uuid4().hex}.part"
        part.write_bytes(f.data)
        os.replace(part, local)
    return str(local)


def localize(a: Any, where: dict[str, str]) -> Any:
    """``a`` with every string or path naming a key of ``where`` replaced by its value."""
    return _rewrite_paths(a, lambda text: where.get(text, text))


def _rewrite_paths(a: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    """``a`` with every string (or path) ``t`` in it replaced by ``fn(t)``, walking
    dataclasses, tuples, lists and dicts a few levels down; the very same objects wherever
    ``fn`` changed nothing (``fn`` returns its argument itself when it keeps it)."""
    if isinstance(a, str):
        return fn(a)
    if isinstance(a, Path):
        text = str(a)
        new = fn(text)
        return a if new is text else Path(new)
    if depth >= 6:
        return a
    if is_dataclass(a) and not isinstance(a, type):
        changed = {}
        for f in fields(a):
            old = getattr(a, f.name)
            new = _rewrite_paths(old, fn, depth + 1)
            if new is not old:
                changed[f.name] = new
        return replace(a, **changed) if changed else a
    if isinstance(a, dict):
        new_items = {k: _rewrite_paths(v, fn, depth + 1) for k, v in a.items()}
        return a if all(new_items[k] is a[k] for k in a) else new_items
    if isinstance(a, tuple | list) and len(a) <= 1000:
        items = [_rewrite_paths(x, fn, depth + 1) for x in a]
        if all(x is y for x, y in zip(items, a, strict=True)):
            return a
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
    return a


def unship(a: Any) -> Any:
    if not isinstance(a, Shipped):
        return a
    if a.token not in _SHIPPED:
        if len(_SHIPPED) >= 16:  # inputs of an older sweep
            _SHIPPED.clear()
        _SHIPPED[a.token] = pickle.loads(a.blob)
    return _SHIPPED[a.token]


def shared_args(tasks: list[Task]) -> set[int]:
    """Ids of the argument objects that several tasks share (inputs to ship once)."""
    seen: dict[int, int] = {}
    for t in tasks:
        for a in t.args:
            if not isinstance(a, str | int | float | bool | type(None)):
                seen[id(a)] = seen.get(id(a), 0) + 1
    return {i for i, n in seen.items() if n > 1}
