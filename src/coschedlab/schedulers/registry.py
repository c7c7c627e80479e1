"""Schedulers by name: built-ins, entry points, or a Python file of the user's.

A spec is ``NAME[:key=value,...]``, for example ``easy``, ``easy:extra=false,depth=50`` or
``conservative:order=sjf``. ``NAME`` may also be a path to a ``.py`` file defining one
:class:`~coschedlab.schedulers.base.Scheduler` subclass (``file.py:ClassName`` picks one of
several), or a name registered by an installed package under the entry-point group
``coschedlab.schedulers``.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import math
import sys
from pathlib import Path
from typing import Any

from ..bundled import PREFIX
from ..errors import InputError, failure_where
from .base import Scheduler

_REGISTRY: dict[str, type[Scheduler]] = {}

# The built-ins by name, in the order :func:`available` lists them: the module of this package
# that registers each, imported when the name is first looked up (a run of ``easy`` does not
# import Slurm's configuration parser and priority factors).
BUILTINS: dict[str, str] = {
    "backfill": "backfill",
    "easy": "backfill",
    "conservative": "backfill",
    "slurm": "slurm",
    "fcfs": "strict",
    "sjf": "strict",
    "firstfit": "strict",
}


def _builtin(name: str) -> type[Scheduler]:
    """The built-in ``name``, its module imported (and so registered) on first use."""
    if name not in _REGISTRY:
        importlib.import_module(f"{__package__}.{BUILTINS[name]}")
    return _REGISTRY[name]


def entry_points(**select: str) -> Any:
    """The installed plug-ins' entry points (``importlib.metadata``, imported when a name is
    not a built-in's: a run of a built-in scheduler does not pay for it)."""
    from importlib.metadata import entry_points as installed

    return installed(**select)


def register(name: str):
    """Class decorator: make a scheduler available as ``name``."""

    def deco(cls: type[Scheduler]) -> type[Scheduler]:
        home = BUILTINS.get(name)
        if home is not None and cls.__module__ != f"{__package__}.{home}":
            _builtin(name)  # the built-in first, so that its later import cannot undo this
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def available() -> dict[str, type[Scheduler]]:
    """Every scheduler name known: built-ins first, then entry points (each loaded)."""
    names = {name: _builtin(name) for name in BUILTINS}
    names.update(_REGISTRY)
    for ep in entry_points(group="coschedlab.schedulers"):
        if ep.name not in names:
            names[ep.name] = _load(ep)
    return names


def known_names() -> list[str]:
    """Every scheduler name known, sorted, without loading any plug-in."""
    plugins = (ep.name for ep in entry_points(group="coschedlab.schedulers"))
    return sorted({*BUILTINS, *_REGISTRY, *plugins})


