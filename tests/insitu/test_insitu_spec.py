from __future__ import annotations

import pytest
import yaml

from coschedlab.errors import InputError
from coschedlab.insitu.spec import (
    dump_ensemble,
    ensemble_from_dict,
    ensemble_to_dict,
    generate_ensemble,
    load_ensemble,
)


def test_generator_is_seeded_and_in_range():
    a = generate_ensemble(4, 4, 4.0, 16, seed=3)
    b = generate_ensemble(4, 4, 4.0, 16, seed=3)
    c = generate_ensemble(4, 4, 4.0, 16, seed=4)
    assert dump_ensemble(a) == dump_ensemble(b)
    assert dump_ensemble(a) != dump_ensemble(c)
    assert len(a.analyses) == 16
    for x in a.analyses:
        assert 2500 <= x.work <= 7500
    # t_S(1) of the paper: 5000 GFLOP at 36.8 GFLOP/s
    assert a.t1("S1") == pytest.approx(135.87, abs=0.01)


def test_yaml_round_trip(tmp_path):
    e = generate_ensemble(2, 3, 1.5, 8, seed=0, steps=10)
    f = tmp_path / "e.yaml"
    f.write_text(dump_ensemble(e))
    assert ensemble_to_dict(load_ensemble(f)) == ensemble_to_dict(e)


def _raw():
    return ensemble_to_dict(generate_ensemble(2, 2, 4.0, 4, seed=0))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r["platform"].__setitem__("nodes", 1), "cannot host 2 simulations"),
        (lambda r: r["simulations"][0].__setitem__("work", 0), "'work' must be > 0"),
        (lambda r: r["analyses"][0].__setitem__("work", 0), "'work' must be > 0"),
        (lambda r: r["simulations"][0].__setitem__("data", -1), "'data' must be >= 0"),
        (lambda r: r["analyses"][0].__setitem__("simulation", "nope"), "unknown simulation"),
        (lambda r: r.__setitem__("extra", 1), "unknown keys"),
        (lambda r: r["platform"].__setitem__("network", "mesh"), "network must be one of"),
        (lambda r: r["platform"].__setitem__("cores", 2.5), "must be an integer"),
        (lambda r: r["simulations"][0].__setitem__("work", "a lot"), "must be a number"),
        (lambda r: r.__setitem__("analyses", [r["analyses"][0]]), "has no coupled analysis"),
    ],
)
def test_bad_inputs_give_clear_errors(mutate, message):
    raw = _raw()
    mutate(raw)
    with pytest.raises(InputError, match=message):
        ensemble_from_dict(raw)


def test_bad_yaml_file(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("platform: [1, 2\n")
    with pytest.raises(InputError, match="invalid YAML"):
        load_ensemble(f)
    with pytest.raises(InputError, match="no such file"):
        load_ensemble(tmp_path / "missing.yaml")
    f.write_text(yaml.safe_dump([1, 2]))
    with pytest.raises(InputError, match="mapping"):
        load_ensemble(f)


def test_generator_rejects_infeasible():
    with pytest.raises(InputError):
        generate_ensemble(4, 4, 4.0, 3)
    with pytest.raises(InputError):
        generate_ensemble(4, 4, -1.0, 16)
