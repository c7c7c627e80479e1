"""SimGrid simulation of an ensemble plan, stage by stage (the authors' simulator's
stage model: Do et al., "Co-scheduling ensembles of in situ workflows", and their public
simulator, Analytics4MD/insitu-ensemble-simulator).

Per step k every simulation runs S(k) (compute) then W(k) (write V/n per node to node-local
storage); every analysis runs R(k) (read: local if co-scheduled, else V/(n n') from each
simulation node to each of its nodes) then A(k) (compute). Dependencies, the one-step buffer:
W(k) waits for every coupled R(k-1); R(k) waits for all W(k) of its simulation and for its own
A(k-1). A component on n nodes with c cores per node is n per-node pieces; the compute of a piece
is one single-core execution of work/(n c) flop (a SimGrid Exec uses one core).

Two engines:

``ptask`` (default, fast)
    ``host/model:ptask_L07``. One component stage = one parallel task covering its n per-node
    pieces (blocks hold identical pieces, so the pieces progress together exactly as n
    independent pieces would). W(k) and a local R(k) are transfers on the node's storage route
    (100 GB/s); remote R(k) moves V/(n n') between every (simulation node, analysis node) pair.
    L07 gives a flow the full link bandwidth, so with the ``paper`` layout the shared link is set
    to B x 0.97/1.05, the rate a lone flow gets under SimGrid's default LV08 model.
``activities`` (literal, slow)
    SimGrid's default network model (LV08; CM02 without cross-traffic for ``per-node``), one
    Exec per piece, one Io per piece on a 100 GB/s disk, one Comm per (source, destination) pair.

Two network layouts: ``paper`` (one shared link of bandwidth B crosses every route between two
distinct nodes, the authors' platform) and ``per-node`` (each node has its own link of bandwidth
B to a non-blocking backbone, the paper's model assumption).

SimGrid is imported here only, inside the functions, and each simulation runs in a fresh child
process (one SimGrid Engine per process).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .mapping import POOL
from .plan import Plan

NETWORKS = ("paper", "per-node")
ENGINES = ("ptask", "activities")
LV08_LONE_FLOW = 0.97 / 1.05
DISK_BW = 100.0  # GB/s
LOOPBACK_BW = 1000.0  # GB/s
LATENCY = 20e-6  # s, per link
GIGA = 1e9
STAGES = ("S", "W", "R", "A")


@dataclass
class SimResult:
    """Outcome of one SimGrid run: makespan, stage timelines and idle times."""

    makespan: float
    network: str
    engine: str
    wall_time: float
    records: list[tuple[str, int, str, float, float]] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)

    def idle_times(self) -> dict[str, float]:
        """Idle time per component: a simulation waits between S(k) end and W(k) start (its
        analyses have not read step k-1 yet); an analysis waits between A(k-1) end (or time 0)
        and R(k) start (its simulation has not written step k yet)."""
        by: dict[tuple[str, int, str], tuple[float, float]] = {
            (c, k, s): (a, b) for c, k, s, a, b in self.records
        }
        idle: dict[str, float] = {}
        for c, kind in self.kinds.items():
            tot = 0.0
            k = 1
            while (c, k, "S" if kind == "sim" else "R") in by:
                if kind == "sim":
                    tot += by[(c, k, "W")][0] - by[(c, k, "S")][1]
                else:
                    prev = by[(c, k - 1, "A")][1] if k > 1 else 0.0
                    tot += by[(c, k, "R")][0] - prev
                k += 1
            idle[c] = tot
        return idle

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers (no timeline)."""
        idle = self.idle_times()
        sims = [c for c, k in self.kinds.items() if k == "sim"]
        anas = [c for c, k in self.kinds.items() if k == "analysis"]
        return {
            "simulated_makespan": self.makespan,
            "network": self.network,
            "engine": self.engine,
            "wall_time": self.wall_time,
            "idle_simulation_time": sum(idle[c] for c in sims),
            "idle_analysis_time": sum(idle[c] for c in anas),
            "idle_by_component": idle,
        }


def _node_ranges(plan: Plan) -> dict[str, list[int]]:
    out, start = {}, 0
    for b in plan.allocation.blocks:
        n = int(b.nodes)
        out[b.name] = list(range(start, start + n))
        start += n
    return out


