"""One entry point for a study, whatever the executor: :func:`run_study` (the Python API of
``coschedlab study run``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import InputError
from .manager import Config, config_of
from .result import StudyResult
from .spec import StudySpec

__all__ = ["EXECUTORS", "check_executor", "run_study"]

EXECUTORS = ("simulated", "real")


def check_executor(spec: StudySpec, executor: str) -> str:
    """``executor`` normalised, once it is known and ``spec`` can run on it (a ``model`` to
    simulate, a ``command`` to run for real); an InputError otherwise."""
    executor = executor.strip().lower()
    if executor not in EXECUTORS:
        raise InputError(f"--executor must be simulated or real, got {executor!r}")
    if executor == "simulated" and spec.model is None:
        raise InputError("the spec has no 'model': run it with --executor real", spec.source)
    if executor == "real" and spec.command is None:
        raise InputError("the spec has no 'command' to run for real", spec.source)
    return executor


def run_study(
    spec: StudySpec,
    config: Config | str | None = None,
    executor: str = "simulated",
    workdir: str | Path | None = None,
    on_finish: Callable[[int, int], None] | None = None,
) -> StudyResult:
    """Run ``spec`` under ``config`` (default: the spec's) on the ``simulated`` executor
    (the work model, in simulated time) or the ``real`` one (the spec's command as process
    groups; ``workdir`` holds its store, checkpoints and logs, and a second call on the same
    ``workdir`` resumes the study). ``on_finish(done, issued)`` reports progress."""
    cfg = config_of(config) if isinstance(config, str) else (config or spec.config)
    executor = check_executor(spec, executor)
    if executor == "simulated":
        from .simulate import simulate_study

        result = simulate_study(spec.model, cfg, spec.processors, spec.per_run,
                                reuse=spec.reuse, checkpoint_every=spec.checkpoint_every,
                                restart=spec.restart, step=spec.step, alpha=spec.alpha,
                                on_finish=on_finish)  # fmt: skip
    elif executor == "real":
        from .real import run_real_study

        if workdir is None:
            raise InputError("a real study needs a working directory (--out)")
        result = run_real_study(spec.space, cfg, spec.processors, spec.per_run, spec.command,
                                workdir, reuse=spec.reuse,
                                checkpoint_every=spec.checkpoint_every, step=spec.step,
                                scaling=spec.scaling, on_finish=on_finish, alpha=spec.alpha,
                                objectives_count=len(spec.objectives))  # fmt: skip
    result.info.update({"study": spec.name, "executor": executor, "config": cfg.describe(),
                        "spec": str(spec.source), "per_run": spec.per_run,
                        "checkpoint_every": spec.checkpoint_every,
                        "design": dict(zip(spec.space.names, spec.space.values, strict=True)),
                        "objectives": list(spec.objectives)})  # fmt: skip
    return result
