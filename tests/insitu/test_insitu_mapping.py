from __future__ import annotations

import pytest

from coschedlab.errors import InputError
from coschedlab.insitu.mapping import (
    SCENARIOS,
    Mapping,
    normal_form,
    resolve_mapping,
    scenario_mapping,
    user_mapping,
)
from coschedlab.insitu.spec import generate_ensemble


@pytest.fixture
def ens16():
    """The paper's (S=4, A=4/sim, V=4 GB, N=16) ensemble, seed 1."""
    return generate_ensemble(4, 4, 4.0, 16, seed=1)


def test_scenarios_pool_sizes(ens16):
    sizes = {sc: len(scenario_mapping(ens16, sc).pool()) for sc in SCENARIOS}
    assert sizes["ideal"] == 0
    assert sizes["in-transit"] == 16
    for x, k in (("25", 4), ("50", 8), ("75", 12)):
        assert sizes[f"increasing-{x}"] == k
        assert sizes[f"decreasing-{x}"] == k


def test_increasing_takes_smallest_decreasing_largest(ens16):
    work = {a.name: a.work for a in ens16.analyses}
    inc = scenario_mapping(ens16, "increasing-25").pool()
    dec = scenario_mapping(ens16, "decreasing-25").pool()
    ranked = sorted(work, key=work.get)
    assert set(inc) == set(ranked[:4])
    assert set(dec) == set(ranked[-4:])


def test_normal_form_moves_foreign_analyses_to_pool(ens16):
    m = user_mapping(ens16, {"A1.1": "S2", "A1.2": "pool"})
    nf, moved = normal_form(ens16, m)
    assert moved == ["A1.1"]
    assert set(nf.pool()) == {"A1.1", "A1.2"}
    assert dict(nf.placement)["A2.1"] == "S2"


def test_bad_mappings(ens16):
    with pytest.raises(InputError, match="unknown scenario"):
        scenario_mapping(ens16, "sideways-10")
    with pytest.raises(InputError, match="unknown analysis"):
        user_mapping(ens16, {"Z": "pool"})
    with pytest.raises(InputError, match="neither a simulation"):
        user_mapping(ens16, {"A1.1": "S9"})


def test_default_is_ideal(ens16):
    m, moved = resolve_mapping(ens16, None)
    assert isinstance(m, Mapping) and not m.pool() and not moved
