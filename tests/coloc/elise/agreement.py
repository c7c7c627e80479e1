"""How far each of ELiSE's bugs moves the schedules: coschedlab against ELiSE's golden runs
with ``--compat`` all, all but one, and none (the table of docs/coloc.md, "ELiSE").

    .venv/bin/python tests/coloc/elise/agreement.py

For every ELiSE scheduler, over every run of every case: how many jobs start and end within
1e-6 s of ELiSE's times, and the run whose mean wait is furthest from ELiSE's (relative).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _golden import CASES, runs_against_elise  # noqa: E402

from coschedlab.coloc.elise.experiment import COMPAT  # noqa: E402


def settings() -> dict[str, frozenset[str]]:
    """``--compat`` settings: all, all but one (``clock`` implies ``late-kill``), none."""
    every = frozenset(COMPAT)
    return {
        "all": every,
        "all but clock": every - {"clock"},
        "all but clock, late-kill": every - {"clock", "late-kill"},
        "all but conservative": every - {"conservative"},
        "all but alone": every - {"alone"},
        "none (default)": frozenset(),
    }


def main() -> None:
    table: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, 0.0, ""])
    for name in CASES:
        for label, compat in settings().items():
            for run, s, ours, theirs, ids, start, end in runs_against_elise(name, compat):
                mine = ours.loc[ids]
                same = (np.abs(mine["start"].to_numpy() - start) <= 1e-6) & (
                    np.abs(mine["end"].to_numpy() - end) <= 1e-6
                )
                t_wait = float(np.sum(start - np.array([float(r["submit"]) for r in theirs])))
                row = table[(s.base, label)]
                row[0] += int(same.sum())
                row[1] += len(ids)
                rel = (float(mine["wait"].sum()) - t_wait) / t_wait * 100 if t_wait else 0.0
                if abs(rel) > abs(row[2]):
                    row[2], row[3] = rel, f"{name}/{run.inp}"
    print("| ELiSE scheduler | --compat | jobs as ELiSE's | furthest mean wait (run) |")
    print("|---|---|---|---|")
    for (base, label), (same, n, rel, where) in sorted(table.items()):
        far = f"{rel:+.1f}% ({where})" if abs(rel) >= 0.05 else "0.0%"
        print(f"| {base} | {label} | {same:,} / {n:,} | {far} |")


if __name__ == "__main__":
    main()
