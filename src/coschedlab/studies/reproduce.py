"""The seed's Table 5 on the simulated executor: configurations O, A-E of the helium study on
32 and 64 workers, beside the published figures (SimX, Section 5)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from .manager import CONFIGS
from .result import StudyResult
from .simulate import simulate_study
from .spec import StudySpec

__all__ = ["PAPER_COLUMNS", "PAPER_TABLE5", "simulate_one", "table5", "table5_rows"]

#: Table 5 of the seed: (workers, configuration) -> its columns in :data:`PAPER_COLUMNS`
#: (total minutes, utilization, mean run minutes, incremental improvement).
PAPER_TABLE5: dict[tuple[int, str], tuple[float, float, float, float | None]] = {
    (32, "O"): (20 * 60 + 35, 1.00, 34.3, None),
    (32, "A"): (13 * 60 + 44, 1.00, 34.3, 0.33),
    (32, "B"): (9 * 60 + 52, 1.00, 24.7, 0.28),
    (32, "C"): (6 * 60 + 10, 0.7108, 63.4, 0.38),
    (32, "D"): (5 * 60 + 10, 0.7129, 39.7, 0.16),
    (32, "E"): (4 * 60 + 27, 0.9181, 33.5, 0.14),
    (64, "O"): (10 * 60 + 53, 1.00, 36.3, None),
    (64, "A"): (7 * 60 + 55, 0.9274, 36.3, 0.27),
    (64, "B"): (6 * 60 + 0, 0.9333, 26.8, 0.26),
    (64, "C"): (4 * 60 + 3, 0.6060, 36.1, 0.33),
    (64, "D"): (3 * 60 + 37, 0.70, 27.0, 0.10),
    (64, "E"): (3 * 60 + 41, 0.9367, 25.8, 0.0),
}
PAPER_COLUMNS = ("paper_total_min", "paper_utilization", "paper_mean_run_min", "paper_improvement")


def simulate_one(
    spec: StudySpec, workers: int, config: str, seed: int | None = None
) -> StudyResult:
    """One run of the Table 5 sweep: ``spec`` simulated on ``workers`` processors under
    configuration ``config`` (O, A-E), its work model drawn with ``seed`` (default: the
    spec's own)."""
    if spec.model is None:
        from ..errors import InputError

        raise InputError("the spec has no 'model' to simulate", spec.source)
    model = spec.model if seed is None else replace(spec.model, seed=seed)
    s = spec.with_procs(workers)
    return simulate_study(model, CONFIGS[config], workers, s.per_run, reuse=s.reuse,
                          checkpoint_every=s.checkpoint_every, restart=s.restart,
                          step=s.step, alpha=s.alpha)  # fmt: skip


def table5(
    spec: StudySpec,
    workers: Iterable[int] = (32, 64),
    configs: str = "OABCDE",
    keep: Callable[[int, str, StudyResult], None] | None = None,
    seeds: Sequence[int] | None = None,
) -> pd.DataFrame:
    """One row per (workers, configuration): ours and the paper's total time (minutes),
    utilization, mean run time (minutes) and improvement over the previous configuration.
    With ``seeds``, every figure is the mean over the work model drawn with each seed
    (``total_min_lo``/``_hi``: the smallest and largest totals); otherwise the spec's seed.
    ``keep(workers, config, result)`` receives every result of the spec's own seed. Runs
    here, one after the other (``coschedlab study reproduce`` runs them as a sweep)."""
    drawn: list[int | None] = [None] if not seeds else list(seeds)

    def metrics(p: int, c: str) -> list[dict[str, Any]]:
        out = []
        for seed in drawn:
            r = simulate_one(spec, p, c, seed)
            if keep is not None and seed is None:
                keep(p, c, r)
            out.append(r.metrics)
        return out

    return table5_rows(metrics, workers, configs)


def table5_rows(
    metrics: Callable[[int, str], Sequence[dict[str, Any]]],
    workers: Iterable[int] = (32, 64),
    configs: str = "OABCDE",
) -> pd.DataFrame:
    """:func:`table5`'s rows from ``metrics(workers, config)``: the metrics of that cell's
    runs (one per seed)."""
    rows = []
    for p in workers:
        prev = None
        for c in configs:
            ms = metrics(p, c)
            totals = [m["total_time"] / 60 for m in ms]
            total = sum(totals) / len(totals)
            paper = PAPER_TABLE5.get((p, c), (None,) * len(PAPER_COLUMNS))
            rows.append({
                "workers": p, "config": c, "runs": ms[0]["runs"],
                "total_min": total, "total_min_lo": min(totals), "total_min_hi": max(totals),
                "utilization": sum(m["utilization"] for m in ms) / len(ms),
                "mean_run_min": sum(m["mean_run_time"] for m in ms) / len(ms) / 60,
                "improvement": None if prev is None else 1 - total / prev,
                "reused": sum(m["reused"] for m in ms) / len(ms),
                "preemptions": sum(m["preemptions"] for m in ms) / len(ms),
                **dict(zip(PAPER_COLUMNS, paper, strict=True)),
            })  # fmt: skip
            prev = total
    return pd.DataFrame(rows)
