"""The seed's helium study through the Python API: what each piece of knowledge saves.

    .venv/bin/python examples/helium_study.py [OUT_DIR]

Runs the bundled spec (a 6 x 6 design grid, 32 processors) under configurations O and A-E on
the simulated executor, prints the total time of each against the one before, and draws the
scheduling graph of E (as the paper's Figure 7) into OUT_DIR (default: out/helium-example).
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

from coschedlab.studies import CONFIGS, load_spec, run_study
from coschedlab.studies.plots import scheduling_graph


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "out/helium-example")
    out.mkdir(parents=True, exist_ok=True)
    spec = load_spec(Path(str(files("coschedlab") / "data" / "helium_study.yaml")))
    for name, config in CONFIGS.items():
        print(f"{name}: {config.describe()}")
    before = None
    for name, config in CONFIGS.items():
        result = run_study(spec, config)
        m = result.metrics
        hours = m["total_time"] / 3600
        gain = "" if before is None else f"  {1 - hours / before:4.0%} faster"
        print(f"{name}: {m['runs']} runs, {hours:5.2f} h, "
              f"utilization {m['utilization']:.0%}{gain}")  # fmt: skip
        before = hours
    print("graph:", scheduling_graph(result, out / "schedule-E.png"))


if __name__ == "__main__":
    main()
