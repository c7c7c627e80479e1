"""Co-ALLOC and EV-ALLOC resource allocations (Do et al., Section IV-B, Theorems 3 and 4).

An allocation is a list of *blocks* (co-scheduling allocations): one per simulation group
<S_i u m(S_i)> and, when the mapping has analyses in P^NC, one analysis-only block ``pool``.
Each block has a number of nodes and, for each component in it, a number of cores per node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scipy.optimize import brentq

from ..errors import InputError
from .mapping import POOL, Mapping
from .rounding import sum_preserving_round, threshold_round
from .spec import Ensemble

HEURISTICS = ("co", "ev")
#: Integer rounding rules: the authors' ``solver/scheduler.py`` or ours (see integer_allocation).
ROUNDINGS = ("authors", "min-time")


@dataclass(frozen=True)
class Block:
    """One co-scheduling allocation: ``nodes`` nodes, ``cores`` per node for each component."""

    name: str
    nodes: float
    cores: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Allocation:
    """Blocks plus how they were computed."""

    blocks: tuple[Block, ...]
    integer: bool
    node_heuristic: str = "co"
    core_heuristic: str = "co"

    def block(self, name: str) -> Block:
        """The block called ``name`` (a simulation name or ``pool``)."""
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def placement(self) -> dict[str, tuple[str, float, float]]:
        """component -> (block name, nodes, cores per node)."""
        return {c: (b.name, b.nodes, k) for b in self.blocks for c, k in b.cores}

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (the ``allocation`` key of an ensemble file)."""

        def num(x: float) -> float | int:
            return int(x) if self.integer else float(x)

        return {
            b.name: {"nodes": num(b.nodes), "cores": {c: num(k) for c, k in b.cores}}
            for b in self.blocks
        }


def _groups(ens: Ensemble, mapping: Mapping) -> list[tuple[str, list[str]]]:
    return [(s.name, [s.name, *mapping.with_sim(s.name)]) for s in ens.simulations]


def check_feasible(ens: Ensemble, mapping: Mapping) -> None:
    """Raise :class:`InputError` if the platform cannot host the mapping at all."""
    p = ens.platform
    need = len(ens.simulations) + (1 if mapping.pool() else 0)
    if p.nodes < need:
        raise InputError(
            f"{p.nodes} nodes cannot host {len(ens.simulations)} simulation allocations"
            + (" plus an analysis-only allocation" if mapping.pool() else ""),
            where="allocation",
        )
    for name, comps in _groups(ens, mapping):
        if len(comps) > p.cores:
            raise InputError(
                f"allocation {name}: {len(comps)} components on {p.cores} cores", where="allocation"
            )
    if len(mapping.pool()) > p.cores:
        raise InputError(
            f"pool: {len(mapping.pool())} analyses on {p.cores} cores", where="allocation"
        )


def solve_u(t_pool: list[float], v_pool: list[float], bandwidth: float, cores: int) -> float:
    """Root U* of Eq. (6): sum_A t_A(1) / (B T_NC + U - C V_A) = 1/B, with every denominator > 0.

    The left side decreases strictly on that domain, so the root is unique; bracketed and solved
    with :func:`scipy.optimize.brentq`. With equal V the root is U = C V.
    """
    if not t_pool:
        return 0.0
    b, c = bandwidth, cores
    t_nc = sum(t_pool)
    lo = max(c * v - b * t_nc for v in v_pool)

    def f(u: float) -> float:
        return sum(t / (b * t_nc + u - c * v) for t, v in zip(t_pool, v_pool, strict=True)) - 1 / b

    vmax = max(v_pool)
    if all(abs(v - vmax) <= 1e-12 * max(1.0, vmax) for v in v_pool):
        return c * vmax
    span = max(1.0, b * t_nc, c * vmax)
    left = lo + span * 1e-12
    while f(left) <= 0:  # pragma: no cover - numerical safety
        left = lo + (left - lo) / 10
    right = lo + span
    while f(right) > 0:
        right = lo + 2 * (right - lo)
    return float(brentq(f, left, right, xtol=1e-12 * span, rtol=1e-14, maxiter=500))


def check_heuristics(node_heuristic: str, core_heuristic: str) -> None:
    """Both heuristic names are known (``co`` or ``ev``), else an InputError naming the option."""
    for option, h in (("--node-alloc", node_heuristic), ("--core-alloc", core_heuristic)):
        if h not in HEURISTICS:
            raise InputError(f"unknown heuristic {h!r}; use 'co' or 'ev'", where=option)