def lookup(name: str) -> type[Scheduler] | None:
    """The scheduler class registered as ``name``: a built-in, else the one entry point of
    that name (only that plug-in is imported); None when no such name is known."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in BUILTINS:
        return _builtin(name)
    for ep in entry_points(group="coschedlab.schedulers", name=name):
        return _load(ep)
    return None


def _load(ep: Any) -> type[Scheduler]:
    try:
        return ep.load()
    except Exception as exc:  # a broken plug-in must not break the others
        raise InputError(f"scheduler entry point {ep.name!r} fails to load: {exc}") from exc


def _parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null", "all"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, Any]]:
    """Split ``NAME[:Class][:k=v,...]`` into (name, class name, options)."""
    parts: list[str] = []
    for part in spec.split(":"):  # a value naming a bundled file keeps its colon
        if parts and parts[-1].endswith("=" + PREFIX[:-1]):
            parts[-1] += ":" + part
        else:
            parts.append(part)
    name, cls_name, options = parts[0], None, {}
    for part in parts[1:]:
        if "=" in part:
            for item in part.split(","):
                if not item.strip():
                    continue
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise InputError(f"scheduler option {item!r} in {spec!r} is not key=value")
                key = key.strip().replace("-", "_")
                if key in options:
                    raise InputError(f"scheduler option {key!r} is given twice in {spec!r}")
                options[key] = _parse_value(value)
                if isinstance(options[key], float) and not math.isfinite(options[key]):
                    raise InputError(
                        f"scheduler option {key!r} in {spec!r} is {value.strip()!r}, not a "
                        "finite number (no limit is written 'all' where an option allows it)"
                    )
        elif part:
            cls_name = part
    return name, cls_name, options


def load_file(path: Path, cls_name: str | None = None) -> type[Scheduler]:
    """The Scheduler subclass defined in a Python file."""
    if not path.is_file():
        why = "is not a Python file" if path.exists() else "does not exist"
        raise InputError(f"scheduler file {path} {why}")
    mod_name = f"coschedlab_user_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # exit() at import is a failure too
        raise _user_failure(path, "fails to import", exc) from exc
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Scheduler)
        and obj.__module__ == mod_name
        and obj is not Scheduler
    ]
    if cls_name is not None:
        found = [c for c in found if c.__name__ == cls_name]
        if not found:
            raise InputError(f"{path}: defines no Scheduler subclass named {cls_name}")
    if not found:
        raise InputError(f"{path}: defines no subclass of coschedlab.schedulers.Scheduler")
    if len(found) > 1:
        names = ", ".join(c.__name__ for c in found)
        raise InputError(f"{path}: defines several schedulers ({names}); add :ClassName")
    cls = found[0]
    if not cls.name:
        cls.name = path.stem
    return cls


def _user_failure(path: Path | None, what: str, exc: BaseException) -> InputError:
    """A user's policy code raised (or called ``exit``): one line saying what and where (the
    deepest frame outside coschedlab, the user's file and line)."""
    if isinstance(exc, SystemExit):
        text = f"exit({exc.code!r}) called"
    else:
        text = f"{type(exc).__name__}: {exc}"
    where = failure_where(exc) or (str(path) if path is not None else None)
    return InputError(f"{what}: {text}", where=where)


def get_scheduler(spec: str | Scheduler | type[Scheduler], **options: Any) -> Scheduler:
    """A scheduler instance from a spec string, a class or an instance."""
    if isinstance(spec, Scheduler):
        if options:
            raise InputError("options cannot be given with a scheduler instance")
        return spec
    if inspect.isclass(spec) and issubclass(spec, Scheduler):
        cls = spec
    else:
        name, cls_name, parsed = parse_spec(str(spec))
        options = {**parsed, **options}
        if name.endswith(".py") or "/" in name or "\\" in name:
            cls = load_file(Path(name), cls_name)
        else:
            if cls_name is not None:
                raise InputError(
                    f"scheduler option {cls_name!r} in {str(spec)!r} has no value; write "
                    f"{name}:{cls_name}=VALUE"
                )
            found = lookup(name)
            if found is None and Path(name).exists():  # (a trace or a folder, say)
                raise InputError(
                    f"scheduler {name!r} is not a scheduler's name, and a file given as a "
                    "scheduler must be a policy written in Python (.py); `coschedlab "
                    "schedulers` lists the names"
                )
            if found is None:
                names = known_names()
                raise InputError(
                    f"unknown scheduler {name!r}; choose one of {', '.join(names)} "
                    f"or give a path to a .py file{_did_you_mean(name, names)}"
                )
            cls = found
    sig = inspect.signature(cls.__init__)
    hidden = set(getattr(cls, "api_only", ()))  # Python-level arguments, not spec options
    accepts = [p for p in sig.parameters if p != "self" and p not in hidden]
    has_kwargs = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    for key in options:
        if key not in accepts and not has_kwargs:
            raise InputError(
                f"scheduler {cls.name or cls.__name__!r} has no option {key!r}"
                + (f" (options: {', '.join(accepts)})" if accepts else " (it takes none)")
                + _did_you_mean(key, accepts)
            )
    try:
        return cls(**options)
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputError(f"scheduler {cls.name or cls.__name__!r}: {exc}") from exc
    except (Exception, SystemExit) as exc:  # a user's constructor failed: say where
        what = f"scheduler {cls.name or cls.__name__!r} fails to start"
        raise _user_failure(None, what, exc) from exc


def _did_you_mean(word: str, known: list[str]) -> str:
    """``"; did you mean 'X'?"`` for the known name closest to a mistyped ``word`` (its case
    ignored: ``EASY`` is ``easy``), or ``""`` when none is close."""
    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(word.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[close[0]]!r}?" if close else ""
