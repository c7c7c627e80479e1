"""The helium work model against the paper's Table 5 (golden: ``PAPER_TABLE5``, the paper's
own figures): every cell within the issue's tolerance (total time 10%, mean run length 15%,
utilization 5 points) at 32 and 64 workers, except the cells docs/studies.md shows the paper
contradicts (``CONTRADICTED``), whose contradiction is checked from the paper's numbers.

The model is the bundled spec's, unfitted per row (docs/studies.md, "The helium work model").
The calibrated gamma model this replaced (time_scale 1.183, restart 60 s, no overhead, no
64-worker slowdown) fails them in 5 rows (C, D on 32; B, C, D on 64)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from scipy.optimize import linprog

from coschedlab.studies import load_spec
from coschedlab.studies.reproduce import PAPER_TABLE5, table5

SEEDS = list(range(20))  # the docs' 20 seeds: about 5 s
TOTAL, MEAN, UTIL = 0.10, 0.15, 0.05
#: cells outside the tolerance because the paper's own figures contradict each other
#: (docs/studies.md, "Where the paper contradicts itself")
CONTRADICTED = {(32, "E", "total"), (32, "E", "mean"), (64, "C", "mean"), (64, "D", "mean"),
                (64, "E", "mean")}  # fmt: skip


@pytest.fixture(scope="module")
def spec():
    return load_spec("coschedlab:helium_study.yaml")


@pytest.fixture(scope="module")
def ours(spec):
    return table5(spec, seeds=SEEDS).set_index(["workers", "config"])


def _cells(ours):
    for (p, c), (total, util, mean, _) in PAPER_TABLE5.items():
        row = ours.loc[(p, c)]
        yield p, c, "total", row.total_min / total - 1, TOTAL
        yield p, c, "mean", row.mean_run_min / mean - 1, MEAN
        yield p, c, "util", row.utilization - util, UTIL


def test_every_cell_within_tolerance_but_the_contradicted(ours):
    off = [(p, c, k, round(d, 3)) for p, c, k, d, tol in _cells(ours)
           if abs(d) > tol and (p, c, k) not in CONTRADICTED]  # fmt: skip
    assert not off, off


def test_the_contradicted_cells_are_still_outside(ours):
    """If one comes within tolerance, the docs' explanation is stale: move it back."""
    inside = [(p, c, k) for p, c, k, d, tol in _cells(ours)
              if (p, c, k) in CONTRADICTED and abs(d) <= tol]  # fmt: skip
    assert not inside, inside


def _least_busy(spec, procs: int, mean_min: float) -> float | None:
    """The fewest worker-minutes 24 runs (6 from scratch, one per reuse class, 18 reused:
    the most reuse any configuration gets) can take on Table 4's group sizes with a mean run
    length of at most ``mean_min``, under the spec's work model (None: no such schedule)."""
    m = spec.model
    f = m.machine_factor(procs)
    groups = [p for p, _ in spec.scaling.seconds if p <= min(procs, 32)]
    kinds = ((m.scratch, 6), (m.reuse, 18))
    t = [f * (m.start_time(g) + s * m.step_time(g)) / 60 for s, _ in kinds for g in groups]
    w = [g * ti for g, ti in zip(groups * 2, t, strict=True)]
    eq = [[1.0 if i // len(groups) == k else 0.0 for i in range(len(t))] for k in range(2)]
    res = linprog(w, A_ub=[t], b_ub=[24 * mean_min], A_eq=eq, b_eq=[n for _, n in kinds])
    return res.fun if res.success else None


@pytest.mark.parametrize(("procs", "config"), [(32, "E"), (64, "D"), (64, "E")])
def test_the_papers_mean_run_and_busy_time_cannot_both_hold(spec, procs, config):
    """The paper's busy worker-minutes (utilization x workers x total) are fewer than any
    schedule of the runs with its mean run length takes, under the model its O, A and B rows
    give: those rows' mean run lengths contradict their own totals and utilizations."""
    total, util, mean, _ = PAPER_TABLE5[(procs, config)]
    least = _least_busy(spec, procs, mean)
    assert least is None or least > 1.1 * util * procs * total


def test_the_bound_admits_the_rows_that_agree(spec):
    """The bound is not vacuous: B's figures, on both machines, admit a schedule."""
    for procs in (32, 64):
        total, util, mean, _ = PAPER_TABLE5[(procs, "B")]
        least = _least_busy(spec, procs, mean * 1.01)
        assert least is not None and least <= util * procs * total * 1.01


def test_the_64_worker_slowdown_is_an_explicit_option(spec):
    """Without the spec's slowdown the 64-worker O run is the 32-worker one (34.3 min), the
    paper's 36.3 min out of reach; with it, the paper's."""
    plain = replace(spec, model=replace(spec.model, slowdown=()))
    rows = table5(plain, configs="O", seeds=[0]).set_index("workers")
    assert rows.loc[64, "mean_run_min"] == pytest.approx(34.3, rel=1e-3)
    rows = table5(spec, configs="O", seeds=[0]).set_index("workers")
    assert rows.loc[64, "mean_run_min"] == pytest.approx(36.3, rel=1e-3)
    assert rows.loc[32, "mean_run_min"] == pytest.approx(34.3, rel=1e-3)


def test_start_time_in_proportion_to_processors(spec):
    m = spec.model
    assert m.start_time(32) == pytest.approx(318.0)
    assert m.start_time(4) == pytest.approx(318.0 / 8)
    assert replace(m, overhead_procs=0).start_time(4) == pytest.approx(318.0)
