"""An independent, deliberately plain simulator of coupled-system co-scheduling (Tang et al.
2011, Algorithm 1 with the Section IV-E enhancements), written from the paper and Cobalt's
Qsim semantics without the coschedlab kernel: one loop, dicts and lists, first-fit in WFP order
(Cobalt's cluster policy). The tests compare it with :class:`coschedlab.coupled.CoupledSimulation`
using ``firstfit:order=wfp`` on random coupled workloads.

Same instant rules as the documented semantics: completions, then arrivals (all systems), then
release ticks, then one pass per system in order, for systems that had an event.
"""

from __future__ import annotations

import math

INF = math.inf


class Stuck(Exception):
    """Jobs wait and nothing can start them."""


def simulate(systems, pairs, first_time=None):
    """``systems``: list of dicts with ``jobs`` [(id, submit, run, req, nodes)], ``nodes``,
    ``scheme``, ``cap``, ``release`` (None: never), ``age``; ``pairs``: {(s, id): (s2, id2)}.
    Returns per system {id: start}."""
    K = len(systems)
    jobs = []
    for s in systems:
        js = sorted(s["jobs"], key=lambda x: (x[1], x[0]))
        jobs.append({j[0]: {"submit": j[1], "run": j[2], "req": j[3], "n": j[4]} for j in js})
    order = [[j[0] for j in sorted(s["jobs"], key=lambda x: (x[1], x[0]))] for s in systems]
    rank = [{jid: k for k, jid in enumerate(o)} for o in order]
    free = [s["nodes"] for s in systems]
    queued = [set() for _ in systems]
    held = [{} for _ in systems]  # id -> nodes
    first_hold = [{} for _ in systems]
    demoted = [set() for _ in systems]
    releasing = [False] * len(systems)  # a stalled release freed nodes at this instant
    starts_at_tick = [-1] * len(systems)  # starts on every system at the system's last tick
    start = [{} for _ in systems]
    ends = []  # (end, s, id)
    arrivals = sorted((j[1], s, j[0]) for s in range(K) for j in systems[s]["jobs"])
    if first_time is None:
        first_time = min((a[0] for a in arrivals), default=0.0)
    period = [(s["release"] + i) if s["release"] else INF for i, s in enumerate(systems)]
    next_tick = [INF] * K
    now = 0.0

    def wfp_order(s, cand):
        def key(jid):
            j = jobs[s][jid]
            r = j["req"] or 1.0
            return (jid in demoted[s], -(((now - j["submit"]) / r) ** 3) * j["n"], rank[s][jid])

        return sorted(cand, key=key)

    def begin(s, jid):
        start[s][jid] = now
        ends.append((now + jobs[s][jid]["run"], s, jid))

    def try_mate(s2, k):
        if k not in queued[s2]:
            return False
        paired = {jid for (ss, jid) in pairs if ss == s2}
        cand = [x for x in queued[s2] if x == k or x not in paired]
        for jid in wfp_order(s2, cand):
            if jobs[s2][jid]["n"] <= free[s2]:
                free[s2] -= jobs[s2][jid]["n"]
                queued[s2].discard(jid)
                begin(s2, jid)
        return k in start[s2]

    def decide(s, jid):
        m = pairs.get((s, jid))
        if m is None:
            return "start"
        s2, k = m
        if k in held[s2]:
            del held[s2][k]
            begin(s2, k)
            return "start"
        if k in start[s2]:
            return "start"
        if try_mate(s2, k):
            return "start"
        sy = systems[s]
        n = jobs[s][jid]["n"]
        if (
            sy["scheme"] == "hold" and not releasing[s]  # a release's pass holds nothing
            and sum(held[s].values()) + n <= sy["cap"] * sy["nodes"]
        ):  # fmt: skip
            return "hold"
        return "yield"

    def one_pass(s):
        for jid in wfp_order(s, list(queued[s])):
            n = jobs[s][jid]["n"]
            if n > free[s]:
                continue
            verdict = decide(s, jid)
            queued[s].discard(jid) if verdict != "yield" else None
            if verdict == "start":
                free[s] -= n
                begin(s, jid)
            elif verdict == "hold":
                free[s] -= n
                held[s][jid] = n
                first_hold[s].setdefault(jid, now)
                if next_tick[s] == INF and period[s] < INF:
                    m = math.floor((now - first_time) / period[s]) + 1
                    next_tick[s] = first_time + m * period[s]
        demoted[s].clear()

    ai = 0
    idle_ticks = 0  # ticks in a row with nothing else left and nothing started
    while True:
        t = min(
            arrivals[ai][0] if ai < len(arrivals) else INF,
            min((e[0] for e in ends), default=INF),
            min(next_tick),
        )
        if t == INF:
            break
        now = t
        had = [False] * K
        for e in sorted(x for x in ends if x[0] == t):
            ends.remove(e)
            free[e[1]] += jobs[e[1]][e[2]]["n"]
            had[e[1]] = True
        while ai < len(arrivals) and arrivals[ai][0] == t:
            _, s, jid = arrivals[ai]
            queued[s].add(jid)
            had[s] = True
            ai += 1
        for s in range(K):
            if next_tick[s] == t:
                due = [j for j in held[s] if t - first_hold[s][j] > systems[s]["age"]]
                for j in due:
                    free[s] += held[s].pop(j)
                    queued[s].add(j)
                started = sum(len(x) for x in start)
                if due:
                    demoted[s] = set(due)
                    releasing[s] = started == starts_at_tick[s]  # stalled: hold nothing
                    had[s] = True
                starts_at_tick[s] = started
                next_tick[s] = t + period[s] if held[s] else INF
        before = sum(len(x) for x in start)
        for s in range(K):
            if had[s] and queued[s]:
                one_pass(s)
        releasing = [False] * K
        if not ends and ai >= len(arrivals):
            if all(x == INF for x in next_tick):
                if any(queued) or any(held):
                    raise Stuck(now)
            else:
                idle_ticks = idle_ticks + 1 if sum(len(x) for x in start) == before else 0
                if idle_ticks > 20:
                    raise Stuck(now)
    return start
