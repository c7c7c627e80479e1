"""Several systems on one clock, each with its own scheduler; mates start at the same instant.

Co-scheduling across coupled systems (Tang, Desai, Buettner and Lan, "Job coscheduling on
coupled high-end computing systems", 2011). Each system is an ordinary core
:class:`~coschedlab.engine.kernel.Simulation` (its own cluster, workload, queue and policy)
driven by a :class:`~coschedlab.engine.kernel.Stepper`; this module only adds the clock they
share and the *gate* every decision of a pass goes through: the paper's Algorithm 1, RunJob.

**Instant semantics.** At each instant ``t`` (the earliest event of any system): every system
processes its completions, then its arrivals (in system order); then hold releases due at
``t``; then each system, in system order, runs its one scheduling pass if it had an event at
``t`` (a completion, an arrival, a wake-up, or a release that freed nodes). A system that had
no event runs no pass, so a system without paired jobs gets exactly the schedule it gets alone.

**Algorithm 1.** When system A's pass picks job ``j`` whose mate ``k`` is on system B:

* ``k`` holds: both start now (``k`` on the nodes it held);
* ``k`` started or ended (the paper's "unknown"), or ``j`` has no mate: ``j`` starts alone;
* ``k`` is queued or unsubmitted: B makes one extra scheduling attempt now (its policy over its
  queue without its other paired jobs, as Cobalt's ``try_to_run_mate_job``); if ``k`` starts
  there, ``j`` starts; otherwise ``j`` **holds** (its nodes kept idle for it, counted busy for
  every other job) or **yields** (skipped until the pass ends), by A's scheme. With
  ``mate_attempt="yielded"`` B tries only when ``k`` yielded since B's last event (Cobalt's
  code; the paper's text tries whenever ``k`` is queued).

**Enhancements (Section IV-E).** A hold that would take held nodes beyond ``hold_cap`` of the
machine yields instead. Every ``release`` seconds (system ``i``'s period is ``release + i``:
Cobalt's 1200 s and 1201 s, ticking from the first submit time of all systems), holds older
than ``release_age`` (from the job's first hold) are released: the nodes are freed and the job
is ordered last in that pass (:meth:`Simulation.demote`: the kernel presents it after every
other job, whatever the policy); it may hold again. After ``max_yields``
yields a job holds (unlimited by default, as in Cobalt).

**Progress.** A release at which no job has started on any system since the system's previous
tick is *stalled*: its pass holds nothing (a job that would hold yields), so the freed nodes go
to jobs that can start; a run that progresses keeps Cobalt's rule (released nodes may be held
again at once).

**Deadlock.** Hold-hold without release can deadlock (the paper's Fig. 2): the cycle is found
when it forms (:meth:`CoupledSimulation._deadlocked`, the wait-for graph of held jobs and their
mates) and :class:`CoupledDeadlock` names its holds. When only release ticks and policy timers
are left and four release periods plus the release age (a day without release) pass without a
start, the set is reported the same way (a safety net): never an endless loop.

**Cobalt compatibility** (``compat="cobalt"``; off by default). Qsim's rules where they differ
from the above (numbers of benchmarks/cobalt_qsim/cobalt_rules.md), to reproduce its schedules
(tests/coupled/test_cobalt_golden.py):

* (8) a job that held or yielded is not offered by its system's passes for the next 60 s
  (Cobalt's ``started_jobs``; mate attempts still see it), so it is not "yielded" after that
  system's next event and, with ``mate_attempt="yielded"``, its mate does not try it;
* (9) the hold cap is strict: held plus new nodes < ``hold_cap`` x nodes;
* (11) release ticks run on every system that may hold (scheme hold or ``max_yields``) from
  the first submission, holds or not, each an event of its system (its yield list is cleared,
  it runs a pass), and stop before the last submission of all systems: a hold that outlives
  them is never released (reported as a deadlock; Qsim just ends). No stalled-release pass:
  the freed nodes may always be held again;
* (15) a system after the first whose policy orders by WFP (Qsim's cluster) orders by the
  WFP *summed* over its events (each of its arrivals, ends and ticks adds every queued job's
  WFP at that instant; a release sets the job's sum to 0, for good); the first (Qsim's Blue
  Gene) recomputes WFP at each pass. This is not a core queue order: the sum grows at the
  system's events, not at each policy call (neither Qsim's repeated calls within an event nor
  the other system's mate attempts add to it), and releases reset it; a core order key sees
  one view at one call.

Not reproduced: one pass per event when events share a second (rules 20-21), and Qsim's own
nondeterminism: its choice among equal scores (e.g. jobs released at one tick, all at 0) and
of a Blue Gene partition follow object addresses; ours ties by submit order.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from types import SimpleNamespace
from typing import Any

from ..engine.kernel import HOLD, START, YIELD, Simulation
from ..errors import InputError
from ..jobs import Workload
from ..platform import Cluster
from ..schedulers.base import ORDERS, Scheduler
from ..schedulers.cadence import Ticks
from .mates import Pairs

INF = math.inf
SCHEMES = ("hold", "yield")
ATTEMPTS = ("queued", "yielded")
COMPATS = ("cobalt",)
#: Cobalt's bgsched does not offer a job handed to run_jobs again for this long (s)
COBALT_EXCLUSION = 60.0

__all__ = [
    "ATTEMPTS",
    "COMPATS",
    "SCHEMES",
    "CoupledDeadlock",
    "CoupledSimulation",
    "Hold",
    "System",
]


class CoupledDeadlock(InputError):
    """Hold-hold (or a stalled release) left jobs waiting that no event can start."""


@dataclass
class System:
    """One system of a coupled set: its machine, workload, policy and co-scheduling scheme."""

    name: str
    workload: Workload
    cluster: Cluster
    scheduler: Scheduler | None = None  #: None: WFP + EASY, the authors' machines' policy
    scheme: str = "hold"  #: what a job does when its mate cannot start: "hold" or "yield"
    hold_cap: float = 0.6  #: held nodes may not go beyond this share of the machine
    release: float | None = 1200.0  #: release period (s); None or 0: holds are never released
    release_age: float = 600.0  #: a hold is released once older than this (s)
    max_yields: int | None = None  #: after this many yields a job holds; None: never

    def __post_init__(self) -> None:
        def refused(key: str, must: str) -> InputError:
            return InputError(
                f"system {self.name}: {key} must be {must}, not {getattr(self, key)!r}"
            )

        if self.scheme not in SCHEMES:
            raise refused("scheme", "hold or yield")
        if not (isinstance(self.hold_cap, int | float) and 0 <= self.hold_cap <= 1):
            raise refused("hold_cap", "in [0, 1]")
        if self.release is not None and not (
            isinstance(self.release, int | float) and math.isfinite(self.release)
            and self.release >= 0
        ):  # fmt: skip
            raise refused("release", "seconds >= 0")
        if not (isinstance(self.release_age, int | float) and self.release_age >= 0):
            raise refused("release_age", "seconds >= 0")
        if self.max_yields is not None and (
            isinstance(self.max_yields, bool) or not isinstance(self.max_yields, int)
            or self.max_yields < 0
        ):  # fmt: skip
            raise refused("max_yields", "a whole number >= 0")
        if self.scheduler is None:
            from ..schedulers.registry import get_scheduler

            self.scheduler = get_scheduler("easy:order=wfp")


@dataclass
class Hold:
    """One hold episode: job (queue index) ``j`` of ``system`` held ``nodes`` from ``start``
    to ``end``; ``outcome`` "start" (its mate became ready) or "release"."""

    system: int
    j: int
    start: float
    nodes: int
    alloc: list[tuple[int, int]]
    end: float = math.nan
    outcome: str = ""


@dataclass
class _State:
    """The co-scheduling bookkeeping of one system."""

    sim: Simulation
    system: System
    mate: dict[int, tuple[int, int]]  # queue index -> (mate's system, mate's queue index)
    period: float  # release period (inf: never)
    ticks: Ticks | None = None  # the release ticks: first submit + k x period
    first_wait: dict[int, float] = field(default_factory=dict)  # first hold or yield
    first_hold: dict[int, float] = field(default_factory=dict)
    yields: dict[int, int] = field(default_factory=dict)
    open_holds: dict[int, Hold] = field(default_factory=dict)
    held_nodes: int = 0
    yielded_since_event: set[int] = field(default_factory=set)
    next_release: float = INF
    releasing: bool = False  # a stalled release freed nodes at this instant: no hold
    excluded: dict[int, float] = field(default_factory=dict)  # compat: held or yielded at
    score: list[float] | None = None  # compat: WFP summed over this system's events
    starts_at_tick: int = -1  # jobs started on every system at this system's last tick
    alone: int = 0  # paired jobs that started alone (mate started or ended)


def _add_wfp(st: _State, t: float) -> None:
    """Compat cobalt: at an event of the system, every queued job's sum grows by its WFP at
    ``t`` (Qsim's cluster, ``job.score += score``, cqsim.py:745)."""
    sim, score = st.sim, st.score
    assert score is not None
    at = SimpleNamespace(now=t, submit=sim.submit, req=sim.req, nodes=sim.nodes)
    wfp = ORDERS["wfp"]
    for j in sim.queue:
        score[j] -= wfp(at, j)[0]  # type: ignore[misc, index]  (the key is minus the WFP)


def _summed_wfp(scheduler: Scheduler, score: list[float]) -> Scheduler:
    """A copy of ``scheduler`` ordering its queue by ``score`` (highest first, then submit
    order): the summed WFP of compat cobalt."""
    sched = copy.copy(scheduler)
    sched.order_key = lambda view, j: (-score[j], j)
    return sched


class _Gate:
    """Algorithm 1 for one system (the kernel's :class:`~coschedlab.engine.kernel.Gate`)."""

    __slots__ = ("c", "s")

    def __init__(self, coupled: CoupledSimulation, s: int) -> None:
        self.c = coupled
        self.s = s

    def decide(self, j: int) -> int:
        return self.c._decide(self.s, j)

    def held(self, j: int) -> float:
        return self.c._held(self.s, j)


class CoupledSimulation:
    """K >= 2 systems on one clock with paired jobs (module docstring). ``pairs`` holds job
    ids per system (:class:`~.mates.Pairs`); ``until`` stops every system at that time;
    ``wake_limit``: each system's livelock limit (:class:`~..engine.kernel.Simulation`)."""

    def __init__(
        self,
        systems: Sequence[System],
        pairs: Pairs,
        *,
        mate_attempt: str = "queued",
        compat: str | None = None,
        until: float | None = None,
        progress: Callable[[int, int], None] | None = None,
        wake_limit: int | None = None,
    ) -> None:
        if len(systems) < 1:
            raise InputError("a coupled simulation needs at least one system")
        names = [s.name for s in systems]
        if len(set(names)) != len(names):
            raise InputError(f"system names must differ, got {names}")
        if mate_attempt not in ATTEMPTS:
            raise InputError(f"mate_attempt must be queued or yielded, not {mate_attempt!r}")
        if compat is not None and compat not in COMPATS:
            raise InputError(f"compat must be cobalt or none, not {compat!r}")
        self.systems = list(systems)
        self.compat = compat
        self._cobalt = compat == "cobalt"
        self.pairs = pairs
        self.mate_attempt = mate_attempt
        self.until = INF if until is None else float(until)
        self.progress = progress
        # compat cobalt: the WFP of every system after the first (Qsim's cluster) is summed
        scores: list[list[float] | None] = [
            [0.0] * len(s.workload)
            if self._cobalt and i > 0 and getattr(s.scheduler, "order", None) == "wfp"
            else None
            for i, s in enumerate(systems)
        ]
        sims = [
            Simulation(
                s.workload,
                s.cluster,
                s.scheduler if score is None else _summed_wfp(s.scheduler, score),  # type: ignore[arg-type]
                until=until,
                wake_limit=wake_limit,
            )
            for s, score in zip(systems, scores, strict=True)
        ]
        index = [{jid: k for k, jid in enumerate(sim.ids)} for sim in sims]
        mates: list[dict[int, tuple[int, int]]] = [{} for _ in sims]
        for (s, jid), (s2, kid) in pairs.mate.items():
            if not (0 <= s < len(sims) and 0 <= s2 < len(sims)):
                raise InputError(f"a pair names system {max(s, s2) + 1}; there are {len(sims)}")
            for sys_, id_ in ((s, jid), (s2, kid)):
                if id_ not in index[sys_]:
                    raise InputError(f"a pair names job {id_}, which system {names[sys_]} lacks")
            mates[s][index[s][jid]] = (s2, index[s2][kid])
        self.first_time = min((sim.submit[0] for sim in sims if sim.n), default=0.0)
        #: the last submission of all systems (compat: Cobalt's release ticks stop there)
        self.last_time = max((sim.submit[-1] for sim in sims if sim.n), default=0.0)
        self.state = [
            _State(
                sim, sys_, mates[i], (sys_.release + i) if sys_.release else INF, score=scores[i]
            )
            for i, (sim, sys_) in enumerate(zip(sims, systems, strict=True))
        ]
        if self._cobalt:  # Qsim's release ticks: from the start, on systems that may hold
            for st in self.state:
                if st.period < INF and (
                    st.system.scheme == "hold" or st.system.max_yields is not None
                ):
                    st.next_release = self._cobalt_tick(self.first_time + st.period)
        for st in self.state:
            if st.period < INF:
                st.ticks = Ticks(st.period, self.first_time, slack=0.0)
        for i, sim in enumerate(sims):
            sim.gate = _Gate(self, i)
        self.holds: list[Hold] = []
        self._attempt: tuple[int, int] | None = None
        self.now = 0.0
        self.wall_time = math.nan
        self.truncated = False

    @property
    def sims(self) -> list[Simulation]:
        """The core simulation of each system."""
        return [st.sim for st in self.state]

    # -- Algorithm 1 ----------------------------------------------------------------------------
    def _decide(self, s: int, j: int) -> int:
        st = self.state[s]
        m = st.mate.get(j)
        if m is None or self._attempt is not None:
            # no mate; or inside a mate attempt, where only unpaired jobs and the target run
            return START
        now = st.sim.now
        if self._cobalt and j in st.excluded:
            if now - st.excluded[j] <= COBALT_EXCLUSION:
                return YIELD  # not offered (Cobalt's bgsched), so not a yield
            del st.excluded[j]
        s2, k = m
        other = self.state[s2]
        osim = other.sim
        if k in osim.held:  # the mate holds: both start now
            osim.start_held(k)
            self._close_hold(s2, k, now, "start")
            return START
        if osim.start[k] == osim.start[k]:  # started or ended: "unknown", start alone
            st.alone += 1
            return START
        if self._try_mate(s2, k):
            return START
        st.first_wait.setdefault(j, now)
        sys_ = st.system
        nodes = st.sim.nodes[j]
        may_hold = sys_.scheme == "hold" or (
            sys_.max_yields is not None and st.yields.get(j, 0) >= sys_.max_yields
        )
        cap = sys_.hold_cap * st.sim.cluster.nodes
        if self._cobalt:
            st.excluded[j] = now
            fits = st.held_nodes + nodes < cap  # Cobalt's strict cap
        else:
            fits = st.held_nodes + nodes <= cap
        if may_hold and not st.releasing and fits:
            st.first_hold.setdefault(j, now)
            st.held_nodes += nodes
            if st.next_release == INF and st.period < INF and not self._cobalt:
                st.next_release = st.ticks.after(now)  # type: ignore[union-attr]
            return HOLD
        st.yields[j] = st.yields.get(j, 0) + 1
        st.yielded_since_event.add(j)
        return YIELD

    def _try_mate(self, s2: int, k: int) -> bool:
        """System ``s2``'s extra scheduling attempt for job ``k`` (Cobalt's
        ``try_to_run_mate_job``): a pass over its queue without its other paired jobs."""
        other = self.state[s2]
        osim = other.sim
        if not osim._queued[k]:  # unsubmitted (or not eligible yet)
            return False
        if self.mate_attempt == "yielded" and k not in other.yielded_since_event:
            return False
        mates = other.mate
        hide = [x for x in osim.queue if x != k and x in mates]
        self._attempt = (s2, k)
        try:
            osim.pass_now(hide)
        finally:
            self._attempt = None
        return osim.start[k] == osim.start[k]

    def _held(self, s: int, j: int) -> float:
        """Job ``j`` has just taken its nodes to hold them: record the episode; when the hold
        will be released at the latest (inf: never)."""
        st = self.state[s]
        sim = st.sim
        self._open_hold(s, j, sim.now)
        if st.period == INF:
            return INF
        due = st.first_hold[j] + st.system.release_age
        tick = st.ticks.after(max(sim.now, due))  # type: ignore[union-attr]
        return self._cobalt_tick(tick) if self._cobalt else tick

    def _cobalt_tick(self, t: float) -> float:
        """Tick ``t`` if Qsim has it (before the last submission of all systems), else inf."""
        return t if t < self.last_time else INF

    def _open_hold(self, s: int, j: int, now: float) -> None:
        sim = self.state[s].sim
        h = Hold(s, j, now, sim.nodes[j], list(sim.acct.allocation(j)))
        self.state[s].open_holds[j] = h
        self.holds.append(h)

    def _close_hold(self, s: int, j: int, now: float, outcome: str) -> None:
        st = self.state[s]
        h = st.open_holds.pop(j)
        h.end = now
        h.outcome = outcome
        st.held_nodes -= h.nodes

    def _release(self, s: int, t: float) -> bool:
        """Release tick of system ``s`` at ``t``: free the holds older than the release age."""
        st = self.state[s]
        sim = st.sim
        age = st.system.release_age
        due = [j for j in sim.held if t - st.first_hold[j] > age]
        for j in due:
            sim.release_hold(j)
            self._close_hold(s, j, t, "release")
        if self._cobalt:  # a tick is an event of the system (Qsim's C event): a pass
            st.yielded_since_event.clear()
            if st.score is not None:
                for j in due:  # the release's score 0 replaces the sum
                    st.score[j] = 0.0
            sim.demote(due)
            st.next_release = self._cobalt_tick(t + st.period)
            return True
        started = sum(len(x.sim.start_order) for x in self.state)
        if due:
            sim.demote(due)
            # no job started anywhere since the last tick: the set is stalled, and this
            # release's pass holds nothing (the progress guarantee); otherwise Cobalt's rule:
            # the freed nodes may be held again
            st.releasing = started == st.starts_at_tick
        st.starts_at_tick = started
        st.next_release = t + st.period if sim.held else INF
        return bool(due)

    # -- the clock -----------------------------------------------------------------------------
    def run(self) -> CoupledSimulation:
        """Run every system to the end (or ``until``). Returns ``self``."""
        t0 = perf_counter()
        state = self.state
        steppers = [st.sim.stepper() for st in state]
        total = sum(st.sim.n for st in state)
        report_every = max(64, total // 200)
        next_report = report_every
        stall: tuple[int, float] | None = None  # (jobs ended, since) with only ticks left
        periods = [st.period for st in state if st.period < INF]
        # how long only timers and release ticks may pass without a start before the set is
        # declared stuck (a safety net: a stalled release's pass holds nothing, so a set with
        # release starts a job within three periods and the age): four release periods and
        # the age, or a day without release
        patience = (
            4 * max(periods) + max(st.system.release_age for st in state) if periods else 86400.0
        )
        # a deadlock can form only among holds that are never released
        watch = any(st.period == INF for st in state)
        n_holds = 0
        while True:
            t = min(sp.next for sp in steppers)
            tr = min(st.next_release for st in state)
            if tr < t:
                t = tr
            if t == INF:
                break
            if t > self.until:
                self.truncated = True
                for st in state:
                    st.sim.truncated = True
                break
            self.now = t
            had = [sp.advance(t) for sp in steppers]
            for i, st in enumerate(state):
                if had[i]:
                    st.yielded_since_event.clear()
                if st.score is not None and (had[i] or st.next_release == t):
                    _add_wfp(st, t)
                if st.next_release == t and self._release(i, t):
                    had[i] = True
            for i, sp in enumerate(steppers):
                sp.schedule(had[i])
            for st in state:
                st.releasing = False
            if watch and (len(self.holds) != n_holds or any(had)):
                n_holds = len(self.holds)
                cycle = self._deadlocked()
                if cycle:
                    self._deadlock("these holds wait for each other", cycle)
            if all(st.sim.only_timers_left() for st in state):  # only ticks and timers left
                started = sum(st.sim.completed for st in state)  # a start ends before idle
                if stall is None or stall[0] != started:
                    stall = (started, t)
                elif t - stall[1] > patience:
                    self._deadlock(
                        f"nothing started for {t - stall[1]:.0f} s (a livelock: "
                        "released nodes are held again; try yield, a lower hold_cap or a "
                        "backfilling policy)"
                    )
            if self.progress is not None:
                done = sum(st.sim.completed for st in state)
                if done >= next_report:
                    self.progress(done, total)
                    next_report = done + report_every
        if not self.truncated and any(st.sim.queue or st.sim.held for st in state):
            self._deadlock("no event is left to start them")
        for st in state:
            st.sim.conclude()
        self.wall_time = perf_counter() - t0
        if self.progress is not None:
            self.progress(total, total)
        return self

    def _deadlocked(self) -> list[tuple[int, int]]:
        """The holds that wait for each other for ever, as (system, job) (empty: none): the
        wait-for graph of held jobs and their mates across systems. Start from every hold of a
        system without release; drop a hold whose mate is unsubmitted, or queued and small
        enough to fit its machine once the remaining holds there are counted out (it will
        start when the rest of that machine drains, and its holding mate with it); repeat
        until nothing drops. What is left can never start (Tang et al.'s Fig. 2)."""
        state = self.state
        stuck = {(s, j) for s, st in enumerate(state) if st.period == INF for j in st.sim.held}
        if not stuck:
            return []
        changed = True
        while changed and stuck:
            changed = False
            held_by = [0] * len(state)
            for s, j in stuck:
                held_by[s] += state[s].sim.nodes[j]
            for s, j in list(stuck):
                s2, k = state[s].mate[j]
                osim = state[s2].sim
                if not osim._queued[k] or (
                    osim.nodes[k] <= osim.cluster.nodes - held_by[s2]
                ):  # unsubmitted, or it will fit
                    stuck.discard((s, j))
                    changed = True
        return sorted(stuck)

    def _deadlock(self, why: str, jobs: list[tuple[int, int]] | None = None) -> None:
        """Stop with :class:`CoupledDeadlock` naming the held jobs (``jobs``: those of the
        cycle; None: every hold) and their mates."""
        names = [st.system.name for st in self.state]
        if jobs is None:
            jobs = [(s, j) for s, st in enumerate(self.state) for j in sorted(st.sim.held)]
        held = []
        for s, j in jobs:
            st = self.state[s]
            sim = st.sim
            s2, k = st.mate[j]
            osim = self.state[s2].sim
            held.append(
                f"{st.system.name} job {sim.ids[j]} holds {sim.nodes[j]} nodes since "
                f"t={sim.held[j]:.0f} for {names[s2]} job {osim.ids[k]} (which needs "
                f"{osim.nodes[k]} of {osim.cluster.nodes})"
            )
        waiting = sum(len(st.sim.queue) for st in self.state)
        what = "; ".join(held[:4]) + (f"; and {len(held) - 4} more" if len(held) > 4 else "")
        hint = (
            " (hold-hold without release: set a release period)"
            if all(st.period == INF for st in self.state)
            else ""
        )
        raise CoupledDeadlock(
            f"deadlock at t={self.now:.0f} s (day {self.now / 86400:.1f}): {waiting} jobs wait "
            f"and {why}; "
            f"{what or 'no job holds'}{hint}"
        )

    # -- the outcome ----------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """Facts about the run (per system: holds, yields, alone starts); ``compat`` and a
        system's ``wfp: summed`` only in a compatibility mode."""
        out: dict[str, Any] = {"mate_attempt": self.mate_attempt, "pairs": len(self.pairs)}
        if self.compat is not None:
            out["compat"] = self.compat
        for i, st in enumerate(self.state):
            out[st.system.name] = {
                "scheme": st.system.scheme,
                "hold_cap": st.system.hold_cap,
                "release": st.system.release or None,
                "release_period": None if st.period == INF else st.period,
                "release_age": st.system.release_age,
                "max_yields": st.system.max_yields,
                "holds": sum(1 for h in self.holds if h.system == i),
                "yields": sum(st.yields.values()),
                "started_alone": st.alone,
            }
            if st.score is not None:
                out[st.system.name]["wfp"] = "summed"
        return out