def check_rounding(rounding: str) -> None:
    """The rounding rule is known (``authors`` or ``min-time``), else an InputError."""
    if rounding not in ROUNDINGS:
        raise InputError(
            f"unknown rounding {rounding!r}; use {' or '.join(ROUNDINGS)}", where="--rounding"
        )


def _profile(
    ens: Ensemble, mapping: Mapping, bandwidth: float, pool: list[str]
) -> tuple[dict[str, float], dict[str, float], float, float, float]:
    """t_x(1) of every component, V_A of every analysis, T_NC, T_SC = T_S + T_C and U (Eq. 6)."""
    t1 = {s.name: ens.t1(s.name) for s in ens.simulations}
    t1.update({a.name: ens.t1(a.name) for a in ens.analyses})
    vdata = {a.name: ens.data_of(a) for a in ens.analyses}
    t_nc = sum(t1[a] for a in pool)
    t_sc = sum(t1[c] for _, comps in _groups(ens, mapping) for c in comps)
    u = solve_u([t1[a] for a in pool], [vdata[a] for a in pool], bandwidth, ens.platform.cores)
    return t1, vdata, t_nc, t_sc, u


def rational_allocation(
    ens: Ensemble,
    mapping: Mapping,
    bandwidth: float,
    node_heuristic: str = "co",
    core_heuristic: str = "co",
) -> Allocation:
    """Rational allocation. ``co`` nodes / cores follow Theorem 3 (Eqs. 4-6) for the pool and
    Theorem 4 (Eqs. 7-9) for simulation groups; ``ev`` (EV-ALLOC) splits nodes evenly over the
    blocks and cores evenly inside each block."""
    check_heuristics(node_heuristic, core_heuristic)
    check_feasible(ens, mapping)
    p = ens.platform
    N, C, B = p.nodes, p.cores, bandwidth
    pool = mapping.pool()
    groups = _groups(ens, mapping)
    t1, vdata, t_nc, t_sc, u = _profile(ens, mapping, B, pool)
    total = t_sc + t_nc
    # node level
    if node_heuristic == "co":
        n_nc = N * (B * t_nc + u) / (B * total + u) if pool else 0.0
        n_groups = [(N - n_nc) * sum(t1[c] for c in comps) / t_sc for _, comps in groups]
    else:
        nb = len(groups) + (1 if pool else 0)
        n_nc = N / nb if pool else 0.0
        n_groups = [N / nb] * len(groups)
    # core level
    blocks = []
    for (name, comps), n in zip(groups, n_groups, strict=True):
        q = sum(t1[c] for c in comps)
        if core_heuristic == "co":
            cores = tuple((c, C * t1[c] / q) for c in comps)
        else:
            cores = tuple((c, C / len(comps)) for c in comps)
        blocks.append(Block(name, n, cores))
    if pool:
        if core_heuristic == "co":
            cores = tuple((a, B * C * t1[a] / (B * t_nc + u - C * vdata[a])) for a in pool)
        else:
            cores = tuple((a, C / len(pool)) for a in pool)
        blocks.append(Block(POOL, n_nc, cores))
    return Allocation(tuple(blocks), False, node_heuristic, core_heuristic)


def _round_cores(ens: Ensemble, block: Block, nodes: int) -> Block:
    names = [c for c, _ in block.cores]
    vals = [k for _, k in block.cores]
    ints = sum_preserving_round(
        vals, ens.platform.cores, [ens.t1(c) for c in names], where=f"cores of {block.name}"
    )
    return Block(block.name, nodes, tuple(zip(names, map(int, ints), strict=True)))


