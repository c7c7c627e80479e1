"""Time coschedlab.workload.swf.read_swf on real archive traces.

Usage: python benchmarks/bench_swf_read.py [TRACE ...]
Without arguments it reads SDSC-SP2, HPC2N and CEA-Curie from /work/shared/data/swf (or
$COSCHEDLAB_SWF_DIR), best of 3 runs each, and prints jobs per second and the dropped jobs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from coschedlab.workload.swf import cluster_from_header, read_swf

DATA = Path(os.environ.get("COSCHEDLAB_SWF_DIR", "/work/shared/data/swf"))
DEFAULT = [
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "HPC2N-2002-2.2-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
]


def bench(path: Path, repeat: int = 3) -> None:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        w = read_swf(path)
        best = min(best, time.perf_counter() - t0)
    n_dropped = sum(w.dropped.values())
    lines = len(w) + n_dropped
    print(f"{path.name}")
    print(f"  job lines {lines:>9,}  kept {len(w):>9,}  dropped {n_dropped:>7,}")
    for reason, n in sorted(w.dropped.items()):
        print(f"    {n:>9,}  {reason}")
    print(f"  read in {best:.3f} s (best of {repeat}) = {lines / best:,.0f} job lines/s")
    print(f"  machine from header: {cluster_from_header(w.header)}")


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [DATA / name for name in DEFAULT]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"missing trace(s): {', '.join(map(str, missing))}", file=sys.stderr)
        return 1
    for path in paths:
        bench(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
