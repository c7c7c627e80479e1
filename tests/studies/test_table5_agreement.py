"""The helium work model against the paper's Table 5 (golden: ``PAPER_TABLE5``, the paper's
own figures): every cell within the issue's tolerance (total time 10%, mean run length 15%,
utilization 5 points) at 32 and 64 workers, except the cells docs/studies.md shows the paper
contradicts (``CONTRADICTED``), whose contradiction is checked from the paper's numbers.
E's totals need preemption as the paper's Section 4.4 states it (``alpha: perfect-scaling``,
``preemption_cost: redo``, the bundled spec's); the code's defaults miss one of them or both.

The model is the bundled spec's, unfitted per row (docs/studies.md, "The helium work model").
The calibrated gamma model this replaced (time_scale 1.183, restart 60 s, no overhead, no
64-worker slowdown) fails them in 5 rows (C, D on 32; B, C, D on 64)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from scipy.optimize import linprog

from coschedlab.studies import load_spec
from coschedlab.studies.manager import ALPHAS
from coschedlab.studies.model import PREEMPTION_COSTS
from coschedlab.studies.reproduce import PAPER_TABLE5, table5

SEEDS = list(range(20))  # the docs' 20 seeds: about 5 s
TOTAL, MEAN, UTIL = 0.10, 0.15, 0.05
#: cells outside the tolerance because the paper's own figures contradict each other
#: (docs/studies.md, "Where the paper contradicts itself")
CONTRADICTED = {(32, "E", "mean"), (64, "C", "mean"), (64, "D", "mean"), (64, "E", "mean")}


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


def _least_total(spec, procs: int) -> float:
    """The least total time (minutes) any schedule of the active sampler's 24 runs can take on
    ``procs`` workers, from the paper's facts alone: 9 coarse runs (3 reuse classes, each a
    run from scratch then 2 reused ones: a reused run starts when a run of its class has
    finished), then, once every coarse run has finished, 15 fine ones (3 from scratch and 12
    reused, each free to start at once: the weakest case, whatever the front); 2900 / 1641
    timesteps, Table 4's seconds per timestep on its group sizes, every run at least the
    start-up of the smallest group. A run may change group at any time at no cost, and the
    workers are shared out as finely as wished (a linear programme per phase, over the
    intervals between the completions of the runs from scratch)."""
    m = spec.model
    f = m.machine_factor(procs)
    groups = [p for p, _ in spec.scaling.seconds if p <= procs]
    t = {g: f * m.step_time(g) for g in groups}
    s0 = m.start_time(groups[0]) / m.step_time(groups[0])  # a start-up, as timesteps
    total = 0.0
    for classes, per_class, free in ((3, 2, 0), (3, 0, 12)):
        runs = []  # (timesteps, first interval, last interval); interval c ends when the
        for c in range(classes):  # c-th run from scratch ends (by symmetry, in this order)
            runs += [(m.scratch + s0, 0, c)] + [(m.reuse + s0, c + 1, classes)] * per_class
        runs += [(m.reuse + s0, 0, classes)] * free
        k_n = classes + 1
        xs = [(j, g, k) for j, (_, a, b) in enumerate(runs) for k in range(a, b + 1)
              for g in groups]  # fmt: skip
        n = len(xs) + k_n  # time of run j on group g in interval k; the intervals' lengths
        a_ub, a_eq, b_eq = [], [], []
        for k in range(k_n):
            row = [0.0] * n  # the workers of interval k
            for i, (_, g, kk) in enumerate(xs):
                row[i] = g if kk == k else 0.0
            row[len(xs) + k] = -procs
            a_ub.append(row)
            for j in range(len(runs)):  # a run is on one group at a time
                row = [0.0] * n
                for i, (jj, _, kk) in enumerate(xs):
                    row[i] = 1.0 if (jj, kk) == (j, k) else 0.0
                if any(row):
                    row[len(xs) + k] = -1.0
                    a_ub.append(row)
        for j, (steps, _, _) in enumerate(runs):  # every run does its timesteps
            a_eq.append([1.0 / t[g] if jj == j else 0.0 for jj, g, _ in xs] + [0.0] * k_n)
            b_eq.append(steps)
        res = linprog([0.0] * len(xs) + [1.0] * k_n, A_ub=a_ub, b_ub=[0.0] * len(a_ub),
                      A_eq=a_eq, b_eq=b_eq)  # fmt: skip
        assert res.success
        total += res.fun
    return total / 60


def test_the_papers_e_total_on_32_workers_is_reachable(spec):
    """The paper's 4h27m for E on 32 workers is within reach: any schedule of its runs needs
    at least 3h28m (docs/studies.md). The bound holds for every simulated schedule."""
    least = _least_total(spec, 32)
    assert 200 < least < PAPER_TABLE5[(32, "E")][0] * 0.9
    assert _least_total(spec, 64) < PAPER_TABLE5[(64, "E")][0] * 0.9
    flat = replace(spec.model, spread=0.0)  # every run the paper's mean timesteps
    for cost in PREEMPTION_COSTS:
        for alpha in ALPHAS:
            s = replace(spec, alpha=alpha, model=replace(flat, preemption_cost=cost))
            rows = table5(s, workers=(32,), configs="BCDE")
            assert (rows.total_min >= least - 1e-6).all(), rows.total_min.tolist()


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("cost", PREEMPTION_COSTS)
def test_e_totals_need_preemption_as_section_4_4_states_it(spec, ours, alpha, cost):
    """Both E totals within tolerance only with the paper's alpha ("assuming perfect scaling,
    alpha = original group size / expanded group size") and cost ("having to re-do the
    work"); with the scaling table's alpha and the start-up paid again (the code's defaults),
    or either one, E on 32 or 64 workers (or both) is out of it (docs/studies.md)."""
    if (alpha, cost) == (spec.alpha, spec.model.preemption_cost):
        rows = ours
    else:
        other = replace(spec, alpha=alpha, model=replace(spec.model, preemption_cost=cost))
        rows = table5(other, configs="E", seeds=SEEDS).set_index(["workers", "config"])
    off = [abs(rows.loc[(p, "E")].total_min / PAPER_TABLE5[(p, "E")][0] - 1) for p in (32, 64)]
    literal = (alpha, cost) == ("perfect-scaling", "redo")
    assert bool(max(off) <= TOTAL) is literal, off


def test_e_holds_the_papers_worker_minutes_beyond_d(ours):
    """The paper's E holds 772 worker-minutes more than its D on 32 workers and 3,527 more on
    64 (utilization x workers x total); so does ours, within 15%."""
    for p in (32, 64):
        e, d = ours.loc[(p, "E")], ours.loc[(p, "D")]
        extra = p * (e.utilization * e.total_min - d.utilization * d.total_min)
        (te, ue, *_), (td, ud, *_) = PAPER_TABLE5[(p, "E")], PAPER_TABLE5[(p, "D")]
        assert extra == pytest.approx(p * (ue * te - ud * td), rel=0.15)


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