def integer_allocation(
    ens: Ensemble,
    mapping: Mapping,
    bandwidth: float,
    node_heuristic: str = "co",
    core_heuristic: str = "co",
    rounding: str = "min-time",
) -> Allocation:
    """Integer allocation by sum-preserving rounding (Algorithm 1) at node then core level.

    ``rounding="authors"`` is :func:`authors_allocation` (the authors' public scheduler).
    ``"min-time"`` is ours. Node level: the pool's n_NC is rounded down or up, keeping at least
    one node per simulation and at least one pool node; the choice with the smaller model time
    (Eq. 3 with the rounded cores) wins, ties up. The remaining nodes are split over the
    simulation groups by Algorithm 1 with priority Q(S_i u m(S_i)); every value below 1 is
    rounded up to 1. Core level: cores of each block sum to C, priority t_x(1). EV-ALLOC:
    Algorithm 1 over all blocks with priority Q (remainders to the largest Q).
    """
    from .model import step_times

    check_rounding(rounding)
    if rounding == "authors":
        return authors_allocation(ens, mapping, bandwidth, node_heuristic, core_heuristic)
    rat = rational_allocation(ens, mapping, bandwidth, node_heuristic, core_heuristic)
    N = ens.platform.nodes
    groups = [b for b in rat.blocks if b.name != POOL]
    pool = [b for b in rat.blocks if b.name == POOL]
    q = [sum(ens.t1(c) for c, _ in b.cores) for b in rat.blocks]
    if node_heuristic == "ev":
        ints = sum_preserving_round([b.nodes for b in rat.blocks], N, q, where="nodes")
        blocks = tuple(_round_cores(ens, b, n) for b, n in zip(rat.blocks, ints, strict=True))
        return Allocation(blocks, True, node_heuristic, core_heuristic)
    if not pool:
        candidates = [0]
    else:
        r = pool[0].nodes
        hi = N - len(groups)
        candidates = sorted(
            {min(max(1, math.ceil(r - 1e-9)), hi), min(max(1, math.floor(r + 1e-9)), hi)},
            reverse=True,
        )
    best: tuple[float, Allocation] | None = None
    for n_nc in candidates:
        rest = N - n_nc
        qs = q[: len(groups)]
        share = [rest * x / sum(qs) for x in qs]
        ints = sum_preserving_round(share, rest, qs, where="nodes")
        blocks = [_round_cores(ens, b, n) for b, n in zip(groups, ints, strict=True)]
        if pool:
            blocks.append(_round_cores(ens, pool[0], n_nc))
        alloc = Allocation(tuple(blocks), True, node_heuristic, core_heuristic)
        t = max(step_times(ens, mapping, alloc, bandwidth).values())
        if best is None or t < best[0] - 1e-12:
            best = (t, alloc)
    assert best is not None
    return best[1]


def pool_order(ens: Ensemble, mapping: Mapping) -> list[str]:
    """P^NC in the order the authors' scheduler lists it (its ``non-co-scheduling`` map): by
    simulation in their YAML order (names sorted as strings: ``sim1, sim10, sim2``; their
    generator's ``yaml.dump`` sorts the keys), then in the order the scenario picked them
    (INCREASING: by ascending work, DECREASING: by descending work, ties in that order;
    IN-TRANSIT: names sorted as strings)."""
    pool = set(mapping.pool())
    work = {a.name: a.work for a in ens.analyses}
    sign = {"increasing": 1.0, "decreasing": -1.0}.get(mapping.name.split("-")[0], 0.0)
    out: list[str] = []
    for s in sorted(ens.simulations, key=lambda s: s.name):
        mine = sorted(a.name for a in ens.coupled(s.name) if a.name in pool)
        out += sorted(mine, key=lambda a: sign * work[a])
    return out


def _even_split(total: int, k: int) -> list[int]:
    """``total`` over ``k`` items as the authors' EV-ALLOC does: floor(total/k) each, the
    remainder +1 to the LAST items."""
    base = total // k
    extra = total - base * k
    return [base] * (k - extra) + [base + 1] * extra


def _even_split_named(total: int, names: list[str]) -> list[int]:
    """:func:`_even_split` over ``names`` in the authors' dict order (their YAML file's keys,
    sorted as strings), returned in the order of ``names``."""
    by_name = dict(zip(sorted(names), _even_split(total, len(names)), strict=True))
    return [by_name[n] for n in names]


