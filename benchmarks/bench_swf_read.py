"""Time coschedlab.workload.swf.read_swf on real archive traces, against a small C reader.

Usage: python benchmarks/bench_swf_read.py [--repeat 5] [--no-c] [TRACE ...]

Without arguments it reads SDSC-SP2, KTH-SP2, HPC2N and CEA-Curie from /work/shared/data/swf
(or $COSCHEDLAB_SWF_DIR). For each trace it prints, best of ``--repeat`` runs (wall and CPU):

* ``read_swf`` whole (read the file, gunzip, header, the compiled parse loop, range and duplicate
  checks, the Workload), and two of its phases: the file read with gunzip, and the parse loop
  (:func:`coschedlab._core.swf_parse.parse_jobs`);
* the baseline, built by this script in the same run (``cc -O2 ... -lz``): a small C program
  that gunzips the file with zlib and parses every job line's 18 fields with ``strtod`` into 18
  arrays, timed inside the program (best of the same number of runs), and the ratio of
  ``read_swf`` to it. ``--no-c`` skips it (and it is skipped, saying why, without a compiler).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench_common import machine_line

from coschedlab._core import swf_parse
from coschedlab.errors import gunzip
from coschedlab.workload.swf import cluster_from_header, read_swf

DATA = Path(os.environ.get("COSCHEDLAB_SWF_DIR", "/work/shared/data/swf"))
DEFAULT = [
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "HPC2N-2002-2.2-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
]

#: The baseline: read a .swf.gz with zlib, parse the job lines' 18 fields with strtod into 18
#: arrays; argv: FILE REPEAT; prints "JOBS BEST_WALL_S BEST_CPU_S CHECKSUM".
C_READER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static double now(clockid_t c) {
    struct timespec t; clock_gettime(c, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}

static long parse(const char *path, double **col, long *cap, double *sum) {
    gzFile f = gzopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    size_t size = 0, room = 1 << 20; char *buf = malloc(room); int n;
    while ((n = gzread(f, buf + size, (unsigned)(room - size - 1))) > 0) {
        size += n;
        if (room - size < 2) { room *= 2; buf = realloc(buf, room); }
    }
    gzclose(f); buf[size] = 0;
    long jobs = 0; char *p = buf, *end = buf + size;
    while (p < end) {
        char *eol = p; while (eol < end && *eol != '\n') eol++;
        *eol = 0;
        char *q = p; while (*q == ' ' || *q == '\t') q++;
        if (*q && *q != ';' && *q != '\r') {
            if (jobs == *cap) {
                *cap *= 2;
                for (int k = 0; k < 18; k++) col[k] = realloc(col[k], *cap * sizeof(double));
            }
            for (int k = 0; k < 18; k++) { col[k][jobs] = strtod(q, &q); }
            *sum += col[1][jobs] + col[3][jobs];
            jobs++;
        }
        p = eol + 1;
    }
    free(buf);
    return jobs;
}

int main(int argc, char **argv) {
    int repeat = atoi(argv[2]); double best = 1e30, best_cpu = 1e30, sum = 0; long jobs = 0;
    for (int r = 0; r < repeat; r++) {
        long cap = 1024; double *col[18];
        for (int k = 0; k < 18; k++) col[k] = malloc(cap * sizeof(double));
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        sum = 0; jobs = parse(argv[1], col, &cap, &sum);
        double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (t < best) best = t;
        if (c < best_cpu) best_cpu = c;
        for (int k = 0; k < 18; k++) free(col[k]);
    }
    printf("%ld %.6f %.6f %.17g\n", jobs, best, best_cpu, sum);
    return 0;
}
"""


def build_c_reader(folder: Path) -> tuple[Path | None, str]:
    """Compile :data:`C_READER`; (the program, "") or (None, why not)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None, "no C compiler"
    src, exe = folder / "swf_reader.c", folder / "swf_reader"
    src.write_text(C_READER)
    done = subprocess.run(
        [cc, "-O2", "-o", str(exe), str(src), "-lz"], capture_output=True, text=True
    )
    if done.returncode:
        return None, f"{cc} failed: {done.stderr.strip().splitlines()[-1]}"
    return exe, ""


def best_of(repeat: int, fn) -> tuple[float, float, object]:
    """(best wall s, best CPU s, last value) of ``fn()``."""
    best = best_cpu = float("inf")
    out = None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu, out


def ms(wall: float, cpu: float) -> str:
    return f"{wall * 1e3:8.1f} ms (CPU {cpu * 1e3:7.1f} ms)"


def bench(path: Path, repeat: int, reader: Path | None) -> None:
    read_swf(path)  # warm up imports and the file cache
    wall, cpu, w = best_of(repeat, lambda: read_swf(path))
    n_dropped = sum(w.dropped.values())
    lines = len(w) + n_dropped
    print(f"{path.name}")
    print(f"  job lines {lines:>9,}  kept {len(w):>9,}  dropped {n_dropped:>7,}")
    for reason, n in sorted(w.dropped.items()):
        print(f"    {n:>9,}  {reason}")
    print(f"  machine from header: {cluster_from_header(w.header)}")
    print(f"  read_swf                  {ms(wall, cpu)}  = {lines / wall:>12,.0f} job lines/s")
    g_wall, g_cpu, data = best_of(repeat, lambda: gunzip(path.read_bytes(), str(path)))
    print(f"    file read + gunzip      {ms(g_wall, g_cpu)}")
    p_wall, p_cpu, _ = best_of(repeat, lambda: swf_parse.parse_jobs(data))
    print(f"    parse loop (compiled)   {ms(p_wall, p_cpu)}")
    if reader is None:
        return
    out = subprocess.run([str(reader), str(path), str(repeat)], capture_output=True, text=True)
    jobs, c_wall, c_cpu, _ = out.stdout.split()
    c_wall, c_cpu = float(c_wall), float(c_cpu)
    print(f"  C reader (zlib + strtod)  {ms(c_wall, c_cpu)}  ({int(jobs):,} job lines)")
    print(f"  read_swf / C reader       {wall / c_wall:8.2f}x wall, {cpu / c_cpu:.2f}x CPU")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-c", action="store_true", help="skip the C reader")
    args = ap.parse_args(argv)
    paths = args.traces or [DATA / name for name in DEFAULT]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"missing trace(s): {', '.join(map(str, missing))}", file=sys.stderr)
        return 1
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="bench_swf_read_") as tmp:
        reader, why = (None, "--no-c") if args.no_c else build_c_reader(Path(tmp))
        if reader is None:
            print(f"C reader skipped: {why}")
        for path in paths:
            bench(path, args.repeat, reader)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