def _run(plan: Plan, network: str, engine: str, bw_factor: float | None) -> SimResult:
    """Build the platform, start one actor per component, run SimGrid (call in a fresh process)."""
    import simgrid as sg

    t_wall = time.perf_counter()
    ens = plan.ensemble
    p = ens.platform
    ptask = engine == "ptask"
    args = ["coschedlab", "--log=root.thres:critical", "--log=xbt_cfg.thres:critical"]
    if ptask:
        args.append("--cfg=host/model:ptask_L07")
    elif network == "per-node":
        args += ["--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"]
    e = sg.Engine(args)
    if bw_factor is None:
        bw_factor = LV08_LONE_FLOW if (ptask and network == "paper") else 1.0
    zone = sg.NetZone.create_full_zone("cluster")
    used = sum(int(b.nodes) for b in plan.allocation.blocks)
    hosts = []
    for i in range(used):
        h = zone.create_host(f"node-{i}", p.core_speed * GIGA)
        h.core_count = p.cores
        hosts.append(h)
    disks = []
    for i, h in enumerate(hosts):
        if ptask:
            local = zone.create_link(f"storage-{i}", DISK_BW * GIGA).set_latency(0).seal()
        else:
            disks.append(h.create_disk(f"disk-{i}", DISK_BW * GIGA, DISK_BW * GIGA).seal())
            local = zone.create_link(f"loopback-{i}", LOOPBACK_BW * GIGA)
            local.set_sharing_policy(sg.Link.SharingPolicy.FATPIPE, None)
            local.set_latency(0).seal()
        zone.add_route(h.netpoint, h.netpoint, None, None, [sg.LinkInRoute(local)], False)
    bw = p.bandwidth * GIGA * bw_factor
    if network == "paper":
        shared = zone.create_link("shared", bw).set_latency(LATENCY).seal()
        for i in range(used):
            for j in range(i + 1, used):
                zone.add_route(
                    hosts[i].netpoint, hosts[j].netpoint, None, None, [sg.LinkInRoute(shared)], True
                )
    else:
        own = [
            zone.create_link(f"link-{i}", bw).set_latency(LATENCY / 2).seal() for i in range(used)
        ]
        for i in range(used):
            for j in range(i + 1, used):
                zone.add_route(
                    hosts[i].netpoint,
                    hosts[j].netpoint,
                    None,
                    None,
                    [sg.LinkInRoute(own[i]), sg.LinkInRoute(own[j])],
                    True,
                )
    zone.seal()

    ranges = _node_ranges(plan)
    place = plan.allocation.placement()
    records: list[tuple[str, int, str, float, float]] = []
    kinds: dict[str, str] = {}
    steps = ens.n_steps
    coupled = {s.name: [a.name for a in ens.coupled(s.name)] for s in ens.simulations}
    sem_r = {s.name: sg.Semaphore(0) for s in ens.simulations}
    sem_w = {a.name: sg.Semaphore(0) for a in ens.analyses}
    clock = sg.Engine.clock.fget if isinstance(sg.Engine.clock, property) else None

    def now() -> float:
        return sg.Engine.clock if clock is None else clock(e)

    def compute_task(idx: list[int], flops: float) -> tuple[list[Any], list[float], list[float]]:
        return [hosts[i] for i in idx], [flops] * len(idx), [0.0] * (len(idx) ** 2)

    def local_task(idx: list[int], nbytes: float) -> tuple[list[Any], list[float], list[float]]:
        n = len(idx)
        mat = [0.0] * (n * n)
        for q in range(n):
            mat[q * n + q] = nbytes
        return [hosts[i] for i in idx], [0.0] * n, mat

    def remote_task(
        src: list[int], dst: list[int], nbytes: float
    ) -> tuple[list[Any], list[float], list[float]]:
        allh = src + dst
        m = len(allh)
        mat = [0.0] * (m * m)
        for a in range(len(src)):
            for b in range(len(dst)):
                mat[a * m + len(src) + b] = nbytes
        return [hosts[i] for i in allh], [0.0] * m, mat

    run_ptask = sg.this_actor.parallel_execute

    def sim_actor(name: str) -> None:
        blk, n, c = place[name]
        idx = ranges[blk]
        s_task = compute_task(idx, ens.simulation(name).work * GIGA / (n * c))
        w_task = local_task(idx, ens.simulation(name).data * GIGA / n)
        readers = coupled[name]
        for k in range(1, steps + 1):
            t0 = now()
            run_ptask(*s_task)
            t1 = now()
            records.append((name, k, "S", t0, t1))
            if k > 1:
                for _ in readers:
                    sem_r[name].acquire()
            t2 = now()
            run_ptask(*w_task)
            records.append((name, k, "W", t2, now()))
            for a in readers:
                sem_w[a].release()

    def ana_actor(name: str, sim: str) -> None:
        blk, n, c = place[name]
        idx = ranges[blk]
        sidx = ranges[place[sim][0]]
        data = ens.simulation(sim).data * GIGA
        a_task = compute_task(idx, works[name] * GIGA / (n * c))
        if blk == place[sim][0]:
            r_task = local_task(idx, data / n)
        else:
            r_task = remote_task(sidx, idx, data / (n * len(sidx)))
        for k in range(1, steps + 1):
            sem_w[name].acquire()
            t0 = now()
            run_ptask(*r_task)
            t1 = now()
            records.append((name, k, "R", t0, t1))
            sem_r[sim].release()
            run_ptask(*a_task)
            records.append((name, k, "A", t1, now()))

    # --- activities engine: one actor per per-node piece, blocking single activities ---
    piece_sem: dict[tuple[str, int], Any] = {}

    def sim_piece(name: str, p: int) -> None:
        blk, n, c = place[name]
        host = ranges[blk][p]
        flops = ens.simulation(name).work * GIGA / (n * c)
        wbytes = int(ens.simulation(name).data * GIGA / n)
        readers = [(a, q) for a in coupled[name] for q in range(int(place[a][1]))]
        for k in range(1, steps + 1):
            t0 = now()
            sg.this_actor.execute(flops)
            t1 = now()
            records.append((name, k, "S", t0, t1, p))
            if k > 1:
                for _ in readers:
                    piece_sem[(name, p)].acquire()
            t2 = now()
            disks[host].write(wbytes)
            records.append((name, k, "W", t2, now(), p))
            for r in readers:
                piece_sem[r].release()

    def ana_piece(name: str, sim: str, q: int) -> None:
        blk, n, c = place[name]
        host = ranges[blk][q]
        sidx = ranges[place[sim][0]]
        flops = works[name] * GIGA / (n * c)
        data = ens.simulation(sim).data * GIGA
        colocated = blk == place[sim][0]
        for k in range(1, steps + 1):
            for _ in sidx:
                piece_sem[(name, q)].acquire()
            t0 = now()
            if colocated:
                disks[host].read(int(data / n))
            else:
                comms = [
                    sg.Comm.sendto_async(hosts[s], hosts[host], int(data / (n * len(sidx))))
                    for s in sidx
                ]
                sg.Comm.wait_all(comms)
            t1 = now()
            records.append((name, k, "R", t0, t1, q))
            for p in range(len(sidx)):
                piece_sem[(sim, p)].release()
            sg.this_actor.execute(flops)
            records.append((name, k, "A", t1, now(), q))

    works = {a.name: a.work for a in ens.analyses}
    for s in ens.simulations:
        kinds[s.name] = "sim"
    for a in ens.analyses:
        kinds[a.name] = "analysis"
    if ptask:
        for s in ens.simulations:
            sg.Actor.create(f"sim-{s.name}", hosts[ranges[place[s.name][0]][0]], sim_actor, s.name)
        for a in ens.analyses:
            sg.Actor.create(
                f"ana-{a.name}", hosts[ranges[place[a.name][0]][0]], ana_actor, a.name, a.simulation
            )
    else:
        for comp, (_blk, n, _c) in place.items():
            for p in range(int(n)):
                piece_sem[(comp, p)] = sg.Semaphore(0)
        for s in ens.simulations:
            for p, h in enumerate(ranges[place[s.name][0]]):
                sg.Actor.create(f"sim-{s.name}-{p}", hosts[h], sim_piece, s.name, p)
        for a in ens.analyses:
            for q, h in enumerate(ranges[place[a.name][0]]):
                sg.Actor.create(f"ana-{a.name}-{q}", hosts[h], ana_piece, a.name, a.simulation, q)
    e.run()
    if not ptask:  # merge the per-node pieces of each stage: first start, last end
        merged: dict[tuple[str, int, str], list[float]] = {}
        for c, k, st, a, b, _p in records:
            m = merged.setdefault((c, k, st), [a, b])
            m[0], m[1] = min(m[0], a), max(m[1], b)
        records[:] = [(c, k, st, a, b) for (c, k, st), (a, b) in merged.items()]
    makespan = max(r[4] for r in records)
    return SimResult(makespan, network, engine, time.perf_counter() - t_wall, records, kinds)


