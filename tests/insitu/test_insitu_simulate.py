"""SimGrid checks: dependency order on the timelines, reference points, engines agree."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.simulate import check_dependencies, simulate
from coschedlab.insitu.spec import generate_ensemble

# SimGrid looked up, not imported: its Python bindings change process-wide settings (the
# context factory, which runs now set themselves: test_context_factory.py) and need not load
if importlib.util.find_spec("simgrid") is None:
    pytest.skip("SimGrid's Python bindings are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def small():
    return generate_ensemble(2, 2, 4.0, 6, seed=2, steps=12)


@pytest.mark.parametrize("scenario", ["ideal", "increasing-50", "in-transit"])
@pytest.mark.parametrize("network", ["paper", "per-node"])
def test_timeline_respects_dependencies(small, scenario, network):
    plan = make_plan(small, scenario)
    res = simulate(plan, network)
    assert check_dependencies(res, plan) == []
    assert len(res.records) == 12 * 2 * (len(small.simulations) + len(small.analyses))
    assert res.makespan == pytest.approx(max(r[4] for r in res.records))
    idle = res.idle_times()
    assert all(v >= -1e-9 for v in idle.values())


def test_dependency_checker_detects_violations(small):
    plan = make_plan(small, "ideal")
    res = simulate(plan)
    recs = list(res.records)
    i = next(i for i, r in enumerate(recs) if r[0] == "A1.1" and r[1] == 3 and r[2] == "R")
    c, k, s, a, b = recs[i]
    recs[i] = (c, k, s, a - 1000.0, b)
    res.records = recs
    assert any("R(3) of A1.1" in v for v in check_dependencies(res, plan))


def test_ideal_simulated_over_model_in_authors_range():
    # the authors' simulated / model makespan for IDEAL was 1.007-1.116
    ens = generate_ensemble(4, 4, 4.0, 16, seed=1)
    plan = make_plan(ens, "ideal")
    res = simulate(plan)
    assert 1.0 <= res.makespan / plan.model_makespan <= 1.116
    assert check_dependencies(res, plan) == []


def test_in_transit_matches_published_reference():
    # the paper: IN-TRANSIT (S=4, A=4, V=4 GB, N=16), paper layout: 1164.0 s, within 5%
    ens = generate_ensemble(4, 4, 4.0, 16, seed=0)
    res = simulate(make_plan(ens, "in-transit"), "paper")
    assert res.makespan == pytest.approx(1164.0, rel=0.05)


def test_per_node_layout_is_faster_for_in_transit():
    ens = generate_ensemble(4, 4, 4.0, 16, seed=0, steps=20)
    plan = make_plan(ens, "in-transit")
    assert simulate(plan, "per-node").makespan < simulate(plan, "paper").makespan


def test_engines_agree(small):
    # the L07 ptask engine (calibrated) and the default LV08 per-piece engine
    for scenario in ("ideal", "in-transit"):
        plan = make_plan(small, scenario)
        fast = simulate(plan, "paper", "ptask").makespan
        slow = simulate(plan, "paper", "activities")
        assert slow.makespan == pytest.approx(fast, rel=0.02)
        assert check_dependencies(slow, plan) == []


def test_simulation_is_deterministic(small):
    plan = make_plan(small, "decreasing-50", "ev", "co")
    a, b = simulate(plan), simulate(plan)
    assert a.records == b.records


def test_bad_options(small):
    plan = make_plan(small, "ideal")
    with pytest.raises(InputError, match="unknown network"):
        simulate(plan, "torus")
    with pytest.raises(InputError, match="unknown engine"):
        simulate(plan, "paper", "magic")


PUBLISHED_IN_TRANSIT = {8: 1168.5, 16: 1164.0, 32: 1164.4, 64: 1161.7, 128: 1166.0}


@pytest.mark.slow
@pytest.mark.parametrize("nodes", sorted(PUBLISHED_IN_TRANSIT))
def test_reference_points_all_node_counts(nodes):
    # IN-TRANSIT within 5% of the published means; IDEAL simulated / model in [1.0, 1.116]
    for seed in range(3):
        ens = generate_ensemble(4, 4, 4.0, nodes, seed=seed)
        res = simulate(make_plan(ens, "in-transit"))
        assert res.makespan == pytest.approx(PUBLISHED_IN_TRANSIT[nodes], rel=0.05)
        plan = make_plan(ens, "ideal")
        ratio = simulate(plan).makespan / plan.model_makespan
        assert 1.0 <= ratio <= 1.116


def test_example_file_plans_and_simulates():
    from pathlib import Path

    from coschedlab.insitu.spec import load_ensemble

    path = Path(__file__).parents[2] / "examples" / "insitu_small.yaml"
    plan = make_plan(load_ensemble(path))
    assert plan.mapping.pool() == ["eig2"]
    assert plan.allocation.node_heuristic == "user"
    res = simulate(plan)
    assert check_dependencies(res, plan) == []
    assert res.makespan >= plan.model_makespan * 0.99


@settings(max_examples=6, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.floats(0.0, 8.0),
    st.integers(0, 4),
    st.sampled_from(["ideal", "increasing-50", "decreasing-25", "in-transit"]),
    st.sampled_from([("co", "co"), ("ev", "co"), ("co", "ev"), ("ev", "ev")]),
    st.sampled_from(["paper", "per-node"]),
    st.integers(0, 1000),
)
# the smallest normal float as GB/step made SimGrid's parallel tasks spin forever
@example(3, 1, 2.2250738585072014e-308, 4, "in-transit", ("co", "co"), "per-node", 488)
def test_random_plans_respect_dependencies(s, a, v, extra, scenario, pair, network, seed):
    ens = generate_ensemble(s, a, v, s + 1 + extra, seed=seed, steps=6)
    plan = make_plan(ens, scenario, *pair)
    res = simulate(plan, network)
    assert check_dependencies(res, plan) == []
    # S(1..K) of a simulation run back to back at least: K t_S(1) / (n c) (Eq. 1)
    place = plan.allocation.placement()
    for sim in ens.simulations:
        _, n, c = place[sim.name]
        assert res.makespan >= ens.n_steps * ens.t1(sim.name) / (n * c) * (1 - 1e-9)


def test_a_simgrid_run_that_does_not_finish_is_stopped(monkeypatch):
    import coschedlab.insitu.simulate as sim_mod

    monkeypatch.setattr(sim_mod, "CHILD_TIMEOUT_S", 1e-6)
    plan = make_plan(generate_ensemble(2, 2, 4.0, 6, seed=2, steps=200), "ideal")
    with pytest.raises(RuntimeError, match="did not finish"):
        simulate(plan)
