"""The one checker of YAML specs: every spec file of every capability goes through it.

:func:`load_yaml` reads a file with a safe loader that refuses a key given twice and remembers
the line of every key and list item; a non-UTF-8 file, invalid YAML or a missing file is an
:class:`~coschedlab.errors.InputError` naming the file (and line). :class:`Checker` holds the
type checks a spec module composes: unknown keys at any depth (with the closest known key),
mappings, lists, integers, numbers, booleans, names. Every error is ONE line,
``FILE:LINE: what``, naming the full key path (``platform.core_sped``).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .bundled import local_path
from .errors import InputError

__all__ = ["Checker", "load_yaml", "show"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+=,-]*$")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class _LineDict(dict):
    """A mapping read from YAML, with the line of each key (``lines``) and its own (``line``)."""

    __slots__ = ("lines", "line")


class _LineList(list):
    """A list read from YAML, with the line of each item."""

    __slots__ = ("lines", "line")


class _Loader(yaml.SafeLoader):
    """A safe YAML loader that refuses duplicate keys and keeps line numbers."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> _LineDict:
    out = _LineDict()
    out.lines, out.line = {}, node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, list | dict):  # ``? [a, b]``: a key YAML allows, no spec has
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"a key must be a name, not {show(key)}", mark
            )
        if key in out:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} appears twice (line {mark.line + 1})", mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> _LineList:
    out = _LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.lines = [child.start_mark.line + 1 for child in node.value]
    out.line = node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load_yaml(path: str | Path, what: str = "a YAML file") -> Any:
    """Parse a YAML file (safe loader, no duplicate keys, lines remembered for messages);
    ``coschedlab:NAME`` reads a bundled file."""
    path = local_path(path)
    try:
        with path.open("rb") as f:  # (a FIFO too: <(...); an endless device, a huge file: cut)
            raw = f.read(MOST_BYTES + 1)
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, expected {what}", where=str(path)) from None
    except PermissionError:
        raise InputError("cannot be read (permission denied)", where=str(path)) from None
    if len(raw) > MOST_BYTES:
        raise InputError(f"more than {MOST_BYTES >> 20} MiB, too large for {what}", where=str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8",
            where=f"{path}:{line}",
        ) from None
    loader = None
    try:
        loader = _Loader(text)  # its reader refuses a NUL or other special character
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, path, what)
        return loader.construct_document(node)
    except yaml.reader.ReaderError as exc:  # a NUL or other control character
        line = text[: exc.position].count("\n") + 1
        char = f"character #x{exc.character:04x}" if isinstance(exc.character, int) else "a byte"
        where = f"{path}:{line}"
        raise InputError(f"not valid YAML ({char} is not allowed)", where=where) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise InputError(f"not valid YAML ({problem})", where=where) from None
    except RecursionError:
        raise InputError("not valid YAML (nested too deeply)", where=str(path)) from None
    finally:
        if loader is not None:
            loader.dispose()


#: the most values a YAML document may hold once its aliases (``*name``) are expanded: far
#: beyond any spec, far below an alias bomb's billions (nine levels of nine aliases)
MOST_VALUES = 1_000_000
#: the largest YAML file read: far beyond any spec (the largest bundled one: 2 kB), parsed in
#: seconds (only its aliases can then hold a million values); more (/dev/zero, a log given by
#: mistake) is refused before it fills the memory (/dev/zero as a spec took 23 GB) or takes
#: a minute to parse (2 MB of values: 48 s)
MOST_BYTES = 1 << 20


def _check_expansion(root: yaml.Node, path: Path, what: str) -> None:
    """Refuse a document whose aliases expand to more than :data:`MOST_VALUES` values (every
    reader of the document, and the quoting of a bad value in a message, would expand them)."""
    size: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in size:
            continue
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            size[id(node)] = 1
            continue
        if children_done:
            total = 1 + sum(size.get(id(c), 0) for c in children)
            if total > MOST_VALUES:
                raise InputError(
                    f"aliases (*name) expand to more than {MOST_VALUES:,} values, too many "
                    f"for {what}",
                    where=f"{path}:{node.start_mark.line + 1}",
                )
            size[id(node)] = total
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in size)


def show(v: Any) -> str:
    """How a bad value is quoted in a message."""
    if isinstance(v, Mapping):
        return "a mapping" if v else "an empty mapping"
    if isinstance(v, list):
        return "a list" if v else "an empty list"
    if v is None:
        return "nothing"
    text = repr(v)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text):,} characters)"


#: the longest string a spec may give (a path, a command), and the longest name or title: a
#: name becomes a directory (the file system's limit is 255 bytes) and titles are drawn (a
#: title of 100,000 characters took minutes to lay out)
MOST_CHARACTERS = 4096
MOST_NAME = 100


