"""Slurm's backfill gate (``_more_work``) on a real Slurm 22.05.8, and what it does to ``slurm``.

Slurm 22.05.8's backfill thread (``backfill_agent``, src/plugins/sched/backfill/backfill.c)
sleeps ``bf_interval`` after each cycle, then runs the next only if some ``last_job_update``,
``last_node_update``, ``last_part_update`` or ``last_resv_update`` is at or after the whole
second the last cycle ended in (``_more_work``); otherwise it polls again every second. So a
cycle is ``bf_interval`` after the last one while something keeps changing, and otherwise at
the first poll after the next change: its phase moves. What changes them (the 22.05.8
sources; the runs below confirm each):

* a job submitted, started (main scheduler or backfill) or ended;
* a backfill cycle that plans an IDLE node for a pending job's reservation
  (``_handle_planned(true)`` at its end; the next cycle's ``_handle_planned(false)`` clears
  it), or that moves a job's start to a later map boundary (``start_res > start_time`` after
  a retry);
* a main-scheduler pass that leaves a pending job behind a blocked one in its partition
  (``_failed_partition``: ``last_job_update = now`` for each such job, at every pass; with
  the emulator's ``sched_interval=1`` that is every second);
* priority/multifactor's decay thread, every ``PriorityCalcPeriod`` while jobs wait.

A cycle that starts nothing and plans no idle node (the queue empty, or every pending job's
reservation on busy nodes, or beyond ``bf_window``) changes nothing: unless something else
does, the next check finds no work and the thread polls.

``slurm`` puts its backfill passes on a fixed grid ``k x bf_interval + bf_phase``
(docs/workflows.md, "Slurm's clock"): right while something changes in every interval, late
by up to ``bf_interval`` after a quiet one.

This script:

* ``run [NAME ...]``: runs the gate workloads (``GATE_RUNS``, hand-made on 4 nodes,
  ``bf_interval=30``) on the emulator (``slurm_campaign.emulate``); outputs in
  ``benchmarks/data/slurm/`` as ``gate_*`` (half ``gate``);
* ``check``: replays the rule above on each bundled run's log (its submits, starts, ends,
  main passes and planned nodes) and compares the cycles it predicts with the logged ones;
* ``compare``: per-job start errors of ``slurm`` (as a real Slurm, and event driven) on the
  gate runs;
* ``traces``: on SDSC-SP2 and KTH-SP2 with ``slurm``'s defaults, how many backfill ticks
  follow an interval in which nothing happened (the ticks a real Slurm would not run).

Run: .venv/bin/python benchmarks/slurm_gate.py check|compare|traces|run [NAME ...]
"""

from __future__ import annotations

import gzip
import math
import re
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "slurm"

#: (run name, workload, nodes, reserve, multifactor, bf_interval)
GATE_RUNS = (
    ("gate_a4_cons_fifo_bf30", "gate_a4", 4, 0, False, 30),
    ("gate_b4_cons_fifo_bf30", "gate_b4", 4, 0, False, 30),
    ("gate_c4_cons_fifo_bf30", "gate_c4", 4, 0, False, 30),
)

_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$")
#: log line -> event kind (the job id, when there is one, is the first JobId=N)
_KINDS = (
    ("_slurm_rpc_submit_batch_job: JobId=", "submit"),
    ("sched: Allocate JobId=", "main_start"),
    ("_start_job: Started JobId=", "bf_start"),
    ("_job_complete: JobId=", "end"),  # (the "done" line)
    ("_attempt_backfill: beginning", "bf_begin"),
    ("_attempt_backfill: completed testing", "bf_done"),  # (with the Backfill flag only)
    ("_attempt_backfill: no jobs to backfill", "bf_end"),
    ("Running job scheduler", "main_pass"),
    ("state is PLANNED", "planned"),  # _handle_planned(true) on an idle node
    ("_handle_planned: BACKFILL: set:", "unplanned"),  # _handle_planned(false)
    ("Spawning ping agent", "ping"),  # the controller pings nodes not heard from lately
    ("validate_node_specs: node", "ping"),  # a node's registration
)


class Event(NamedTuple):
    t: float  # seconds after the run's t0 (Slurm's clock, milliseconds)
    kind: str
    job: int  # Slurm's job id (0: none)


