"""The in situ reproduction (Do et al., "Co-scheduling ensembles of in situ workflows",
Section V) as a sweep on the one runner: every configuration is a task, stored as one JSON file
in ``OUT/runs``, each simulated in a SimGrid process of its own; interrupted sweeps resume."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError, check_seed
from ..sweeps.sweep import MAX_REPETITIONS, Sweep
from ..sweeps.tasks import Task
from .mapping import SCENARIOS
from .reproduce import HEURISTIC_PAIRS, SWEEPS, build_tasks, results_frame, write_outputs
from .runner import run_config
from .simulate import check_size

__all__ = ["SWEEP", "reproduce"]


def _checked(out: Path, spec: object) -> None:
    """The folder check of :data:`SWEEP`: :func:`check_arguments` made it, with the rest."""


#: the reproduction as a sweep of the one driver: a SimGrid process per run
SWEEP = Sweep("in situ reproduction", run_config, fresh_process=True, check=_checked)


def check_arguments(
    out: Path, trials: int, jobs: int, sweeps: tuple[str, ...], steps: int, seed: int
) -> None:
    from ..outputs import check_target, is_empty, mark

    if trials < 1:
        raise InputError(f"--trials must be >= 1, got {trials}")
    if jobs < 0:
        raise InputError(f"--jobs must be >= 0 (0: all CPUs), got {jobs}")
    if steps < 1:
        raise InputError(f"--steps must be >= 1, got {steps}")
    check_seed(seed)
    unknown = [s for s in sweeps if s not in SWEEPS]
    if unknown or not sweeps:
        what = f"unknown sweep {unknown[0]!r}" if unknown else "no sweep given"
        raise InputError(f"{what}; choose from {', '.join(SWEEPS)}", "--sweeps")
    if trials > MAX_REPETITIONS:
        raise InputError(f"--trials must be at most {MAX_REPETITIONS:,}, got {trials:,}")
    largest = max(
        {**fixed, var: v}["S"] * (1 + {**fixed, var: v}["A"])
        for var, values, fixed in (SWEEPS[s] for s in sweeps)
        for v in values
    )
    check_size(steps, largest, where="--steps")
    out = Path(out)
    if out.is_dir() and not is_empty(out) and not (out / "runs").is_dir():
        raise InputError(
            f"--out {out} is not a reproduction directory (no runs/ in it); choose another one"
        )
    check_target(out, force=True)  # not a file, parent writable (resuming is the point)
    mark(out)


def reproduce(
    out: Path,
    trials: int = 5,
    jobs: int = 1,
    sweeps: tuple[str, ...] = tuple(SWEEPS),
    steps: int = 100,
    network: str = "paper",
    engine: str = "activities",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    scenarios: tuple[str, ...] = SCENARIOS,
    pairs: tuple[tuple[str, str], ...] = HEURISTIC_PAIRS,
    alloc_bandwidth: str = "B3",
    executor: Any = None,
    on_info: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run (or resume) the sweeps into ``out/runs`` and write CSVs and figures into ``out``.
    Every argument is checked before the first run (a bad one is an InputError naming it)."""
    check_arguments(out, trials, jobs, sweeps, steps, seed)
    from .model import bandwidth_key

    alloc_bandwidth = bandwidth_key(alloc_bandwidth, "--alloc-bandwidth")
    configs, member = build_tasks(
        trials, sweeps, steps, network, engine, seed, scenarios, pairs, alloc_bandwidth
    )
    # large runs first: the pool stays busy to the end
    order = sorted(configs, key=lambda k: -(configs[k]["S"] * (1 + configs[k]["A"])))
    tasks = [Task(k, run_config, (configs[k],)) for k in order]
    state = {"done": 0, "total": len(tasks)}

    def started(todo: int, total: int) -> None:
        state["done"] = total - todo
        if progress is not None:
            progress(state["done"], total)

    def finished(_outcome: Any) -> None:
        state["done"] += 1
        if progress is not None:
            progress(state["done"], state["total"])

    summary, _ = SWEEP.run(None, Path(out), tasks=tasks, jobs=jobs or None, on_start=started,
                           on_done=finished, executor=executor, on_info=on_info)  # fmt: skip
    if summary.interrupted:
        raise KeyboardInterrupt
    rows = SWEEP.store(Path(out)).load(configs)  # in the order of the configurations
    if not rows:
        raise InputError("no run finished", where=str(out))
    df = results_frame(rows, member)
    written = write_outputs(df, Path(out))
    return {
        "runs": len(tasks),
        "finished": len(rows),
        "errors": dict(summary.failed),
        "files": written,
        "total_sim_wall": float(df.drop_duplicates("key")["wall_time"].sum()),
    }
