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
        (lambda r: r["simulations"][0].__setitem__("work", 0), "'simulations[0].work' must be > 0"),
        (lambda r: r["analyses"][0].__setitem__("work", 0), "'analyses[0].work' must be > 0"),
        (lambda r: r["simulations"][0].__setitem__("data", -1), "'simulations[0].data' must be >="),
        (lambda r: r["analyses"][0].__setitem__("simulation", "nope"), "unknown simulation"),
        (lambda r: r.__setitem__("extra", 1), "unknown key 'extra'"),
        (lambda r: r["platform"].__setitem__("network", "mesh"), "'platform.network' must be one"),
        (lambda r: r["platform"].__setitem__("cores", 2.5), "must be an integer"),
        (lambda r: r["simulations"][0].__setitem__("work", "a lot"), "must be a finite number"),
        (lambda r: r.__setitem__("analyses", [r["analyses"][0]]), "has no coupled analysis"),
        # unknown keys at every depth, with the closest known key
        (
            lambda r: r["platform"].__setitem__("core_sped", 99),
            "'platform.core_sped' (did you mean 'core_speed'?)",
        ),
        (
            lambda r: r["simulations"][1].__setitem__("wrok", 1),
            "'simulations[1].wrok' (did you mean 'work'?)",
        ),
        (lambda r: r["analyses"][0].__setitem__("sim", "S1"), "unknown key 'analyses[0].sim'"),
        (lambda r: r.__setitem__("mapping", {"A9.9": "pool"}), "unknown key 'mapping.A9.9'"),
        (lambda r: r.__setitem__("mapping", {"A1.1": "S7"}), "'mapping.A1.1' must be one of"),
        (
            lambda r: r.__setitem__("allocation", {"S1": {"nodes": 1, "cores": {}, "node": 2}}),
            "unknown key 'allocation.S1.node'",
        ),
        (
            lambda r: r.__setitem__("allocation", {"S1": {"nodes": 1, "cores": {"X": 2}}}),
            "unknown key 'allocation.S1.cores.X'",
        ),
    ],
)
def test_bad_inputs_give_clear_errors(mutate, message):
    raw = _raw()
    mutate(raw)
    with pytest.raises(InputError) as info:
        ensemble_from_dict(raw)
    assert message in str(info.value)


def test_unknown_nested_key_names_file_and_line(tmp_path):
    # the in situ spec used to ignore this and run with the default core speed
    f = tmp_path / "e.yaml"
    text = dump_ensemble(generate_ensemble(1, 1, 1.0, 2, seed=0))
    f.write_text(text.replace("  core_speed:", "  core_sped:"))
    line = 1 + text.splitlines().index(next(x for x in text.splitlines() if "core_speed" in x))
    with pytest.raises(InputError) as info:
        load_ensemble(f)
    assert str(info.value) == (
        f"{f}:{line}: unknown key 'platform.core_sped' (did you mean 'core_speed'?)"
    )


def test_duplicate_keys_and_non_utf8_files(tmp_path):
    f = tmp_path / "e.yaml"
    text = dump_ensemble(generate_ensemble(1, 1, 1.0, 2, seed=0))
    f.write_text(text + "n_steps: 5\n")
    with pytest.raises(InputError, match="key 'n_steps' appears twice"):
        load_ensemble(f)
    f.write_bytes(text.replace("S1", "S\xe9").encode("latin-1"))
    with pytest.raises(InputError, match=r"e\.yaml:\d+: not UTF-8 text"):
        load_ensemble(f)


def test_bad_yaml_file(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("platform: [1, 2\n")
    with pytest.raises(InputError, match="not valid YAML"):
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
