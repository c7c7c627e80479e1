"""Hand-made regular jobs for the workflow tests."""

from __future__ import annotations

import numpy as np

from coschedlab.jobs import Workload


def regular(*rows) -> Workload:
    """A workload of (id, submit, run, limit, procs) rows."""
    a = np.array(rows, dtype=float).reshape(-1, 5)
    return Workload({"id": a[:, 0].astype(np.int64), "submit": a[:, 1], "run": a[:, 2],
                     "requested_time": a[:, 3], "procs": a[:, 4].astype(np.int64)})  # fmt: skip