def _child(plan: Plan, network: str, engine: str, bw_factor: float | None, conn: Any) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # SimGrid prints its configuration banner on stderr
        conn.send(("ok", _run(plan, network, engine, bw_factor)))
    except BaseException as exc:  # pragma: no cover - reported to the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def check_options(network: str, engine: str) -> None:
    """Raise :class:`InputError` on an unknown network layout or engine."""
    if network not in NETWORKS:
        raise InputError(
            f"unknown network {network!r}; use one of {', '.join(NETWORKS)}", where="network"
        )
    if engine not in ENGINES:
        raise InputError(
            f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}", where="engine"
        )


def simulate(
    plan: Plan,
    network: str | None = None,
    engine: str = "ptask",
    bw_factor: float | None = None,
    in_process: bool = False,
) -> SimResult:
    """Simulate ``plan`` in SimGrid and return the simulated makespan and stage timelines.

    ``network`` defaults to the ensemble's platform layout. By default the run happens in a
    fresh child process (SimGrid allows one Engine per process); ``in_process=True`` runs it here
    (once per process).
    """
    network = network or plan.ensemble.platform.network
    check_options(network, engine)
    if in_process:
        return _run(plan, network, engine, bw_factor)
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(plan, network, engine, bw_factor, child))
    proc.start()
    child.close()
    try:
        status, payload = parent.recv()
    except EOFError:
        proc.join()
        raise RuntimeError(f"SimGrid child process died (exit code {proc.exitcode})") from None
    proc.join()
    if status != "ok":
        raise RuntimeError(f"SimGrid simulation failed: {payload}")
    return payload