@cache
def log_events(name: str) -> tuple[Event, ...]:
    """The events of run ``name``'s controller log that bear on the gate, in log order (read
    once per run)."""
    t0 = int(dict(ln.split("=", 1) for ln in (DATA / f"{name}.meta").read_text().splitlines()
                  if "=" in ln)["t0"])  # fmt: skip
    out = []
    with gzip.open(DATA / f"{name}.slurmctld.log.gz", "rt") as f:
        for line in f:
            m = _STAMP.match(line)
            if not m:
                continue
            text = m.group(2)
            for pattern, kind in _KINDS:
                if pattern in text:
                    if kind == "end" and not text.rstrip().endswith("done"):
                        break
                    jid = re.search(r"JobId=(\d+)", text)
                    dt = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
                    out.append(Event(dt.timestamp() - t0, kind, int(jid.group(1)) if jid else 0))
                    break
    return tuple(out)


def bumps(events: tuple[Event, ...]) -> list[tuple[float, str]]:
    """When ``last_job_update`` or ``last_node_update`` moved, as far as the log shows
    (time, why): submits, starts, ends, planned idle nodes set or cleared, the controller's
    pings of its nodes (a ping round is followed by a cycle in the idle stretches of the
    gate runs), and main passes that leave two or more jobs pending (FIFO: the first
    blocked, the others behind it)."""
    pending: set[int] = set()
    out = []
    for e in events:
        if e.kind == "submit":
            pending.add(e.job)
        elif e.kind in ("main_start", "bf_start"):
            pending.discard(e.job)
        if e.kind in ("submit", "main_start", "bf_start", "end", "planned", "unplanned", "ping"):
            out.append((e.t, e.kind))
        elif e.kind == "main_pass" and len(pending) >= 2:
            out.append((e.t, "main_pass"))
    return out


def cycles(events: tuple[Event, ...]) -> list[tuple[float, float]]:
    """The backfill cycles: (begin, end) times (a cycle whose end the log does not show, one
    without the Backfill debug flag, ends when it begins: cycles take milliseconds)."""
    out: list[tuple[float, float]] = []
    begin = None
    for e in events:
        if e.kind == "bf_begin":
            if begin is not None:
                out.append((begin, begin))
            begin = e.t
        elif e.kind in ("bf_done", "bf_end") and begin is not None:
            out.append((begin, e.t))
            begin = None
    if begin is not None:
        out.append((begin, begin))
    return out


def readable(name: str) -> bool:
    """Run ``name``'s log shows what the gate reads: the Backfill debug flag's lines (the
    planned nodes, each cycle's end) and, at debug level, the main scheduler's passes."""
    kinds = {e.kind for e in log_events(name)}
    return "bf_done" in kinds and "main_pass" in kinds


#: the backfill thread's poll period while the gate is closed: ``_my_sleep(1 s)`` plus the
#: loop's own time (the logs: 1.0002-1.0016 s; cycles are matched within ``TOLERANCE``)
POLL = 1.001
TOLERANCE = 0.15


def predict_next(end: float, interval: float, changes: list[tuple[float, str]]) -> float:
    """The next cycle after one that ended at ``end`` (``last_backfill_time`` = its whole
    second), by the gate: the check ``interval`` after it, or the first poll (every
    :data:`POLL` s) after it at which some change is at or after that whole second (inf:
    none)."""
    first = end + interval
    since = math.floor(end)
    at = min((t for t, _ in changes if math.floor(t) >= since), default=math.inf)
    if at <= first or at == math.inf:
        return first if at <= first else math.inf
    return first + POLL * math.ceil((at - first) / POLL)


def check(name: str, interval: float = 30.0) -> list[tuple[float, float, float, str]]:
    """Each logged cycle after the first (from t0 on: before it the daemons start) against
    the gate's prediction from the one before: (logged, predicted, the grid's tick ``first +
    k x interval``, what opened the gate)."""
    ev = log_events(name)
    cyc = [c for c in cycles(ev) if c[0] >= 0]
    ch = bumps(ev)
    out = []
    for (_, e0), (b1, _) in zip(cyc, cyc[1:], strict=False):
        p = predict_next(e0, interval, ch)
        since = math.floor(e0)
        why = next((k for t, k in ch if math.floor(t) >= since and t <= p + 1e-3), "-")
        grid = cyc[0][0] + interval * math.ceil((b1 - cyc[0][0]) / interval - 0.01)
        out.append((b1, p, grid, why))
    return out


