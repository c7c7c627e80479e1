"""The one JSON cleaner (coschedlab.jsonsafe.json_safe) every JSON result writer uses."""

from __future__ import annotations

import json
import math

import numpy as np

from coschedlab.jsonsafe import json_safe


def test_numpy_values_become_python_ones_recursively():
    doc = {
        1: np.int64(3),
        "f": np.float32(1.5),
        "b": np.bool_(True),
        "t": (np.int8(1), [np.float64(0.25), {"deep": np.uint16(7)}]),
        "a": np.array([[1, 2], [3, 4]]),
        "s": "text",
        "none": None,
    }
    out = json_safe(doc)
    assert out == {"1": 3, "f": 1.5, "b": True, "t": [1, [0.25, {"deep": 7}]],
                   "a": [[1, 2], [3, 4]], "s": "text", "none": None}  # fmt: skip
    assert type(out["1"]) is int and type(out["f"]) is float and type(out["b"]) is bool
    assert type(out["t"][1][1]["deep"]) is int
    assert json.dumps(out) == (
        '{"1": 3, "f": 1.5, "b": true, "t": [1, [0.25, {"deep": 7}]], '
        '"a": [[1, 2], [3, 4]], "s": "text", "none": null}'
    )


def test_non_finite_floats_become_null_unless_allowed():
    values = [math.nan, math.inf, -math.inf, np.float64("nan"), np.array([1.0, np.inf])]
    assert json_safe(values) == [None, None, None, None, [1.0, None]]
    kept = json_safe(values, allow_nan=True)
    assert json.dumps(kept) == "[NaN, Infinity, -Infinity, NaN, [1.0, Infinity]]"
    # strict JSON: a cleaned document has no NaN token a strict reader refuses
    json.dumps(json_safe({"x": np.float64("inf")}), allow_nan=False)


def test_plain_values_pass_through_unchanged():
    for v in (0, -5, 2.5, True, False, "s", None):
        assert json_safe(v) == v and type(json_safe(v)) is type(v)
