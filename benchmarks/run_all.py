"""Run the quick version of every batch-core benchmark, one after the other (``make bench``).

    .venv/bin/python benchmarks/run_all.py [--full] [--others]

Quick versions: ``bench_core.py --quick`` (one repetition), ``bench_accasim.py --quick``
(first 10,000 jobs of SDSC-SP2-1998; creates /tmp/accasim-venv on first use) and
``bench_scaling.py --quick`` (10k and 100k jobs). ``--full`` runs the full versions instead
(the full AccaSim comparison takes a few minutes, the 1M-job scaling run a minute or so).
``--others`` then also runs the other benchmark scripts of this folder (``bench_*.py``,
``*_bench.py``), with ``--quick`` when a script offers it.
Exits non-zero if a script fails (a missed target is reported by the script, not a failure).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORE = ("bench_core.py", "bench_accasim.py", "bench_scaling.py")


def others() -> list[str]:
    found = sorted({p.name for p in [*HERE.glob("bench_*.py"), *HERE.glob("*_bench.py")]})
    return [name for name in found if name not in CORE]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="full versions instead of --quick")
    ap.add_argument("--others", action="store_true", help="also run the folder's other scripts")
    args = ap.parse_args(argv)
    plan = [(name, [] if args.full else ["--quick"]) for name in CORE]
    if args.others:
        for name in others():
            quick = "--quick" in (HERE / name).read_text() and not args.full
            plan.append((name, ["--quick"] if quick else []))
    failed = []
    for name, extra in plan:
        print(f"\n=== {name} {' '.join(extra)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.run([sys.executable, str(HERE / name), *extra]).returncode
        print(f"=== {name}: exit {rc}, {time.perf_counter() - t0:.1f} s", flush=True)
        if rc:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