def main_check(names: list[str]) -> None:
    names = names or [r[0] for r in GATE_RUNS if (DATA / f"{r[0]}.meta").is_file()]
    for name in names:
        rows = check(name)
        ok = sum(abs(a - p) < TOLERANCE for a, p, _, _ in rows)
        moved = sum(abs(a - p) < TOLERANCE and abs(a - g) > 0.5 for a, p, g, _ in rows)
        print(f"{name}: {ok} of {len(rows)} cycles where the gate puts them "
              f"({moved} off the fixed grid)")  # fmt: skip
        for a, p, g, why in rows:
            flag = "" if abs(a - p) < TOLERANCE else "   <-- MISSED"
            print(f"  cycle {a:8.3f}  gate {p:8.3f}  grid {g:8.3f}  ({why}){flag}")


def _validation():
    """benchmarks/slurm_validation.py as a module (its run readers and the model's clock)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("slurm_validation", HERE / "slurm_validation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _model_runs(name: str) -> tuple[object, dict[str, list]]:
    """Run ``name``'s reference times and ``slurm``'s schedules of it: as a real Slurm (one
    per phase of the main pass: the validation's clock) and event driven."""
    from coschedlab.api import simulate
    from coschedlab.platform import Cluster
    from coschedlab.schedulers import Slurm

    v = _validation()
    a, ref, meta = v.read_run(name)
    cluster = Cluster(int(meta["nodes"]))
    opts = v.settings(meta)
    real = [
        simulate(v.workload(a, True), cluster,
                 Slurm(**{**opts, **v.real_clock(float(opts["bf_interval"]), phase)})).jobs
        for phase in v.PHASES
    ]  # fmt: skip
    event = [simulate(v.workload(a, False), cluster, Slurm(**opts)).jobs]
    return ref, {"slurm, as a real Slurm": real, "slurm, event driven": event}


def start_errors(name: str):
    """Per job of run ``name`` (by id): ``slurm`` as a real Slurm's start error against the
    real start, |floor(sim) - real| in s, the mean over the phases of the main pass."""
    ref, models = _model_runs(name)
    errs = [
        (np.floor(j.set_index("job_id").loc[ref.index, "start"]) - ref["start"]).abs()
        for j in models["slurm, as a real Slurm"]
    ]
    return sum(errs) / len(errs)


def compare(name: str) -> dict[str, dict[str, float]]:
    """``slurm`` against gate run ``name``, per job: the start error (|sim - real|, s; as a
    real Slurm the model's times floored to whole seconds as Slurm records them), its mean
    and largest, the jobs started in the same second, with the validation's figures
    (:func:`slurm_validation.compare`); as a real Slurm the mean over the phases."""
    v = _validation()
    ref, models = _model_runs(name)
    real = ref["start"].to_numpy(dtype=float)
    out = {}
    for label, runs in models.items():
        floor = "real" in label
        rows = []
        for jobs in runs:
            st = jobs.set_index("job_id").loc[ref.index, "start"].to_numpy()
            st = np.floor(st) if floor else st
            e = np.abs(st - real)
            rows.append({"start_err_mean": float(e.mean()), "start_err_max": float(e.max()),
                         "same_second": float((np.floor(st) == real).sum()),
                         **v.compare(ref, jobs, floor)})  # fmt: skip
        out[label] = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    return out


def main_compare(names: list[str]) -> None:
    names = names or [r[0] for r in GATE_RUNS if (DATA / f"{r[0]}.meta").is_file()]
    names += [f"{n}_repeat" for n in names if (DATA / f"{n}_repeat.meta").is_file()]
    print(f"  {'model':<24} {'start err mean':>14} {'max':>6} {'same s':>7} {'wait%':>7} "
          f"{'MAPE%':>6}")  # fmt: skip
    for name in names:
        n = len(_validation().read_run(name)[1])
        print(name)
        for label, c in compare(name).items():
            print(
                f"  {label:<24} {c['start_err_mean']:>12.1f} s {c['start_err_max']:>5.0f} "
                f"{c['same_second']:>4.0f}/{n} {c['wait_err']:>+7.1f} {c['mape']:>6.1f}"
            )


def run_gate(names: list[str], parallel: int = 2) -> None:
    """Run the gate workloads (``NAME`` or ``NAME_repeat``; default: every one not yet run) on
    the emulator, ``parallel`` at a time (root; see slurm_campaign.py)."""
    from concurrent.futures import ThreadPoolExecutor

    sys.path.insert(0, str(HERE))
    from slurm_campaign import emulate

    spec = {r[0]: r for r in GATE_RUNS}
    todo = names or [n for r in GATE_RUNS for n in (r[0], r[0] + "_repeat")]
    todo = [n for n in todo if not (DATA / f"{n}.csv").is_file()]

    def one(name: str) -> str:
        base = name.removesuffix("_repeat")
        _, load, nodes, reserve, mf, bf = spec[base]
        slot = 10 + 2 * list(spec).index(base) + (name != base)  # (its own ports)
        return emulate(name, DATA / f"{load}.txt", nodes, reserve, mf, bf, "gate", slot)

    with ThreadPoolExecutor(parallel) as pool:
        for msg in pool.map(one, todo):
            print(msg, flush=True)


TRACES = {
    "SDSC-SP2": Path("/work/shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz"),
    "KTH-SP2": "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz",
}


def trace_gate(
    trace: str | Path, interval: float = 30.0, period: float = 300.0, ping: float = 100.0
) -> dict:
    """``slurm`` with its defaults on ``trace``; its backfill ticks ``k x interval`` (phase 0)
    that follow a QUIET interval, in which a real Slurm's gate finds no change: since the
    tick before (its whole second) no job was submitted, started or ended, no priority
    recalculation (every ``period`` s) found a job waiting, and neither of the two cycles
    before could plan an idle node for a reservation (a job waiting while a node was idle).
    The main scheduler runs at events only (``slurm``'s default), so it adds no change. Also
    counted with the controller's ping of its nodes every ``ping`` s (SlurmdTimeout / 3) as
    a change (the gate runs' logs), and with a main pass every 60 s. Returns the counts, the
    phase moves (quiet stretches ended by a change) and the backfill starts that follow a
    quiet interval (a real Slurm polls then and starts them at the first second after what
    enabled them, not at the next tick)."""
    from coschedlab.api import simulate
    from coschedlab.bundled import local_path

    res = simulate(local_path(trace), scheduler="slurm")
    jobs = res.jobs
    sub = np.sort(jobs["submit"].to_numpy())
    st = np.sort(jobs["start"].to_numpy())
    en = np.sort(jobs["end"].to_numpy())
    nodes_total = res.cluster.nodes
    # running nodes over time: +nodes at start, -nodes at end
    t_ev = np.concatenate([jobs["start"].to_numpy(), jobs["end"].to_numpy()])
    d_ev = np.concatenate([jobs["nodes"].to_numpy(), -jobs["nodes"].to_numpy()])
    o = np.lexsort((d_ev, t_ev))  # (ends before starts at one instant)
    t_ev, busy = t_ev[o], np.cumsum(d_ev[o])
    k0 = math.ceil(sub[0] / interval)
    k1 = math.floor(en[-1] / interval)
    T = np.arange(k0, k1 + 1) * interval
    # pending just before each tick, and after it (the tick's own starts gone)
    pend = np.searchsorted(sub, T, "right") - np.searchsorted(st, T, "left")
    pend_after = np.searchsorted(sub, T, "right") - np.searchsorted(st, T, "right")
    i = np.searchsorted(t_ev, T, "right") - 1
    free = nodes_total - np.where(i >= 0, busy[np.maximum(i, 0)], 0)
    # anything submitted, started or ended in [T_prev, T]
    all_ev = np.sort(np.concatenate([sub, st, en]))
    n_ev = np.searchsorted(all_ev, T, "right") - np.searchsorted(all_ev, T - interval, "left")
    # a recalculation in (T_prev, T] with a job waiting at it
    rc = np.floor(T / period) * period
    recalc = (rc > T - interval) & (pend > 0)
    plans = (free > 0) & (pend_after > 0)  # the cycle at T may plan an idle node
    prev1 = np.concatenate([[True], plans[:-1]])
    prev2 = np.concatenate([[True, True], plans[:-2]])
    quiet = (n_ev == 0) & ~recalc & ~prev1 & ~prev2
    quiet[0] = False
    # with Slurm's own default sched_interval=60 a main pass every 60 s leaves two or more
    # jobs behind a blocked one: a change
    main60 = (np.floor(T / 60.0) * 60.0 > T - interval) & (pend >= 2)
    pinged = np.floor(T / ping) * ping > T - interval
    # backfill starts: at a tick, with no submit or end at that instant
    s_all = jobs["start"].to_numpy()
    at_tick = np.isclose(s_all / interval, np.round(s_all / interval))
    no_ev = ~np.isin(s_all, sub) & ~np.isin(s_all, en)
    bf = np.round(s_all[at_tick & no_ev] / interval).astype(np.int64) - k0
    bf = bf[(bf >= 2) & (bf < len(T))]
    after_quiet = quiet[bf - 1]
    # what enabled each: the first event in (T_prev, T]; a real Slurm starts it 1 s later
    gain = []
    for k in bf[after_quiet]:
        lo = np.searchsorted(all_ev, T[k] - interval, "right")
        gain.append(T[k] - min(math.ceil(all_ev[lo]), T[k]))
    days = (T[-1] - T[0]) / 86400
    runs = int(np.sum(quiet[1:] & ~quiet[:-1]))
    return {
        "jobs": len(jobs), "days": days, "ticks": len(T),
        "quiet": int(quiet.sum()), "quiet_sched60": int((quiet & ~main60).sum()),
        "quiet_ping": int((quiet & ~pinged).sum()),
        "quiet_ping_by_pending": [int((quiet & ~pinged & (pend == 0)).sum()),
                                  int((quiet & ~pinged & (pend == 1)).sum()),
                                  int((quiet & ~pinged & (pend >= 2)).sum())],
        "quiet_by_pending": [int((quiet & (pend == 0)).sum()), int((quiet & (pend == 1)).sum()),
                             int((quiet & (pend >= 2)).sum())],
        "phase_moves": runs, "phase_moves_per_day": runs / days,
        "bf_starts": len(bf), "bf_after_quiet": int(after_quiet.sum()),
        "earlier_s_mean": float(np.mean(gain)) if gain else 0.0,
        "wait_mean_s": float((jobs["start"] - jobs["submit"]).mean()),
        "earlier_sum_per_job_s": float(np.sum(gain) / len(jobs)),
    }  # fmt: skip


def main_traces() -> None:
    for name, path in TRACES.items():
        r = trace_gate(path)
        q0, q1, q2 = r["quiet_by_pending"]
        print(f"{name}: {r['jobs']} jobs, {r['days']:.0f} days, {r['ticks']} backfill ticks")
        print(f"  ticks after a quiet interval (a real Slurm skips them): {r['quiet']} "
              f"({100 * r['quiet'] / r['ticks']:.1f}%): queue empty {q0}, one job waiting "
              f"{q1}, two or more {q2}")  # fmt: skip
        print(
            f"  (with a main pass every 60 s, Slurm's default sched_interval: "
            f"{r['quiet_sched60']} ({100 * r['quiet_sched60'] / r['ticks']:.1f}%))"
        )
        p0, p1, p2 = r["quiet_ping_by_pending"]
        print(
            f"  (with a ping round every 100 s: {r['quiet_ping']} "
            f"({100 * r['quiet_ping'] / r['ticks']:.1f}%): {p0} / {p1} / {p2})"
        )
        print(f"  phase moves (a quiet stretch ended by a change): {r['phase_moves']} "
              f"({r['phase_moves_per_day']:.1f} a day)")  # fmt: skip
        print(f"  backfill starts {r['bf_starts']}, {r['bf_after_quiet']} of them after a "
              f"quiet interval: a real Slurm starts those {r['earlier_s_mean']:.1f} s earlier "
              f"on average ({r['earlier_sum_per_job_s']:.3f} s per job of the trace; mean "
              f"wait {r['wait_mean_s']:.0f} s)")  # fmt: skip


if __name__ == "__main__":
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if cmd == "check":
        main_check(args)
    elif cmd == "run":
        run_gate(args)
    elif cmd == "compare":
        main_compare(args)
    elif cmd == "traces":
        main_traces()
    else:
        print(__doc__)
        sys.exit(2)
