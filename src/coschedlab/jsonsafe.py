"""Plain JSON values from what results hold (NumPy numbers and arrays, tuples, NaN).

The one cleaner every writer of a JSON result uses (a core run's ``metrics.json``, a coupled
run's ``coupled.json``, a study's stored run, ``workflows simulate``'s ``summary.json``).
Depends only on the standard library and NumPy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any, allow_nan: bool = False) -> Any:
    """``value`` as plain JSON values, recursively: dict keys as strings, tuples and arrays as
    lists, NumPy integers, floats and booleans as Python ones; NaN and infinities as None
    (with ``allow_nan``: kept as floats, which :func:`json.dumps` writes as ``NaN`` and
    ``Infinity``). Anything else is returned as it is."""
    if isinstance(value, dict):
        return {str(k): json_safe(v, allow_nan) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v, allow_nan) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist(), allow_nan)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        value = float(value)
        return value if allow_nan or math.isfinite(value) else None
    return value
