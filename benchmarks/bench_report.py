"""Time the report (coschedlab.report) on a real trace: the PNGs of one run, the comparison
figure and the HTML page.

Usage: python benchmarks/bench_report.py [TRACE] [--quick] [--repeat N]
Without TRACE: SDSC-SP2 from /work/shared/data/swf (or $COSCHEDLAB_SWF_DIR), simulated under
EASY then FCFS; --quick uses the bundled KTH-SP2 trace and one repetition. Prints the best of
``--repeat`` runs of each step (figures only: not a test, nothing fails on a slow machine).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from importlib import resources
from pathlib import Path

from _bench_common import machine_line

import coschedlab
from coschedlab.report import figures, interactive
from coschedlab.workload.swf import cluster_from_header, read_swf

DATA = Path(os.environ.get("COSCHEDLAB_SWF_DIR", "/work/shared/data/swf"))


def best_of(repeat: int, fn) -> float:
    """Best wall-clock time of ``repeat`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    if args.trace:
        trace = args.trace
    elif args.quick:
        trace = Path(str(resources.files("coschedlab") / "data" / "KTH-SP2-1996-2.1-cln.swf.gz"))
    else:
        trace = DATA / "SDSC-SP2-1998-4.2-cln.swf.gz"
    print(machine_line())
    w = read_swf(trace)
    cluster = cluster_from_header(w.header)
    runs = {s: coschedlab.simulate(w, cluster, s) for s in ("easy", "fcfs")}
    easy = runs["easy"]
    print(f"{trace.name}: {len(easy.jobs):,} jobs on {cluster}; best of {repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        steps = {
            "per-run PNGs (gantt, utilization, queue, throughput, unused cores)": lambda: (
                figures.save_figures(easy.jobs, cluster, tmp, metrics=easy.metrics)
            ),
            "comparison.png (2 runs)": lambda: figures.comparison(runs).savefig(
                Path(tmp) / "comparison.png"
            ),
            "report.html (2 runs)": lambda: interactive.write_html(runs, Path(tmp) / "r.html"),
        }
        for name, fn in steps.items():
            print(f"  {best_of(repeat, fn):7.2f} s  {name}")
        size = (Path(tmp) / "r.html").stat().st_size
        print(f"  report.html: {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