def check_dependencies(result: SimResult, plan: Plan, tol: float = 1e-9) -> list[str]:
    """Violations of the stage order S(k)->W(k)->R(k)->A(k), W(k) after every coupled R(k-1),
    R(k) after its own A(k-1), and S(k) after W(k-1) (empty list: all hold).

    With the ``activities`` engine the records merge independent per-node pieces (first start,
    last end), so only the dependencies between components are checked there."""
    by = {(c, k, s): (a, b) for c, k, s, a, b in result.records}
    whole = result.engine == "ptask"
    ens = plan.ensemble
    bad = []
    for s in ens.simulations:
        for k in range(1, ens.n_steps + 1):
            if whole and by[(s.name, k, "W")][0] < by[(s.name, k, "S")][1] - tol:
                bad.append(f"W({k}) of {s.name} before S({k}) ends")
            if whole and k > 1 and by[(s.name, k, "S")][0] < by[(s.name, k - 1, "W")][1] - tol:
                bad.append(f"S({k}) of {s.name} before W({k - 1}) ends")
            for a in ens.coupled(s.name):
                if k > 1 and by[(s.name, k, "W")][0] < by[(a.name, k - 1, "R")][1] - tol:
                    bad.append(f"W({k}) of {s.name} before R({k - 1}) of {a.name} ends")
                if by[(a.name, k, "R")][0] < by[(s.name, k, "W")][1] - tol:
                    bad.append(f"R({k}) of {a.name} before W({k}) of {s.name} ends")
                if whole and by[(a.name, k, "A")][0] < by[(a.name, k, "R")][1] - tol:
                    bad.append(f"A({k}) of {a.name} before its R({k}) ends")
                if whole and k > 1 and by[(a.name, k, "R")][0] < by[(a.name, k - 1, "A")][1] - tol:
                    bad.append(f"R({k}) of {a.name} before its A({k - 1}) ends")
    return bad


__all__ = ["ENGINES", "NETWORKS", "POOL", "SimResult", "check_dependencies", "simulate"]
