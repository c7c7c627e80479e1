"""A PROTOTYPE of Slurm's backfill gate, to measure what it changes before it is built into
the compiled pass (benchmarks/README.md, slurmgate23): the tests' Python oracle of ``slurm``
(tests/reference_passes.py ``PySlurm``) with its backfill clock replaced by the gate
(benchmarks/slurm_gate.py's rule). A measuring tool, not a second implementation: the
package has no gate; the session that builds it into ``SlurmPass`` (and ``PySlurm``) deletes
this file.

Prints, on the gate runs, the per-job start errors of ``slurm`` as a real Slurm with the
fixed grid (``PySlurm``, the package's schedule) and with the gate; on KTH-SP2 and SDSC-SP2
with ``slurm``'s defaults, the mean wait with the grid, with the gate, and the grid's own
spread over bf_phase 0-25 s; the validation set's figures (slurm_validation.py's halves) with
the grid and with the gate.

Run: .venv/bin/python benchmarks/slurm_gate_prototype.py [runs|validation|traces]
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))
import nodespace_oracle  # noqa: E402
import slurm_gate  # noqa: E402
from reference_passes import PySlurm  # noqa: E402

INF = math.inf
POLL = 1.0
_RESERVED: list[tuple[object, int]] = []  # (map, node bits) reserved in the current scan
_orig_reserve = nodespace_oracle.BackfillMap.reserve


def _reserve(self, nodes, start, limit):
    _RESERVED.append((self, nodespace_oracle._bits(nodes)))
    return _orig_reserve(self, nodes, start, limit)


nodespace_oracle.BackfillMap.reserve = _reserve
nodespace_oracle.BackfillMap.hold = _reserve


class _Proxy:
    def __init__(self, view):
        self._v = view
        self.records = 0

    def record_reservation(self, j, t):
        self.records += 1
        self._v.record_reservation(j, t)

    def __getattr__(self, k):
        return getattr(self._v, k)


class GatedPySlurm(PySlurm):
    """PySlurm whose backfill cycles follow Slurm's gate instead of a fixed grid: a cycle
    ``bf_interval`` after the last one if something changed since its whole second, else at
    the first 1-s poll after the next change (arrivals, ends, starts, a cycle that plans an
    idle node and the one after it, a main pass leaving two or more jobs waiting, a priority
    recalculation with jobs waiting). ``runs_by_id`` (set before the run: the workload's run
    times, the experimenter's knowledge) dates the ends of jobs that end while no job
    waits, when the kernel calls no pass; the compiled pass would get them from the kernel.
    The main scheduler runs at every tick of its clock (no skip over an unchanged state)."""

    runs_by_id: dict[int, float]

    def _setup_python(self, view):
        super()._setup_python(view)
        self._c = -INF  # the last cycle's time
        self._change = INF  # the first change at or after floor(c) (from a pass)
        self._planned_last = False
        self._completed = 0
        self._busy_main = False
        self.gate_cycles = 0
        self.gate_moves = 0
        self._running: set[int] = set()
        ids = list(view.ids)
        self._run_of = [self.runs_by_id[int(i)] for i in ids]

    # -- the gate ---------------------------------------------------------------------------
    def _note(self, t):
        if (self._c == -INF or math.floor(t) >= math.floor(self._c)) and t < self._change:
            self._change = t

    def _next_change(self):
        ch = self._change
        if self._busy_main:  # a main pass each second leaves a job behind a blocked one
            ch = min(ch, max(self._busy_from, self._c))
        if self.priority == "multifactor" and self._order:  # the decay thread's passes
            p, r = self.priority_calc_period, self._next_calc
            lo = math.floor(self._c) if self._c > -INF else -INF
            if r < lo:
                r += math.ceil((lo - r) / p) * p
            ch = min(ch, r)
        return ch

    def _due(self):
        if self._c == -INF:
            return -INF
        first = self._c + self.bf_interval
        ch = self._next_change()
        if ch <= first:
            return first
        if ch == INF:
            return INF
        return first + POLL * math.ceil((ch - first) / POLL - 1e-9)

    def _cycle(self, t, planned, started=False):
        prev = self._next_change()
        if self._c > -INF and abs(t - (self._c + self.bf_interval)) > 1e-6:
            self.gate_moves += 1
        self._c = t
        self.gate_cycles += 1
        self._change = prev if prev <= t and math.floor(prev) >= math.floor(t) else INF
        if self._planned_last:  # its start clears the last cycle's planned nodes
            self._note(t)
        self._planned_last = planned
        if planned or started:
            self._note(t)

    # -- the pass -------------------------------------------------------------------------------
    def _pass(self, view):
        now = view.now
        if not self._python:
            self._setup_python(view)
        # the jobs that ended since the last pass, at their end times; the cycles between
        # the last pass and now (none starts a job: the queue was empty or nothing free)
        running = {r for _, r in view.est_sorted}
        ends = sorted(view.start[j] + self._run_of[j] for j in self._running - running)
        for e in [*ends, now]:
            while self._c > -INF:
                d = self._due()
                if not d < e - 1e-9:
                    break
                self._cycle(d, planned=False)
            if e < now:
                self._note(e)
        if view.joined or view.completed != self._completed:
            self._note(now)
        self._completed = view.completed
        out = self._gated_pass(view)
        self._running = {r for _, r in view.est_sorted} | set(out)
        return out

    def _gated_pass(self, view):
        now = view.now
        self._arrived += len(view.joined)
        listed = self._listed
        for j in view.joined:
            if not listed[j]:
                self._join(view, j, now)
        if self.priority == "multifactor" and now >= self._next_calc:
            if self._order:
                self._note(math.floor(now / self.priority_calc_period) * self.priority_calc_period)
            self._recalculate(view, now)
        if self._wakes:
            self._wakes = {t for t in self._wakes if t > now}
        order = self._order
        free = view.free
        started: list[int] = []
        if self._sched_ticks is None:
            main = True
        else:
            tick = self._sched_ticks.at_or_after(now)
            main = abs(tick - now) < 1e-9
            if not main and free > 0 and order:
                self._wake(view, tick)
        if main:
            before = len(self.started_by)
            free = self._main(view, free, started)
            if len(self.started_by) > before:
                self._note(now)
        queued = view.queued
        pending = sum(1 for _, j in order if queued[j])
        if pending >= 2:
            self._note(now)
        busy = self._sched_ticks is not None and pending >= 2
        if busy and not self._busy_main:
            self._busy_from = now
        self._busy_main = busy
        if not self.backfill:
            return started
        if self._c == -INF:  # the thread's first cycle: the first tick from now on
            self._c = self._bf_ticks.at_or_after(now) - self.bf_interval
            self._change = min(self._change, now)
        d = self._due()
        if abs(d - now) < 1e-9:  # a cycle now
            planned = False
            if free > 0 and order:
                _RESERVED.clear()
                proxy = _Proxy(view)
                before = len(self.started_by)
                got, free, _ = self._backfill(proxy, now, free, started)
                started += got
                bf_started = len(self.started_by) > before
                if self.bf_nodes:
                    planned = any(bits & m.idle for m, bits in _RESERVED)
                else:
                    planned = proxy.records > 0 and free > 0
            else:
                bf_started = False
            self._backfill_passes += 1
            self._cycle(now, planned, bf_started)
            d = self._due()
        if free > 0 and order and d < INF:
            self._wake(view, d)
        return started


def runs() -> None:
    from coschedlab.api import simulate
    from coschedlab.platform import Cluster

    v = slurm_gate._validation()
    names = [r[0] for r in slurm_gate.GATE_RUNS]
    names += [f"{n}_repeat" for n in names if (slurm_gate.DATA / f"{n}_repeat.meta").is_file()]
    for name in names:
        a, ref, meta = v.read_run(name)
        opts = v.settings(meta)
        det = v.pd.read_csv(slurm_gate.DATA / f"{name}.detail.csv").set_index("job_id")
        bf = det.index[det["start_by"] == "backfill"]
        for label, cls in (("grid (slurm)", PySlurm), ("gate (prototype)", GatedPySlurm)):
            errs, bferr = [], []
            for phase in v.PHASES:
                sch = cls(**{**opts, **v.real_clock(float(opts["bf_interval"]), phase)})
                w = v.workload(a, True)
                sch.runs_by_id = dict(zip(w.id.tolist(), w.run.tolist(), strict=True))
                j = simulate(w, Cluster(int(meta["nodes"])), sch).jobs.set_index("job_id")
                e = (np.floor(j.loc[ref.index, "start"]) - ref["start"]).abs()
                errs.append(e.mean())
                bferr.append(e.loc[bf].mean())
            print(f"{name:32} {label:17} start error {np.mean(errs):5.2f} s mean, "
                  f"{np.mean(bferr):5.2f} s on the {len(bf)} backfilled jobs")  # fmt: skip


def validation() -> None:
    """``slurm_validation.py``'s per-half means (as a real Slurm) with the grid and with the
    gate: what the validation table would become."""
    from coschedlab.api import simulate
    from coschedlab.platform import Cluster

    v = slurm_gate._validation()
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for name in v.runs():
        if v.half(name) == "gate":
            continue
        a, ref, meta = v.read_run(name)
        opts = v.settings(meta)
        rows[name] = {}
        for label, cls in (("grid", PySlurm), ("gate", GatedPySlurm)):
            res = []
            for phase in v.PHASES:
                sch = cls(**{**opts, **v.real_clock(float(opts["bf_interval"]), phase)})
                w = v.workload(a, True)
                sch.runs_by_id = dict(zip(w.id.tolist(), w.run.tolist(), strict=True))
                res.append(v.compare(ref, simulate(w, Cluster(int(meta["nodes"])), sch).jobs, True))
            rows[name][label] = {k: float(np.mean([r[k] for r in res])) for k in res[0]}
    for half in ("fit", "held-out", "earlier"):
        names = [n for n in rows if v.half(n) == half]
        for label in ("grid", "gate"):
            m = {k: np.mean([abs(rows[n][label][k]) for n in names])
                 for k in ("mape", "wait_err", "makespan_err")}  # fmt: skip
            print(
                f"{half:9} {label}: per-job response error {m['mape']:.1f}%, mean wait "
                f"{m['wait_err']:.1f}%, makespan {m['makespan_err']:.1f}% ({len(names)} runs)"
            )


def traces() -> None:
    from coschedlab.api import simulate
    from coschedlab.bundled import local_path
    from coschedlab.workload.swf import cluster_from_header, read_swf

    for name, trace in slurm_gate.TRACES.items():
        path = local_path(trace)
        cluster = cluster_from_header(read_swf(path).header)
        w = read_swf(path, cluster=cluster)
        spread = [
            float((lambda j: (j.start - j.submit).mean())(
                simulate(w, cluster, f"slurm:bf_phase={p}").jobs))
            for p in (0, 5, 10, 15, 20, 25)
        ]  # fmt: skip
        t = time.time()
        sch = GatedPySlurm()
        sch.runs_by_id = dict(zip(w.id.tolist(), w.run.tolist(), strict=True))
        gated = simulate(w, cluster, sch).jobs
        grid = simulate(w, cluster, "slurm").jobs
        moved = (gated.start - grid.start).abs() > 1e-6
        print(f"{name}: mean wait {spread[0]:.1f} s on the grid (bf_phase 0-25: "
              f"{min(spread):.1f}-{max(spread):.1f} s), {(gated.start - gated.submit).mean():.1f}"
              f" s with the gate ({sch.gate_cycles} cycles, {sch.gate_moves} off the grid; "
              f"{int(moved.sum())} of {len(w)} jobs start at another time; "
              f"{time.time() - t:.0f} s)")  # fmt: skip


if __name__ == "__main__":
    what = sys.argv[1:] or ["runs", "validation", "traces"]
    if "runs" in what:
        runs()
    if "validation" in what:
        validation()
    if "traces" in what:
        traces()
