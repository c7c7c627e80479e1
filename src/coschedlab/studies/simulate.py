"""The simulated executor: a study's time advances by events through the work model.

Why not the core event kernel: the kernel schedules rigid batch jobs on a cluster for a
policy that sees a queue; a study's runs are moldable and malleable (a preempted run moves to
a larger group and loses the work since its last checkpoint), its queue is fed by a sampler
that reads finished runs' objectives, and its policy is the study manager's. Those do not fit
the kernel's job lifecycle without special cases, so this module has its own small loop: a
heap of (time, sequence) events, finishes before checkpoint decisions at one instant.

A run of design ``d`` on ``p`` processors spends the model's ``start_time(p)``, then
advances ``1 / (t(p) x time_scale)`` timesteps per second, every time multiplied by the
model's factor for the machine's size (:class:`~coschedlab.studies.model.WorkModel`).
When preemption is on and workers are spare, each running run (most work left first) is
asked whether moving to the larger group pays now
(:func:`~coschedlab.studies.manager.beneficial`); if not, it is asked again at its next
checkpoint. Spare workers are offered from the first instant on (the first batch can leave
some, as every later one). A move restarts the run from its last checkpoint after ``restart``
seconds (regrouping) plus the model's ``restart_time`` of the new group (its start-up there,
or nothing when the model's ``preemption_cost`` is ``"redo"``); the work since the
checkpoint is redone.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from .manager import Config, Manager, Start, beneficial
from .model import WorkModel
from .result import Segment, StudyResult
from .sampling import pareto_front
from .store import ResultStore

__all__ = ["simulate_study"]


@dataclass
class _Run:
    start: Start
    total: int  # timesteps to do
    began: float
    seg_start: float  # when the current group starts stepping (after any restart cost)
    at_seg: float  # timesteps done at seg_start
    step_time: float  # seconds per timestep on the current group
    workers: tuple[int, ...]
    wall: float = 0.0  # when the current group was formed (its bars start there)
    version: int = 0
    decide_at: float = -1.0  # the pending checkpoint decision (one per run)
    lost: float = 0.0
    moves: list[list[float]] = field(default_factory=list)  # time, from, to, sigma, alpha

    def done_at(self, now: float) -> float:
        return self.at_seg + max(0.0, now - self.seg_start) / self.step_time

    def end(self) -> float:
        return self.seg_start + (self.total - self.at_seg) * self.step_time


def simulate_study(
    model: WorkModel,
    config: Config,
    procs: int,
    per_run: int,
    reuse: tuple[str, ...] = (),
    checkpoint_every: int = 100,
    restart: float = 0.0,
    step: int = 2,
    barrier: bool = True,
    store: ResultStore | None = None,
    alpha: str = "scaling",
    on_finish: Callable[[int, int], None] | None = None,
) -> StudyResult:
    """Simulate a study of ``model.space`` on ``procs`` processors under ``config`` (module
    doc); ``per_run`` processors per run without batching, a checkpoint every
    ``checkpoint_every`` timesteps, ``restart`` seconds per preemption, the rule's ``alpha``
    reckoned as :class:`~coschedlab.studies.manager.Manager` says.
    ``on_finish(done, issued)`` reports progress."""
    store = store or ResultStore(model.space, reuse if config.reuse else ())
    mgr = Manager(model.space, config, model.scaling, procs, per_run, store, step=step,
                  barrier=barrier, alpha=alpha)  # fmt: skip
    events: list[tuple[float, int, int, int, int]] = []  # time, kind, seq, run, version
    seq = 0
    runs: dict[int, _Run] = {}
    segments: list[Segment] = []
    records: list[dict] = []
    now = 0.0
    FINISH, DECIDE = 0, 1

    def push(t: float, kind: int, run: int, version: int) -> None:
        nonlocal seq
        heapq.heappush(events, (t, kind, seq, run, version))
        seq += 1

    def close_segment(r: _Run, until: float, kind: str) -> None:
        for w in r.workers:
            segments.append(Segment(w, r.start.run, r.wall, until, kind))

    slow = model.machine_factor(procs)

    def step_time(g: int) -> float:
        return model.step_time(g) * slow

    def launch(s: Start) -> None:
        g = len(s.workers)
        r = _Run(s, model.steps(s.design, s.source is not None), now,
                 now + model.start_time(g) * slow, 0.0, step_time(g), s.workers,
                 wall=now)  # fmt: skip
        runs[s.run] = r
        fresh.append(r)
        push(r.end(), FINISH, s.run, 0)

    seen_spare = 0  # spare workers after the last full offer
    fresh: list[_Run] = []  # runs started since the last offer
    due: list[_Run] = []  # runs at a checkpoint decision this instant

    def offer_spare() -> None:
        """Offer spare workers to running runs (module doc). A run that declined keeps
        declining until its next checkpoint unless more workers become spare, so only runs
        that are new, at a checkpoint, or all runs when the spare count grew, are asked."""
        nonlocal seen_spare
        spare = mgr.spare()
        if spare > seen_spare:
            asked = list(runs.values())
        else:
            asked = [r for r in fresh + due if runs.get(r.start.run) is r]
        fresh.clear()
        due.clear()
        if spare and asked:
            asked.sort(key=lambda r: (-(r.end() - now), r.start.run))
            for r in asked:
                spare = mgr.spare()
                if not spare:
                    break
                consider(r, spare)
        seen_spare = mgr.spare()

    def consider(r: _Run, spare: int) -> None:
        new = mgr.expansion(r.start.run, spare)
        if new is None:
            return
        done = r.done_at(now)
        last = math.floor(done / checkpoint_every + 1e-9) * checkpoint_every
        sigma = max(0.0, done - last) / checkpoint_every  # (a checkpoint within rounding: 0)
        alpha = mgr.speedup_ratio(r.start.run, new)
        if beneficial(alpha, sigma):
            close_segment(r, now, "run")
            r.lost += max(0.0, done - last)
            r.moves.append([now, len(r.workers), new, sigma, alpha])
            r.workers = mgr.expand(r.start.run, new)
            r.wall = now
            r.seg_start = now + (restart + model.restart_time(new)) * slow
            r.at_seg = last
            r.step_time = step_time(new)
            r.version += 1
            push(r.end(), FINISH, r.start.run, r.version)
        else:
            nxt = (math.floor(done / checkpoint_every + 1e-9) + 1) * checkpoint_every
            if nxt < r.total:
                t = r.seg_start + (nxt - r.at_seg) * r.step_time
                if r.decide_at != t:
                    r.decide_at = t
                    push(t, DECIDE, r.start.run, r.version)

    for s in mgr.starts():
        launch(s)
    if config.preempt:  # the first batch may leave workers spare, as every later one
        offer_spare()
    finished = 0
    while events:
        now, kind, _, run, version = heapq.heappop(events)
        r = runs.get(run)
        if r is None or r.version != version:
            continue  # a superseded event
        if kind == DECIDE:
            due.append(r)
        if kind == FINISH:
            close_segment(r, now, "run")
            del runs[run]
            objectives = model.objectives(r.start.design)
            rec = {
                "run": run,
                "design": list(r.start.design),
                **model.space.params(r.start.design),
                "source": None if r.start.source is None else list(r.start.source),
                "batch": r.start.batch,
                "start": r.began,
                "end": now,
                "steps": r.total,
                "lost_steps": r.lost,
                "preemptions": len(r.moves),
                "first_procs": len(r.start.workers),
                "last_procs": len(r.workers),
                "moves": r.moves,
                "objectives": list(objectives),
            }
            records.append(rec)
            mgr.finish(run, objectives, r.total, record=rec, commit=False)
            finished += 1
            if on_finish is not None:
                on_finish(finished, mgr.issued)
        # everything at this instant first: finishes, then one decision round
        if events and events[0][0] == now and events[0][1] == FINISH:
            continue
        for s in mgr.starts():
            launch(s)
        if config.preempt:
            offer_spare()
    store.commit()
    if not mgr.done():  # pragma: no cover - a manager bug, never a user's input
        raise RuntimeError("the study stopped with runs left")
    return StudyResult(
        config=config.name,
        procs=procs,
        records=records,
        segments=segments,
        front=sorted(pareto_front(store.results())),
        batches=mgr.batches,
    )