class Checker:
    """Type checks that raise one-line InputErrors naming the file, the line and the key path.

    ``root`` is the document :func:`load_yaml` returned (plain dicts work too, without lines);
    paths are written ``a.b[2].c``.
    """

    def __init__(self, where: str, root: Any = None) -> None:
        self.where = where
        self.root = root

    def line_of(self, path: str) -> int | None:
        """The line of the key or item ``path`` (or of its closest known parent)."""
        node, line = self.root, getattr(self.root, "line", None)
        for name, index in _PATH_PART.findall(path or ""):
            key: Any = int(index) if index else name
            lines = getattr(node, "lines", None)
            try:
                found = lines[key] if lines is not None else None
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
            line = found or line
        return line

    def fail(self, message: str, path: str | None = None) -> InputError:
        """The error to raise: ``FILE:LINE: message`` (the line of ``path`` when known)."""
        line = self.line_of(path) if path is not None else None
        return InputError(message, where=f"{self.where}:{line}" if line else self.where)

    def keys(self, d: Mapping, allowed: tuple[str, ...], path: str) -> None:
        """Every key of ``d`` is one of ``allowed`` (else: the closest known key)."""
        for key in d:
            full = f"{path}.{key}" if path else str(key)
            if not isinstance(key, str):
                raise self.fail(f"key {key!r} in '{path or 'the spec'}' must be a string", full)
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(allowed)}"
                raise self.fail(f"unknown key '{full}' ({hint})", full)

    def require(self, d: Mapping, key: str, path: str) -> Any:
        """``d[key]``, or an error naming the missing key."""
        if key not in d:
            raise self.fail(f"missing key '{path}.{key}'" if path else f"missing key '{key}'", path)
        return d[key]

    def mapping(self, v: Any, path: str) -> Mapping:
        if not isinstance(v, Mapping):
            raise self.fail(f"'{path}' must be a mapping (key: value), got {show(v)}", path)
        return v

    def integer(
        self, v: Any, path: str, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        if isinstance(v, float) and v.is_integer() and math.isfinite(v):
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"'{path}' must be an integer, got {show(v)}", path)
        if minimum is not None and v < minimum:
            raise self.fail(f"'{path}' must be >= {minimum}, got {v}", path)
        if maximum is not None and v > maximum:
            raise self.fail(f"'{path}' must be <= {maximum:,}, got {v:,}", path)
        return v

    def number(self, v: Any, path: str, positive: bool = False) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            hint = ""
            if isinstance(v, str):
                try:
                    float(v)
                    hint = " (YAML reads 1e12 as text: write 1.0e+12)"
                except ValueError:
                    pass
            raise self.fail(f"'{path}' must be a finite number, got {show(v)}{hint}", path)
        if positive and v <= 0:
            raise self.fail(f"'{path}' must be > 0, got {v}", path)
        if not positive and v < 0:
            raise self.fail(f"'{path}' must be >= 0, got {v}", path)
        return float(v)

    def boolean(self, v: Any, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(f"'{path}' must be true or false, got {show(v)}", path)
        return v

    def string(self, v: Any, path: str, most: int = MOST_CHARACTERS) -> str:
        if not isinstance(v, str) or not v.strip():
            raise self.fail(f"'{path}' must be a non-empty string, got {show(v)}", path)
        if len(v.strip()) > most:
            raise self.fail(
                f"'{path}' must be at most {most:,} characters, got {len(v.strip()):,}", path
            )
        return v.strip()

    def choice(self, v: Any, path: str, choices: tuple[str, ...]) -> str:
        if v not in choices:
            raise self.fail(f"'{path}' must be one of {', '.join(choices)}, got {show(v)}", path)
        return v

    def name(self, v: Any, path: str) -> str:
        text = self.string(v, path, MOST_NAME)
        if not _NAME_RE.match(text):
            raise self.fail(
                f"'{path}' must use letters, digits and _ . + = , - only "
                f"(it names a directory), got {text!r}",
                path,
            )
        return text

    def seeds(self, v: Any, path: str, most: int) -> tuple[int, ...]:
        """Seeds: a count ``N`` (seeds 0..N-1, at most ``most``) or a list of distinct
        integers in [0, 2**63)."""
        if isinstance(v, list):
            seeds = tuple(
                self.integer(s, f"{path}[{i}]", minimum=0)
                for i, s in enumerate(self.items(v, path))
            )
            for i, s in enumerate(seeds):
                if s >= 2**63:
                    raise self.fail(f"'{path}[{i}]' must be below 2**63, got {s}", f"{path}[{i}]")
            if len(set(seeds)) != len(seeds):
                raise self.fail(f"'{path}' names a seed twice", path)
            return seeds
        count = self.integer(v, path, minimum=1)
        if count > most:
            raise self.fail(f"'{path}' asks for {count} seeds; at most {most}", path)
        return tuple(range(count))

    def items(self, v: Any, path: str) -> list:
        if not isinstance(v, list) or not v:
            raise self.fail(f"'{path}' must be a non-empty list, got {show(v)}", path)
        return v


def open_spec(path: str | Path, keys: tuple[str, ...], doc: str) -> tuple[Checker, Mapping]:
    """A YAML spec file read and checked to be a mapping of only ``keys`` (``doc``: where an
    example is, for an empty file)."""
    raw = load_yaml(path, "a YAML spec file")
    ck = Checker(str(path), raw)
    if raw is None:
        raise ck.fail(f"the spec is empty; see {doc} for an example")
    raw = ck.mapping(raw, "the spec")
    ck.keys(raw, keys, "")
    return ck, raw
