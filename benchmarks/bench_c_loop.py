"""The compiled kernel against a small C textbook EASY loop (issue 31's first target: <= 3x).

Usage::

    .venv/bin/python benchmarks/bench_c_loop.py [TRACE] [--repeat 5]

Builds ``textbook_easy.c`` (the semantics of ``textbook_easy.py``) with ``cc -O2``, feeds it
the jobs of TRACE as coschedlab reads them (queue order, whole nodes), and prints, best of
``--repeat``, the C loop's time and coschedlab's ``Result.wall_time`` under ``easy`` on the
same jobs, their ratio, and whether both give the same total wait (they must).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import coschedlab
from coschedlab.workload.swf import cluster_from_header, read_swf

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = Path("/work/shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", nargs="?", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    w = read_swf(args.trace)
    cluster = cluster_from_header(w.header)
    cols = w.columns
    order = np.lexsort((cols["id"], cols["submit"]))
    nodes = -(-cols["procs"][order] // cluster.cores_per_node)
    rows = np.column_stack(
        [cols["submit"][order], cols["run"][order], cols["requested_time"][order], nodes]
    )
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "textbook_easy"
        subprocess.run(["cc", "-O2", "-o", exe, HERE / "textbook_easy.c", "-lm"], check=True)
        text = f"{len(rows)} {cluster.nodes}\n" + "\n".join(
            f"{s!r} {r!r} {q!r} {int(k)}" for s, r, q, k in rows.tolist()
        )
        c_best, c_waits = np.inf, None
        for _ in range(args.repeat):
            out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True)
            t, waits = map(float, out.stdout.split())
            c_best, c_waits = min(c_best, t), waits
    py_best = np.inf
    for _ in range(args.repeat):
        r = coschedlab.simulate(w, cluster, "easy")
        py_best = min(py_best, r.wall_time)
    cols = r.columns
    waits = float(np.sum(cols["start"] - cols["submit"]))
    print(f"trace: {args.trace.name}, {len(rows)} jobs on {cluster.nodes} nodes")
    print(f"C textbook EASY loop: {c_best * 1e3:8.2f} ms")
    print(f"coschedlab easy loop: {py_best * 1e3:8.2f} ms  ({py_best / c_best:.1f}x the C loop)")
    same = abs(waits - c_waits) <= 1e-6 * max(1.0, abs(c_waits))
    print(f"same total wait: {same} ({waits:.0f} s vs {c_waits:.0f} s)")


if __name__ == "__main__":
    main()
