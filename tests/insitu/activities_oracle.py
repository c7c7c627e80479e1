"""The ``activities`` engine in Python (SimGrid's Python bindings), the oracle of the compiled
one (src/coschedlab/insitu/pieces_engine.cpp): the same platform, one actor per per-node
piece, the same activities in the same order, and the authors' job manager's messages as real
SimGrid comms over the shared link (the compiled engine gives each message the duration such a
comm has at the link's current share, without creating it).

It was the package's engine until the compiled one replaced it (7-40x faster: the Python
bindings run every actor in a thread of its own). Run it in a fresh process:
``run_in_child(plan, ...)``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from typing import Any

from coschedlab.insitu.plan import Plan
from coschedlab.insitu.simulate import (
    CONTROL_BYTES,
    DISK_BW,
    GIGA,
    LATENCY,
    LOOPBACK_BW,
    SimResult,
    _node_ranges,
    _result,
    add_hosts,
    add_network,
    read_flows,
)


def run_activities(
    plan: Plan,
    network: str = "paper",
    loopback: str = "per-node",
    io: str = "store-and-forward",
    control: bool | None = None,
) -> SimResult:
    """Simulate ``plan`` with one Python actor per per-node piece (call in a fresh process)."""
    import simgrid as sg

    store_forward = io == "store-and-forward"
    t_wall = time.perf_counter()
    ens = plan.ensemble
    p = ens.platform
    args = ["coschedlab", "--log=root.thres:critical", "--log=xbt_cfg.thres:critical"]
    if network == "per-node":
        args += ["--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"]
    e = sg.Engine(args)
    zone = sg.NetZone.create_full_zone("cluster")
    hosts = add_hosts(zone, plan)
    disks = []
    latency = LATENCY[network]
    shared_lo = None
    if loopback == "shared":
        shared_lo = zone.create_link("loopback", LOOPBACK_BW * GIGA).set_latency(0)
        shared_lo.seal()
    for i, h in enumerate(hosts):
        disks.append(h.create_disk(f"disk-{i}", DISK_BW * GIGA, DISK_BW * GIGA).seal())
        if shared_lo is not None:
            local = shared_lo
        else:
            local = zone.create_link(f"loopback-{i}", LOOPBACK_BW * GIGA)
            local.set_sharing_policy(sg.Link.SharingPolicy.FATPIPE, None)
            local = local.set_latency(0).seal()
        zone.add_route(h.netpoint, h.netpoint, None, None, [sg.LinkInRoute(local)], False)
    shared = add_network(sg, zone, hosts, p.bandwidth * GIGA, latency, network)
    # the authors' job manager runs on UserHost, whose route to every node is the shared link
    ctl = None
    if control is None:
        control = network == "paper"
    if control:
        ctl = zone.create_host("controller", p.core_speed * GIGA)
        for h in hosts:
            zone.add_route(ctl.netpoint, h.netpoint, None, None, [sg.LinkInRoute(shared)], True)
    zone.seal()

    ranges = _node_ranges(plan)
    place = plan.allocation.placement()
    records: list[Any] = []
    steps = ens.n_steps
    coupled = {s.name: [a.name for a in ens.coupled(s.name)] for s in ens.simulations}
    clock = sg.Engine.clock.fget if isinstance(sg.Engine.clock, property) else None

    def now() -> float:
        return sg.Engine.clock if clock is None else clock(e)

    piece_sem: dict[tuple[str, int], Any] = {}
    jm_box = sg.Mailbox.by_name("job-manager")

    def job_manager() -> None:
        sg.Actor.self().daemonize()
        while True:
            host, go = jm_box.get()
            sg.Comm.sendto(ctl, hosts[host], int(CONTROL_BYTES))
            go.release()
            sg.Comm.sendto(hosts[host], ctl, int(CONTROL_BYTES))

    def submit(host: int) -> None:
        if ctl is not None:
            go = sg.Semaphore(0)
            jm_box.put((host, go), 0)
            go.acquire()

    def done(host: int) -> None:
        if ctl is not None:
            sg.Comm.sendto(hosts[host], ctl, int(CONTROL_BYTES))

    def local_io(host: int, nbytes: int, write: bool) -> None:
        if store_forward:
            if write:
                sg.Comm.sendto(hosts[host], hosts[host], nbytes)
                disks[host].write(nbytes)
            else:
                disks[host].read(nbytes)
                sg.Comm.sendto(hosts[host], hosts[host], nbytes)
            return
        if shared_lo is None:
            (disks[host].write if write else disks[host].read)(nbytes)
            return
        act = (disks[host].write_async if write else disks[host].read_async)(nbytes)
        sg.Comm.sendto(hosts[host], hosts[host], nbytes)
        act.wait()

    def sim_piece(name: str, p: int) -> None:
        blk, n, c = place[name]
        host = ranges[blk][p]
        flops = ens.simulation(name).work * GIGA / (n * c)
        wbytes = int(ens.simulation(name).data * GIGA / n)
        readers = [(a, q) for a in coupled[name] for q in range(int(place[a][1]))]
        for k in range(1, steps + 1):
            submit(host)
            t0 = now()
            sg.this_actor.execute(flops)
            records.append((name, k, "S", t0, now(), p))
            done(host)
            if k > 1:
                for _ in readers:
                    piece_sem[(name, p)].acquire()
            submit(host)
            t2 = now()
            local_io(host, wbytes, True)
            records.append((name, k, "W", t2, now(), p))
            done(host)
            for r in readers:
                piece_sem[r].release()

    def ana_piece(name: str, sim: str, q: int) -> None:
        blk, n, c = place[name]
        host = ranges[blk][q]
        sidx = ranges[place[sim][0]]
        flops = works[name] * GIGA / (n * c)
        data = ens.simulation(sim).data * GIGA
        colocated = blk == place[sim][0]
        flows = (
            [] if colocated else [f for f in read_flows(sidx, ranges[blk], data) if f[1] == host]
        )
        amount = int(flows[0][2]) if flows else 0
        for k in range(1, steps + 1):
            for _ in sidx:
                piece_sem[(name, q)].acquire()
            submit(host)
            t0 = now()
            if colocated:
                local_io(host, int(data / n), False)
            elif store_forward:  # each read: the source's disk, then the link, all at once
                ios = [disks[src].read_async(int(b)) for src, _, b in flows]
                srcs = [src for src, _, _ in flows]
                comms = []
                while ios:
                    j = sg.Io.wait_any(ios)
                    ios.pop(j)
                    comms.append(sg.Comm.sendto_async(hosts[srcs.pop(j)], hosts[host], amount))
                sg.Comm.wait_all(comms)
            else:
                comms = [sg.Comm.sendto_async(hosts[s], hosts[host], amount) for s, _, _ in flows]
                sg.Comm.wait_all(comms)
            records.append((name, k, "R", t0, now(), q))
            done(host)
            for p in range(len(sidx)):
                piece_sem[(sim, p)].release()
            submit(host)
            t1 = now()
            sg.this_actor.execute(flops)
            records.append((name, k, "A", t1, now(), q))
            done(host)

    works = {a.name: a.work for a in ens.analyses}
    for comp, (_blk, n, _c) in place.items():
        for q in range(int(n)):
            piece_sem[(comp, q)] = sg.Semaphore(0)
    for s in ens.simulations:
        for q, h in enumerate(ranges[place[s.name][0]]):
            sg.Actor.create(f"sim-{s.name}-{q}", hosts[h], sim_piece, s.name, q)
    for a in ens.analyses:
        for q, h in enumerate(ranges[place[a.name][0]]):
            sg.Actor.create(f"ana-{a.name}-{q}", hosts[h], ana_piece, a.name, a.simulation, q)
    if ctl is not None:
        sg.Actor.create("job-manager", ctl, job_manager)
    e.run()
    return _result(records, network, "activities", t_wall, plan)


def _child(conn: Any, plan: Plan, kwargs: dict[str, Any]) -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # SimGrid's banner
    conn.send(run_activities(plan, **kwargs))
    conn.close()


def run_in_child(plan: Plan, **kwargs: Any) -> SimResult:
    """:func:`run_activities` in a fresh forked process (one SimGrid Engine per process)."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, plan, kwargs))
    proc.start()
    child.close()
    out = parent.recv()
    proc.join()
    return out