def authors_allocation(
    ens: Ensemble,
    mapping: Mapping,
    bandwidth: float,
    node_heuristic: str = "co",
    core_heuristic: str = "co",
) -> Allocation:
    """The integer allocation of the authors' public scheduler (``solver/scheduler.py``,
    ``allocate``; Do et al. Section IV-B and Algorithm 1 as they ran it).

    Pool nodes (co): n_NC of Theorem 3 rounded up, down if it exceeds N - 1; otherwise down when
    max(T_SC/(N - floor), (B T_NC + U)/(B floor)) is smaller than the same with the ceiling.
    Pool nodes (ev): N - floor(N/(S+1)) S. Then at least one node per simulation. Group nodes
    (co) and cores (co) by :func:`~.rounding.threshold_round` with priority Q_i / t_x(1);
    EV-ALLOC splits evenly with the remainder to the last items (a simulation keeps the floor),
    "last" in their dict order: the keys of their YAML file, names sorted as strings
    (``sim1, sim10, sim2``; it differs from ours from 10 simulations or analyses per simulation).
    """
    check_heuristics(node_heuristic, core_heuristic)
    check_feasible(ens, mapping)
    p = ens.platform
    N, C, B = p.nodes, p.cores, bandwidth
    pool = pool_order(ens, mapping)
    groups = _groups(ens, mapping)
    S = len(groups)
    t1, vdata, t_nc, t_sc, u = _profile(ens, mapping, B, pool)
    n_nc = 0
    if pool:
        if node_heuristic == "co":
            r = N * (B * t_nc + u) / (B * (t_sc + t_nc) + u)
            n_nc = math.ceil(r - 1e-9)
            if r > N - 1:
                n_nc = math.floor(r + 1e-9)
            elif r >= 1:
                lo, hi = math.floor(r + 1e-9), math.ceil(r - 1e-9)

                def worst(n: int) -> float:
                    return max(t_sc / (N - n), (B * t_nc + u) / (B * n))

                if lo != hi and worst(lo) < worst(hi):
                    n_nc = lo
        else:
            n_nc = N - (N // (S + 1)) * S
        n_nc = min(n_nc, N - S)
    c_nodes = N - n_nc
    if node_heuristic == "co":
        q = [sum(t1[c] for c in comps) for _, comps in groups]
        share = [x * c_nodes / t_sc for x in q]
        nodes = threshold_round(share, c_nodes, q, where="nodes of the simulation groups")
    else:
        nodes = _even_split_named(c_nodes, [name for name, _ in groups])
    blocks = []
    for (name, comps), n in zip(groups, nodes, strict=True):
        if core_heuristic == "co":
            q_i = sum(t1[c] for c in comps)
            vals = [t1[c] * C / q_i for c in comps]
            cores = threshold_round(vals, C, [t1[c] for c in comps], where=f"cores of {name}")
        else:  # the simulation keeps the floor, its analyses share the rest
            m = len(comps)
            cores = [C // m, *_even_split_named(C - C // m, comps[1:])] if m > 1 else [C]
        blocks.append(Block(name, n, tuple(zip(comps, cores, strict=True))))
    if pool:
        if core_heuristic == "co":
            vals = [B * C * t1[a] / (B * t_nc + u - C * vdata[a]) for a in pool]
            cores = threshold_round(vals, C, [t1[a] for a in pool], where="cores of the pool")
        else:
            cores = _even_split(C, len(pool))
        blocks.append(Block(POOL, n_nc, tuple(zip(pool, cores, strict=True))))
    return Allocation(tuple(blocks), True, node_heuristic, core_heuristic)


def allocation_from_dict(ens: Ensemble, mapping: Mapping, raw: dict[str, Any]) -> Allocation:
    """An explicit allocation from an ensemble file, checked against the mapping: one block per
    simulation (named after it) plus ``pool`` if needed; integer nodes and cores per node, the
    nodes summing to at most N and the cores of each block to at most C."""
    where = "allocation"
    p = ens.platform
    expected = {s.name: [s.name, *mapping.with_sim(s.name)] for s in ens.simulations}
    if mapping.pool():
        expected[POOL] = mapping.pool()
    if set(raw) != set(expected):
        raise InputError(
            f"blocks must be exactly {sorted(expected)}, got {sorted(raw)}", where=where
        )
    blocks = []
    for name, comps in expected.items():
        b, here = raw[name], f"{where}: {name}"
        if not isinstance(b, dict) or "nodes" not in b or not isinstance(b.get("cores"), dict):
            raise InputError("each block needs 'nodes' and a 'cores' mapping", where=here)
        nodes, cores = b["nodes"], b["cores"]
        if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
            raise InputError(f"nodes must be a positive integer, got {nodes!r}", where=here)
        if set(cores) != set(comps):
            raise InputError(f"cores must be given for exactly {sorted(comps)}", where=here)
        for c, k in cores.items():
            if not isinstance(k, int) or isinstance(k, bool) or k < 1:
                raise InputError(f"cores of {c} must be a positive integer, got {k!r}", where=here)
        if sum(cores.values()) > p.cores:
            raise InputError(f"{sum(cores.values())} cores per node > C = {p.cores}", where=here)
        blocks.append(Block(name, nodes, tuple((c, cores[c]) for c in comps)))
    if sum(b.nodes for b in blocks) > p.nodes:
        raise InputError(f"{sum(b.nodes for b in blocks)} nodes > N = {p.nodes}", where=where)
    return Allocation(tuple(blocks), True, "user", "user")
