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

``activities`` (default; compiled: pieces.pyx, pieces_engine.cpp)
    SimGrid's default models (LV08; CM02 without cross-traffic for ``per-node``), one actor per
    per-node piece, one Exec per piece, one Io per piece on a 100 GB/s disk, one transfer per
    (source, destination) pair. On the ``paper`` layout it also runs the authors' job manager
    (one job submission at a time; 1 kB per submission request, answer and completion notice
    over the shared link), which lets the pieces of a pool analysis drift apart and stagger
    their reads as in their simulator: within 0.36% of their WRENCH binary on the 22 plans of
    tests/insitu/data/authors_simulator_runs.csv. The paper layout's shared link is the only
    resource its flows cross, and LV08 gives each the same share (B x 0.97/1.05 / m for m
    flows): the engine serves them as a processor-sharing server (O(log m) per flow event,
    where SimGrid's solver re-shares all m flows; m reaches hundreds once a pool's reads are
    staggered), the same timelines as SimGrid's comms within 0.001%
    (tests/insitu/activities_oracle.py: the Python engine this one replaced, 7-40x slower).
``ptask`` (kept to reproduce the bundled docs/insitu_reproduction, produced with it)
    ``host/model:ptask_L07``. One component stage = one parallel task covering its n per-node
    pieces, which therefore progress in lockstep: no staggered pool reads (+6% / +23% / +34%
    over the authors' simulator at 10 / 30 / 100 steps on an EV pool analysis of 4 nodes).
    W(k) and a local R(k) are transfers on the node's storage route (100 GB/s); remote R(k)
    moves V/(n n') between every (simulation node, analysis node) pair. L07 gives a flow the
    full link bandwidth, so with the ``paper`` layout the shared link is set to B x 0.97/1.05,
    the rate a lone flow gets under SimGrid's default LV08 model.

Two network layouts: ``paper`` (one shared link of bandwidth B crosses every route between two
distinct nodes, the authors' platform) and ``per-node`` (each node has its own link of bandwidth
B to a non-blocking backbone, the paper's model assumption).

SimGrid is used here only (its Python bindings for ``ptask``, its C++ library through the
compiled module for ``activities``), inside the functions, and each simulation runs in a fresh
child process (one SimGrid Engine per process).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .mapping import POOL
from .plan import Plan
from .spec import NETWORKS, check_choice

ENGINES = ("activities", "ptask")
LV08_BW_FACTOR = 0.97
#: A lone LV08 flow between two hosts: the 0.97 factor and 5% for the reverse cross-traffic.
LV08_LONE_FLOW = LV08_BW_FACTOR / 1.05
DISK_BW = 100.0  # GB/s
LOOPBACK_BW = 1000.0  # GB/s
#: Link latency (s): 0 on the authors' platform (solver/generator.py), 20 us per link per-node.
LATENCY = {"paper": 0.0, "per-node": 20e-6}
LOOPBACKS = ("per-node", "shared")
IO_MODELS = ("store-and-forward", "fluid")
GIGA = 1e9
#: The control messages of the authors' WRENCH job manager (bytes): submitting a job to a node's
#: compute service (request and answer) and the job's completion notice, 1024 each by default
#: (WRENCH 2.1 include/wrench/services/compute/bare_metal/BareMetalComputeService.h:78-80).
CONTROL_BYTES = 1024.0
STAGES = ("S", "W", "R", "A")
#: Our stage letters and the authors' job names (their src/Controller.cpp): compute job, data
#: write job, data read job, analysis job.
AUTHORS_STAGES = {"S": "compute", "W": "data_write", "R": "data_read", "A": "analysis"}
#: the columns of :meth:`SimResult.timeline`'s rows (and of ``insitu simulate --timeline``)
TIMELINE = ("job", "simulation", "analysis", "stage", "step", "node", "start", "end")


@dataclass
class SimResult:
    """Outcome of one SimGrid run: makespan, stage timelines and idle times."""

    makespan: float
    network: str
    engine: str
    wall_time: float
    records: list[tuple[str, int, str, float, float]] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)
    #: One record per node piece or class of identical pieces: (component, step, stage, start,
    #: end, position in the component's nodes, -1 = all of them).
    pieces: list[tuple[str, int, str, float, float, int]] = field(default_factory=list)

    def piece_records(self) -> list[tuple[str, int, str, float, float, int]]:
        """:attr:`pieces`, or, for a result without per-node detail, the merged stages as
        records of every node (-1)."""
        return self.pieces or [(c, k, s, a, b, -1) for c, k, s, a, b in self.records]

    def timeline(self, plan: Plan) -> list[dict[str, Any]]:
        """The per-node stage timeline under the authors' names (their src/Controller.cpp):
        one row per job ``member_<sim>[_<analysis>]_<stage>_job_step_<k>_node_<node>`` with
        stage compute / data_write / data_read / analysis, nodes numbered 0.. in allocation
        order (simulation groups, then the pool), sorted by start time."""
        ranges = _node_ranges(plan)
        place = plan.allocation.placement()
        sim_of = {a.name: a.simulation for a in plan.ensemble.analyses}
        rows = []
        for c, k, s, a, b, piece in self.piece_records():
            nodes = ranges[place[c][0]]
            sim, ana = sim_of.get(c, c), (c if c in sim_of else "")
            stage = AUTHORS_STAGES[s]
            prefix = f"member_{sim}_{ana}_" if ana else f"member_{sim}_"
            for node in nodes if piece < 0 else [nodes[piece]]:
                job = f"{prefix}{stage}_job_step_{k}_node_{node}"
                rows.append(dict(zip(TIMELINE, (job, sim, ana, stage, k, node, a, b), strict=True)))
        rows.sort(key=lambda r: (r["start"], r["job"]))
        return rows

    def idle_times(self) -> dict[str, float]:
        """Idle time per component: a simulation waits between S(k) end and W(k) start (its
        analyses have not read step k-1 yet); an analysis waits between A(k-1) end (or time 0)
        and R(k) start (its simulation has not written step k yet). Node pieces that run
        apart are followed one by one and averaged."""
        src = self.piece_records()
        by = {(c, k, s, q): (a, b) for c, k, s, a, b, q in src}
        chains = sorted({(c, q) for c, _k, _s, _a, _b, q in src})
        per: dict[str, list[float]] = {}
        for c, q in chains:
            sim = self.kinds.get(c) == "sim"
            tot, k = 0.0, 1
            while (c, k, "S" if sim else "R", q) in by:
                if sim:
                    tot += by[(c, k, "W", q)][0] - by[(c, k, "S", q)][1]
                else:
                    prev = by[(c, k - 1, "A", q)][1] if k > 1 else 0.0
                    tot += by[(c, k, "R", q)][0] - prev
                k += 1
            per.setdefault(c, []).append(tot)
        return {c: sum(per.get(c, [0.0])) / len(per.get(c, [0.0])) for c in self.kinds}

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


def add_hosts(zone: Any, plan: Plan) -> list[Any]:
    """The plan's allocated nodes as hosts ``node-0 .. node-(n-1)`` of SimGrid ``zone``, each
    with the platform's core speed and cores."""
    p = plan.ensemble.platform
    hosts = []
    for i in range(sum(int(b.nodes) for b in plan.allocation.blocks)):
        h = zone.create_host(f"node-{i}", p.core_speed * GIGA)
        h.core_count = p.cores
        hosts.append(h)
    return hosts


def add_network(sg: Any, zone: Any, hosts: list[Any], bw: float, latency: float,
                network: str) -> Any:  # fmt: skip
    """The routes between every two of ``hosts`` in SimGrid ``zone`` (module ``sg``): the
    ``paper`` layout's ONE shared link of bandwidth ``bw`` (returned), or (``per-node``) a link
    of ``bw`` per node with half the latency each, two links a route (None returned)."""
    n, shared = len(hosts), None
    if network == "paper":
        shared = zone.create_link("shared", bw).set_latency(latency).seal()
    else:
        own = [zone.create_link(f"link-{i}", bw).set_latency(latency / 2).seal() for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            links = [shared] if shared is not None else [own[i], own[j]]
            route = [sg.LinkInRoute(x) for x in links]
            zone.add_route(hosts[i].netpoint, hosts[j].netpoint, None, None, route, True)
    return shared


def read_flows(
    sim_nodes: list[int], ana_nodes: list[int], data: float
) -> list[tuple[int, int, float]]:
    """The remote reads of one step of a pool analysis: (source, destination, amount). Every
    analysis node reads data/(n n') from every simulation node, as the authors' Controller does
    in the version that produced their published runs (``src/Controller.cpp`` lines 186-193:
    one ``addFileReadAction`` per simulation node with ``num_bytes_to_read`` = V/(n n'), all in
    the node's ``data_read`` job, so they run at once). Each simulation node serves V/n per pool
    analysis, whatever n and n'."""
    each = data / (len(sim_nodes) * len(ana_nodes))
    return [(s, d, each) for d in ana_nodes for s in sim_nodes]


def _run(
    plan: Plan,
    network: str,
    engine: str,
    bw_factor: float | None,
    loopback: str | None = None,
    io: str = "store-and-forward",
    control: bool | None = None,
) -> SimResult:
    """Build the platform, run SimGrid with ``engine`` (call in a fresh process).

    ``io="store-and-forward"`` moves a file as WRENCH's storage service does with a full
    buffer: the whole file is read from the disk, then sent (a remote read: the simulation
    node's disk, then the link; a local write: the loopback, then the disk); ``"fluid"`` lets
    disk and network run at once (the slower one sets the pace).

    ``loopback="shared"`` routes every node's local transfers through ONE 1000 GB/s link, as
    the authors' generated platform declares it; ``per-node`` (default) gives each node its own.
    The authors' IDEAL runs (simulated / model 1.022-1.045 on 64 and 128 nodes) rule the shared
    reading out: it gives 1.056-1.155 on the same points, per-node 1.016-1.019 (docs/insitu.md).

    ``control`` (``activities`` on the ``paper`` layout only; default on there) simulates the
    authors' job manager: every job of a node piece starts when the manager's submission
    (request and answer, :data:`CONTROL_BYTES` each, one submission at a time) reaches the node
    over the shared link, and its children are released when its completion notice has crossed
    it. These microseconds are what lets the pieces of a pool analysis drift apart in their
    simulator: a node that starts its read first reads with fewer flows on the link, ends
    first, and starts its next read earlier still, until the reads are staggered."""
    check_options(network, engine, io)
    loopback = loopback or "per-node"
    if loopback not in LOOPBACKS:
        raise InputError(f"unknown loopback {loopback!r}; use {' or '.join(LOOPBACKS)}")
    store_forward = io == "store-and-forward"
    if control and (engine != "activities" or network != "paper"):
        raise InputError(
            "the job manager's messages are simulated with --network paper and "
            "the activities engine only",
            where="control",
        )
    if engine == "activities":
        return _run_pieces(plan, network, bw_factor, loopback, store_forward, control)
    import simgrid as sg

    t_wall = time.perf_counter()
    ens = plan.ensemble
    p = ens.platform
    args = ["coschedlab", "--log=root.thres:critical", "--log=xbt_cfg.thres:critical"]
    e = sg.Engine([*args, "--cfg=host/model:ptask_L07"])
    if bw_factor is None:
        bw_factor = LV08_LONE_FLOW if network == "paper" else 1.0
    # ptask: a local transfer is one transfer on the node's storage link (the disk); store and
    # forward adds the loopback time (1000 GB/s x 0.97: LV08 counts no cross-traffic on a
    # host's route to itself) to it
    lo_scale = 1 + DISK_BW / (LOOPBACK_BW * LV08_BW_FACTOR) if store_forward else 1.0
    zone = sg.NetZone.create_full_zone("cluster")
    hosts = add_hosts(zone, plan)
    latency = LATENCY[network]
    shared_lo = None
    if loopback == "shared":
        shared_lo = zone.create_link("loopback", LOOPBACK_BW * GIGA * bw_factor).set_latency(0)
        shared_lo.seal()
    for i, h in enumerate(hosts):
        # the disk as a link: W and a local R cross it
        route = [zone.create_link(f"storage-{i}", DISK_BW * GIGA).set_latency(0).seal()]
        if shared_lo is not None:
            route.append(shared_lo)
        zone.add_route(
            h.netpoint, h.netpoint, None, None, [sg.LinkInRoute(x) for x in route], False
        )
    add_network(sg, zone, hosts, p.bandwidth * GIGA * bw_factor, latency, network)
    zone.seal()

    ranges = _node_ranges(plan)
    place = plan.allocation.placement()
    records: list[Any] = []  # (component, step, stage, start, end, piece) while running
    steps = ens.n_steps
    coupled = {s.name: [a.name for a in ens.coupled(s.name)] for s in ens.simulations}
    sem_r = {s.name: sg.Semaphore(0) for s in ens.simulations}
    classes: dict[str, dict[tuple[str, int], list[int]]] = {}
    sem_w_class: dict[tuple[str, int], Any] = {}
    clock = sg.Engine.clock.fget if isinstance(sg.Engine.clock, property) else None

    def now() -> float:
        return sg.Engine.clock if clock is None else clock(e)

    def compute_task(idx: list[int], flops: float) -> tuple[list[Any], list[float], list[float]]:
        return [hosts[i] for i in idx], [_amount(flops)] * len(idx), [0.0] * (len(idx) ** 2)

    def local_task(
        idx: list[int], nbytes: float | list[float]
    ) -> tuple[list[Any], list[float], list[float]]:
        n = len(idx)
        amounts = [_amount(x) for x in (nbytes if isinstance(nbytes, list) else [nbytes] * n)]
        if n == 1:  # L07 skips the transfers of a one-host task: list the host twice
            return [hosts[idx[0]]] * 2, [0.0, 0.0], [0.0, amounts[0], 0.0, 0.0]
        mat = [0.0] * (n * n)
        for q in range(n):
            mat[q * n + q] = amounts[q]
        return [hosts[i] for i in idx], [0.0] * n, mat

    def flow_task(
        pairs: list[tuple[int, int]], nbytes: float
    ) -> tuple[list[Any], list[float], list[float]]:
        """One flow of ``nbytes`` per (source node, destination node) pair."""
        allh = sorted({i for pr in pairs for i in pr})
        pos = {h: j for j, h in enumerate(allh)}
        m = len(allh)
        mat = [0.0] * (m * m)
        for src, dst in pairs:
            mat[pos[src] * m + pos[dst]] += _amount(nbytes)
        return [hosts[i] for i in allh], [0.0] * m, mat

    run_ptask = sg.this_actor.parallel_execute

    def sim_actor(name: str) -> None:
        blk, n, c = place[name]
        idx = ranges[blk]
        s_task = compute_task(idx, ens.simulation(name).work * GIGA / (n * c))
        w_task = local_task(idx, ens.simulation(name).data * GIGA / n * lo_scale)
        readers = [key for a in coupled[name] for key in classes[a]]
        for k in range(1, steps + 1):
            t0 = now()
            run_ptask(*s_task)
            t1 = now()
            records.append((name, k, "S", t0, t1, -1))
            if k > 1:
                for _ in readers:
                    sem_r[name].acquire()
            t2 = now()
            run_ptask(*w_task)
            records.append((name, k, "W", t2, now(), -1))
            for key in readers:
                sem_w_class[key].release()

    def ana_actor(name: str, sim: str, key: tuple[str, int], pos: list[int]) -> None:
        blk, n, c = place[name]
        idx = [ranges[blk][q] for q in pos]
        sidx = ranges[place[sim][0]]
        data = ens.simulation(sim).data * GIGA
        a_task = compute_task(idx, works[name] * GIGA / (n * c))
        d_task = None
        copies = 1
        if blk == place[sim][0]:
            r_task = local_task(idx, data / n * lo_scale)
        else:
            flows = [f for f in read_flows(sidx, ranges[blk], data) if f[1] in idx]
            # LV08 shares the one link flow by flow, L07 task by task: a read of m flows runs
            # as m / flow_unit copies of its task, each with that share of the bytes
            copies = len(flows) // flow_unit if network == "paper" else 1
            r_task = flow_task([(src, dst) for src, dst, _ in flows], flows[0][2] / copies)
            if store_forward:  # each source reads what it sends to this class, then sends
                served: dict[int, float] = {}
                for src, _, amount in flows:
                    served[src] = served.get(src, 0.0) + amount
                d_task = local_task(list(served), list(served.values()))
        for k in range(1, steps + 1):
            sem_w_class[key].acquire()
            t0 = now()
            if d_task is not None:
                run_ptask(*d_task)
            if blk == place[sim][0] or copies == 1:
                run_ptask(*r_task)
            else:
                for x in [sg.this_actor.exec_init(*r_task).start() for _ in range(copies)]:
                    x.wait()
            t1 = now()
            for q in pos:
                records.append((name, k, "R", t0, t1, q))
            sem_r[sim].release()
            run_ptask(*a_task)
            t2 = now()
            for q in pos:
                records.append((name, k, "A", t1, t2, q))

    works = {a.name: a.work for a in ens.analyses}
    # the flows of every pool analysis' read (n n'); their gcd is the unit of link shares
    remote = [
        len(ranges[place[a.simulation][0]]) * len(ranges[place[a.name][0]])
        for a in ens.analyses
        if place[a.name][0] != place[a.simulation][0]
    ]
    flow_unit = math.gcd(*remote, 0) or 1
    for a in ens.analyses:
        # the pieces (positions in its nodes) that see the same conditions, keyed (name,
        # class), each class its own parallel tasks: every simulation node serves the same
        # reads (V/n per pool analysis, read_flows), so an analysis' pieces form one class
        classes[a.name] = {(a.name, 0): list(range(len(ranges[place[a.name][0]])))}
        for key, pos in classes[a.name].items():
            sem_w_class[key] = sg.Semaphore(0)
            host = hosts[ranges[place[a.name][0]][pos[0]]]
            sg.Actor.create(f"ana-{key}", host, ana_actor, a.name, a.simulation, key, pos)
    for s in ens.simulations:
        sg.Actor.create(f"sim-{s.name}", hosts[ranges[place[s.name][0]][0]], sim_actor, s.name)
    e.run()
    return _result(records, network, engine, t_wall, plan)


def _run_pieces(
    plan: Plan,
    network: str,
    bw_factor: float | None,
    loopback: str,
    store_forward: bool,
    control: bool | None,
) -> SimResult:
    """The ``activities`` engine (see :func:`_run`): pieces.pyx / pieces_engine.cpp run one
    SimGrid actor per per-node piece in C++ (the Python bindings give every actor a thread of
    its own and are 7-40x slower)."""
    try:
        from . import pieces  # compiled against libsimgrid; imports no Python SimGrid
    except ImportError as exc:
        raise RuntimeError(
            "the activities engine is not built: it needs SimGrid's C++ headers at build time "
            f"(Debian libsimgrid-dev), then `python setup.py build_ext --inplace` ({exc}); "
            "--engine ptask needs python3-simgrid only"
        ) from None

    t_wall = time.perf_counter()
    if control is None:
        control = network == "paper"
    ens = plan.ensemble
    p = ens.platform
    factor = 1.0 if bw_factor is None else bw_factor
    ranges = _node_ranges(plan)
    place = plan.allocation.placement()
    names = [s.name for s in ens.simulations] + [a.name for a in ens.analyses]
    index = {c: i for i, c in enumerate(names)}
    comps: list[dict[str, Any]] = []
    for s in ens.simulations:
        blk, n, c = place[s.name]
        readers = [
            x
            for a in ens.coupled(s.name)
            for q in range(int(place[a.name][1]))
            for x in (index[a.name], q)
        ]
        comps.append(
            {
                "is_sim": True,
                "sim": -1,
                "hosts": ranges[blk],
                "flops": s.work * GIGA / (n * c),
                "bytes": float(int(s.data * GIGA / n)),
                "colocated": False,
                "readers": readers,
            }
        )
    for a in ens.analyses:
        blk, n, c = place[a.name]
        sblk = place[a.simulation][0]
        data = ens.simulation(a.simulation).data * GIGA
        colocated = blk == sblk
        amount = data / n if colocated else data / (len(ranges[sblk]) * len(ranges[blk]))
        comps.append(
            {
                "is_sim": False,
                "sim": index[a.simulation],
                "hosts": ranges[blk],
                "flops": a.work * GIGA / (n * c),
                "bytes": float(int(amount)),
                "colocated": colocated,
                "readers": [],
            }
        )
    cfg = {
        "n_hosts": sum(int(b.nodes) for b in plan.allocation.blocks),
        "speed": p.core_speed * GIGA,
        "cores": p.cores,
        "bandwidth": p.bandwidth * GIGA * factor,
        "latency": LATENCY[network],
        "disk_bw": DISK_BW * GIGA,
        "loopback_bw": LOOPBACK_BW * GIGA,
        "shared_loopback_bw": LOOPBACK_BW * GIGA * factor if loopback == "shared" else 0.0,
        "paper": network == "paper",
        "store_forward": store_forward,
        "control": bool(control),
        "control_bytes": CONTROL_BYTES,
        "shared_flow_rate": p.bandwidth * GIGA * factor * LV08_LONE_FLOW,
        "steps": ens.n_steps,
    }
    pieces_out = [
        (names[c], k, STAGES[st], a, b, q) for c, k, st, a, b, q in pieces.run(cfg, comps)
    ]
    return _result(pieces_out, network, "activities", t_wall, plan)


def _result(
    pieces: list[tuple[str, int, str, float, float, int]],
    network: str,
    engine: str,
    t_wall: float,
    plan: Plan,
) -> SimResult:
    """The :class:`SimResult` of per-piece records: per stage, the first start and last end."""
    merged: dict[tuple[str, int, str], list[float]] = {}
    for c, k, st, a, b, _p in pieces:
        m = merged.setdefault((c, k, st), [a, b])
        m[0], m[1] = min(m[0], a), max(m[1], b)
    records = [(c, k, st, a, b) for (c, k, st), (a, b) in merged.items()]
    kinds = {s.name: "sim" for s in plan.ensemble.simulations}
    kinds.update({a.name: "analysis" for a in plan.ensemble.analyses})
    makespan = max(r[4] for r in records)
    return SimResult(
        makespan, network, engine, time.perf_counter() - t_wall, records, kinds, list(pieces)
    )


#: amounts (bytes, flops) below this are nothing: SimGrid's parallel-task model never finishes
#: an action of a few 1e-300 bytes (found by the property test: 2.2e-308 GB/step hung)
TINY = 1e-6
#: a SimGrid run that takes longer than this is stopped (a hang is an error, never a wait)
CHILD_TIMEOUT_S = 3600.0
#: the most component steps (steps x simulations and analyses) one SimGrid run simulates:
#: each takes about 0.6 ms and 2 kB, so this bound is some minutes and about 1 GB (the
#: paper's largest ensemble, 160 components x 100 steps, is 16,000)
MOST_COMPONENT_STEPS = 500_000


def check_size(steps: int, components: int, where: str = "n_steps") -> None:
    """Refuse a SimGrid run beyond :data:`MOST_COMPONENT_STEPS` (it would run for hours with
    no sign of life, then be stopped): one line saying how many steps fit."""
    if steps * components > MOST_COMPONENT_STEPS:
        fit = max(MOST_COMPONENT_STEPS // max(components, 1), 1)
        raise InputError(
            f"{steps:,} steps x {components:,} simulations and analyses is too long to "
            f"simulate in SimGrid (at most {MOST_COMPONENT_STEPS:,} component steps: "
            f"{fit:,} steps here); the model makespan ('insitu plan') scales with the steps",
            where=where,
        )


def _amount(x: float) -> float:
    """``x`` bytes or flops, or 0 when it is below :data:`TINY`."""
    return x if x >= TINY else 0.0


def _child(conn: Any, *args: Any) -> None:
    """:func:`_run` of ``args`` in a child process: its result, or its error, sent on ``conn``."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # SimGrid prints its configuration banner on stderr
        conn.send(("ok", _run(*args)))
    except BaseException as exc:  # pragma: no cover - reported to the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def check_options(network: str, engine: str, io: str = "store-and-forward") -> None:
    """Raise :class:`InputError` on an unknown network layout, engine or I/O model."""
    check_choice(io, IO_MODELS, "I/O model", "--io")
    check_choice(network, NETWORKS, "network", "--network")
    check_choice(engine, ENGINES, "engine", "--engine")


def simulate(
    plan: Plan,
    network: str | None = None,
    engine: str = "activities",
    bw_factor: float | None = None,
    in_process: bool = False,
    loopback: str | None = None,
    io: str = "store-and-forward",
    control: bool | None = None,
) -> SimResult:
    """Simulate ``plan`` in SimGrid and return the simulated makespan and stage timelines.

    ``network`` defaults to the ensemble's platform layout. By default the run happens in a
    fresh child process (SimGrid allows one Engine per process); ``in_process=True`` runs it here
    (once per process). ``engine``: ``activities`` (default) or ``ptask`` (see the module).
    ``control``: simulate the authors' job manager messages (default: with the ``activities``
    engine on the ``paper`` layout; see :func:`_run`).
    """
    network = network or plan.ensemble.platform.network
    check_options(network, engine, io)
    ens = plan.ensemble
    check_size(ens.n_steps, len(ens.simulations) + len(ens.analyses))
    args = (plan, network, engine, bw_factor, loopback, io, control)  # _run's, here or in a child
    if in_process:
        return _run(*args)
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, *args))
    proc.start()
    child.close()
    try:
        if not parent.poll(CHILD_TIMEOUT_S):
            proc.kill()
            proc.join()
            raise RuntimeError(f"SimGrid simulation did not finish in {CHILD_TIMEOUT_S:g} s")
        status, payload = parent.recv()
    except EOFError:
        proc.join()
        raise RuntimeError(f"SimGrid child process died (exit code {proc.exitcode})") from None
    proc.join()
    if status != "ok":
        raise RuntimeError(f"SimGrid simulation failed: {payload}")
    return payload


def check_dependencies(result: SimResult, plan: Plan, tol: float = 1e-9) -> list[str]:
    """Violations of the stage order (empty list: all hold). Between components, on the merged
    stages (first start, last end): W(k) after every coupled R(k-1), R(k) after W(k) of its
    simulation. Inside a component, node piece by node piece when the result has pieces:
    S(k) -> W(k) -> S(k+1) and R(k) -> A(k) -> R(k+1)."""
    by = {(c, k, s): (a, b) for c, k, s, a, b in result.records}
    ens = plan.ensemble
    bad = []
    for s in ens.simulations:
        for k in range(1, ens.n_steps + 1):
            for a in ens.coupled(s.name):
                if k > 1 and by[(s.name, k, "W")][0] < by[(a.name, k - 1, "R")][1] - tol:
                    bad.append(f"W({k}) of {s.name} before R({k - 1}) of {a.name} ends")
                if by[(a.name, k, "R")][0] < by[(s.name, k, "W")][1] - tol:
                    bad.append(f"R({k}) of {a.name} before W({k}) of {s.name} ends")
    piece = {(c, k, st, q): (a, b) for c, k, st, a, b, q in result.piece_records()}
    order = {"W": ("S", 0), "S": ("W", -1), "A": ("R", 0), "R": ("A", -1)}
    for (c, k, st, q), (start, _end) in piece.items():
        before, dk = order[st]
        prev = piece.get((c, k + dk, before, q))
        if prev is not None and start < prev[1] - tol:
            bad.append(f"{st}({k}) of {c} (node piece {q}) before {before}({k + dk}) ends")
    return bad


__all__ = ["ENGINES", "NETWORKS", "POOL", "SimResult", "check_dependencies", "simulate"]
