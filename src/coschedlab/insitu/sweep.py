"""The in situ reproduction (Do et al., "Co-scheduling ensembles of in situ workflows",
Section V) as a sweep on the one runner: every configuration is a task, stored as one JSON file
in ``OUT/runs``, each simulated in a SimGrid process of its own; interrupted sweeps resume.
Its command (``coschedlab insitu reproduce``) is generated from its capability: its spec is
made of the command's options (:func:`load_spec`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError, check_seed
from ..sweeps.sweep import MAX_REPETITIONS, Sweep, check_kind
from ..sweeps.tasks import Task
from .reproduce import SWEEPS, Reproduction, results_frame, write_outputs
from .runner import run_config
from .simulate import check_size

__all__ = ["SWEEP", "Reproduction", "load_spec", "report"]


def load_spec(path: Path | None = None, *, trials: int = 5,
              sweeps: str = ",".join(SWEEPS), steps: int = 100, network: str = "paper",
              engine: str = "activities", seed: int = 0, alloc_bandwidth: str = "B3",
              **more: Any) -> Reproduction:  # fmt: skip
    """The reproduction the command's options describe (``sweeps``: a comma list; ``more``:
    :class:`Reproduction`'s scenarios and pairs), every option checked before the first
    run (a bad one is an InputError naming it)."""
    from .model import bandwidth_key
    from .simulate import check_options

    check_options(network, engine)
    chosen = tuple(s.strip() for s in sweeps.split(",") if s.strip())
    if trials < 1:
        raise InputError(f"--trials must be >= 1, got {trials}")
    if steps < 1:
        raise InputError(f"--steps must be >= 1, got {steps}")
    check_seed(seed)
    unknown = [s for s in chosen if s not in SWEEPS]
    if unknown or not chosen:
        what = f"unknown sweep {unknown[0]!r}" if unknown else "no sweep given"
        raise InputError(f"{what}; choose from {', '.join(SWEEPS)}", "--sweeps")
    if trials > MAX_REPETITIONS:
        raise InputError(f"--trials must be at most {MAX_REPETITIONS:,}, got {trials:,}")
    largest = max(
        {**fixed, var: v}["S"] * (1 + {**fixed, var: v}["A"])
        for var, values, fixed in (SWEEPS[s] for s in chosen)
        for v in values
    )
    check_size(steps, largest, where="--steps")
    return Reproduction(trials, chosen, steps, network, engine, seed,
                        bandwidth_key(alloc_bandwidth, "--alloc-bandwidth"), **more)  # fmt: skip


def _plan(spec: Reproduction) -> list[Task]:
    """Its runs, the large ones first: the pool stays busy to the end."""
    configs = spec.configs()
    order = sorted(configs, key=lambda k: -(configs[k]["S"] * (1 + configs[k]["A"])))
    return [Task(k, run_config, (configs[k],)) for k in order]


def _check_folder(out: Path, spec: object) -> None:
    """``out`` is new, empty or a reproduction's (resuming is the point)."""
    from ..outputs import check_target, is_empty

    check_kind(out, SWEEP.what)
    if out.is_dir() and not is_empty(out) and not (out / "runs").is_dir():
        raise InputError(
            f"--out {out} is not a reproduction directory (no runs/ in it); choose another one"
        )
    check_target(out, force=True)  # not a file, parent writable


#: the reproduction as a sweep of the one driver: a SimGrid process per run
SWEEP = Sweep("in situ reproduction", run_config, fresh_process=True, check=_check_folder,
              plan=_plan)  # fmt: skip


def report(spec: Reproduction, out: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """The CSV tables and figures of the finished runs ``rows`` (:func:`~.reproduce.
    write_outputs`), written into ``out``: the files."""
    return [out / f for f in write_outputs(results_frame(rows, spec.build()[1]), Path(out))]
