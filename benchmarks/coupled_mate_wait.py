"""How long the mates wait decides how much co-scheduling costs the large system (prints
figures; not a timed test; docs/coupled.md, "The study: results").

The paper's proportion study (Figs 7-10) saw Intrepid's paired jobs wait 75-124 min for their
Eureka mates and Intrepid's mean wait rise by 26-38 min at 20% paired (up to 187 min with
hold-hold at 33%). Our calibrated study matches Eureka's baseline *slowdown* (12.5) with a twin
workload whose jobs are short, so the mates wait 11 min on average and the large system's paired
jobs hold for 10-18 min only. This script runs the 20% and 33% rows (HH, YY, and no pairing;
seeds 0-2 of ``examples/coupled_paper.yaml``) twice: with the calibrated twin load (0.43) and
with a twin at load 0.65, whose jobs wait 36 min, and prints both systems' waits, sync times and
service-unit losses.

Run: .venv/bin/python benchmarks/coupled_mate_wait.py   (about 2 min)
"""

from __future__ import annotations

import statistics
import time

from coschedlab.coupled import workloads as cw
from coschedlab.coupled.sweep import load_coupled_spec, run_one

TWIN_LOADS = (cw.PAPER_TWIN_LOAD, 0.65)


def main() -> None:
    t0 = time.perf_counter()
    spec = load_coupled_spec("examples/coupled_paper.yaml")
    cfgs = [
        c
        for c in spec.configs().values()
        if c["study"] == "proportion" and c["x"] in (0.0, 0.2, 0.33)
        and c["combo"] in ("none", "HH", "YY")
    ]  # fmt: skip
    calibrated = cw.PAPER_TWIN_LOAD
    out: dict[tuple[float, float, str], list[dict]] = {}
    try:
        for load in TWIN_LOADS:
            cw.PAPER_TWIN_LOAD = load  # the twin's offered load under calibrate: paper
            for c in cfgs:
                out.setdefault((load, c["x"], c["combo"]), []).append(run_one(c)["metrics"])
    finally:
        cw.PAPER_TWIN_LOAD = calibrated

    def mean(rows: list[dict], system: str, key: str) -> float:
        return statistics.fmean(m[system][key] for m in rows)

    print("twin load  paired  combo | large: wait (+d)  sync  loss | small: wait (+d)  sync  loss")
    for (load, x, combo), rows in sorted(out.items()):
        base = out[(load, 0.0, "none")]
        cells = []
        for system in ("large", "small"):
            w = mean(rows, system, "wait_mean") / 60
            d = w - mean(base, system, "wait_mean") / 60
            cells.append(
                f"{w:5.1f} ({d:+5.1f}) {mean(rows, system, 'sync_mean') / 60:5.1f} "
                f"{100 * mean(rows, system, 'su_loss_share'):5.2f}%"
            )
        print(f"{load:9.2f}  {100 * x:5.0f}%  {combo:5} | {cells[0]} | {cells[1]}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
