"""Samplers: the Pareto front, the grid, and the active sampler on an analytic problem."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.studies import ActiveParetoSampler, DesignSpace, GridSampler, pareto_front


def run(sampler, f):
    """Drive a sampler to the end with objective function f(params)."""
    results = {}
    while True:
        batch = sampler.next(results)
        if not batch:
            return results
        for d in batch:
            assert d not in results, "a design was issued twice"
            results[d] = f(sampler.space.params(d))


def brute_front(results):
    def dominates(g, f):
        return all(a <= b for a, b in zip(g, f, strict=True)) and g != f

    return {d for d, f in results.items() if not any(dominates(g, f) for g in results.values())}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 5)),
                       st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1))  # fmt: skip
def test_pareto_front_equals_brute_force(results):
    assert pareto_front(results) == brute_front(results)


def two_wells(p):
    # minimise the distances to (0, 0) and (1, 0): the true front is the segment y = 0
    x, y = p["x"], p["y"]
    return (x * x + y * y, (x - 1) ** 2 + y * y)


SPACE = DesignSpace.of(
    {"x": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "y": [-0.5, -0.3, -0.1, 0.1, 0.3, 0.5]}
)


def test_grid_sampler_runs_every_design_once():
    results = run(GridSampler(SPACE), two_wells)
    assert len(results) == 36


def test_active_sampler_finds_the_true_front_with_fewer_runs():
    full = run(GridSampler(SPACE), two_wells)
    active = run(ActiveParetoSampler(SPACE, step=2), two_wells)
    assert pareto_front(active) == pareto_front(full)  # the rows y = -0.1 and y = 0.1
    assert len(pareto_front(full)) == 12
    assert 9 < len(active) < 36
    coarse = [d for d in active if all(i % 2 == 0 for i in d)]
    assert len(coarse) == 9


def test_active_sampler_refines_only_around_the_coarse_front():
    # a single best design at (4, 4): its 3x3 neighbourhood is all that is refined
    space = DesignSpace.of({"a": list(range(6)), "b": list(range(6))})
    results = run(ActiveParetoSampler(space), lambda p: (abs(p["a"] - 4) + abs(p["b"] - 4),))
    refined = set(results) - {d for d in itertools.product(range(0, 6, 2), repeat=2)}
    assert refined == {d for d in itertools.product(range(3, 6), repeat=2)} - {(4, 4)}


@pytest.mark.parametrize(
    "grid, says",
    [({}, "no parameter"), ({"a": []}, "no value"), ({"a": [1, 1]}, "twice")],
)
def test_bad_spaces(grid, says):
    with pytest.raises(InputError) as e:
        DesignSpace.of(grid)
    assert says in str(e.value)
