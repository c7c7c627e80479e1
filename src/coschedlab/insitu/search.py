"""Plans of an ensemble file, and the search over every scenario x heuristic pair: each plan
simulated in SimGrid (a process each, on the project's one runner), ranked by simulated
makespan (``coschedlab insitu simulate --search``, the dashboard's in situ page)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError, check_counts

__all__ = ["plan_file", "search", "search_one"]


def plan_file(path: Path, *args: Any, **options: Any) -> Any:
    """:func:`.plan.make_plan` of the ensemble file ``path`` (``args``, ``options``: its
    other arguments, ``insitu plan``'s options); errors without a place name the file."""
    from .plan import make_plan
    from .spec import load_ensemble

    ens = load_ensemble(path)
    try:
        return make_plan(ens, *args, **options)
    except InputError as exc:
        if exc.where is None or not exc.where.startswith(str(path)):
            raise InputError(exc.what, f"{path}: {exc.where}" if exc.where else str(path)) from None
        raise


def search_one(
    path: Path, sc: str, n: str, c: str, planning: tuple[str, str, str], sim: tuple[str, str, str]
) -> dict[str, Any] | None:
    """One candidate of :func:`search`: the plan and its simulated summary (None: the plan is
    not feasible, e.g. no node left for a pool). Call in a fresh process."""
    from .simulate import _run

    try:
        p = plan_file(path, sc, n, c, *planning)
    except InputError:
        return None
    net, engine, io = sim
    out = p.to_dict()
    out.update(_run(p, net, engine, None, io=io).summary())
    return out


def search(
    path: Path,
    planning: tuple[str, str, str],
    sim: tuple[str, str, str],
    jobs: int = 1,
    on_done: Callable[[Any], None] | None = None,
) -> tuple[list[dict[str, Any]], Any]:
    """Every scenario x heuristic pair of the ensemble ``path`` simulated, best first (by
    simulated makespan), and the runner's summary (``planning``: bandwidth model, allocation
    bandwidth, rounding; ``sim``: network, engine, I/O model). :class:`InputError` when a
    simulation fails or no plan is feasible."""
    from ..sweeps.sweep import Sweep
    from ..sweeps.tasks import Task
    from .mapping import SCENARIOS
    from .reproduce import HEURISTIC_PAIRS
    from .simulate import check_size
    from .spec import load_ensemble

    check_counts(must="at least 1", jobs=jobs)
    ens = load_ensemble(path)
    check_size(ens.n_steps, len(ens.simulations) + len(ens.analyses), where=str(path))
    combos = [(sc, n, c) for sc in SCENARIOS for n, c in HEURISTIC_PAIRS]
    tasks = [Task(f"{sc}_{n}_{c}", search_one, (path, sc, n, c, planning, sim))
             for sc, n, c in combos]  # fmt: skip
    # in memory (out=None): the candidates are ranked, not stored
    sweep = Sweep("in situ search", search_one, fresh_process=True)
    summary, values = sweep.run(None, None, tasks=tasks, jobs=jobs, on_done=on_done)
    if summary.interrupted:
        raise KeyboardInterrupt
    if summary.failed:
        key, error = next(iter(summary.failed.items()))
        raise InputError(f"simulating {key} failed: {error}", where=str(path))
    rows = [v for v in values if v is not None]
    if not rows:
        raise InputError("no feasible plan to simulate", where=str(path))
    rows.sort(
        key=lambda r: (r["simulated_makespan"], r["scenario"], r["node_alloc"], r["core_alloc"])
    )
    return rows, summary
