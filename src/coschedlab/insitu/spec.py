"""Ensemble specification: platform, simulations, analyses, coupling (Do et al., Section III).

Units: work in GFLOP per step, core speed in GFLOP/s, data in GB per step, bandwidth in GB/s.
An ensemble is read from YAML (:func:`load_ensemble`), validated with :class:`InputError` on
every bad field, and written back with :func:`dump_ensemble`. :func:`generate_ensemble` draws the
paper's random ensembles (analysis work uniform in [0.5, 1.5] x simulation work, seeded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping as MappingABC
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..errors import InputError

NETWORKS = ("paper", "per-node")

#: Parameters of the paper's experiments (REFERENCE.md section 3).
PAPER_CORE_SPEED = 36.8
PAPER_CORES = 128
PAPER_BANDWIDTH = 6.0
PAPER_SIM_WORK = 5000.0
PAPER_STEPS = 100


@dataclass(frozen=True)
class Platform:
    """N identical nodes of C cores at ``core_speed`` GFLOP/s, bandwidth B GB/s (Section III-C)."""

    nodes: int
    cores: int
    core_speed: float = PAPER_CORE_SPEED
    bandwidth: float = PAPER_BANDWIDTH
    network: str = "paper"


@dataclass(frozen=True)
class Simulation:
    """A simulation S_i: ``work`` GFLOP and ``data`` GB written per step."""

    name: str
    work: float
    data: float


@dataclass(frozen=True)
class Analysis:
    """An analysis A_j coupled with ``simulation``; it reads all the data V of that simulation."""

    name: str
    simulation: str
    work: float


@dataclass(frozen=True)
class Ensemble:
    """A workflow ensemble with an optional explicit mapping and allocation."""

    platform: Platform
    n_steps: int
    simulations: tuple[Simulation, ...]
    analyses: tuple[Analysis, ...]
    mapping: dict[str, str] | None = None
    allocation: dict[str, Any] | None = None
    _sim_index: dict[str, Simulation] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._sim_index.update({s.name: s for s in self.simulations})

    def simulation(self, name: str) -> Simulation:
        """The simulation called ``name``."""
        return self._sim_index[name]

    def t1(self, name: str) -> float:
        """Sequential time of one step t_x(1) = work / core speed (Eq. 1)."""
        for s in self.simulations:
            if s.name == name:
                return s.work / self.platform.core_speed
        for a in self.analyses:
            if a.name == name:
                return a.work / self.platform.core_speed
        raise KeyError(name)

    def data_of(self, analysis: Analysis) -> float:
        """V_A: the data analysis ``analysis`` reads per step (its simulation's output)."""
        return self._sim_index[analysis.simulation].data

    def coupled(self, sim: str) -> list[Analysis]:
        """p(S_i): the analyses coupled with simulation ``sim``."""
        return [a for a in self.analyses if a.simulation == sim]


def _num(
    d: MappingABC,
    key: str,
    where: str,
    *,
    positive: bool = True,
    integer: bool = False,
    default: Any = None,
) -> Any:
    if key not in d:
        if default is not None:
            return default
        raise InputError(f"missing field '{key}'", where=where)
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InputError(f"'{key}' must be a number, got {v!r}", where=where)
    if integer and (not float(v).is_integer()):
        raise InputError(f"'{key}' must be an integer, got {v!r}", where=where)
    if not math.isfinite(float(v)):
        raise InputError(f"'{key}' must be finite, got {v!r}", where=where)
    if positive and v <= 0:
        raise InputError(f"'{key}' must be > 0, got {v!r}", where=where)
    if not positive and v < 0:
        raise InputError(f"'{key}' must be >= 0, got {v!r}", where=where)
    return int(v) if integer else float(v)


def _nonempty_list(raw: MappingABC, key: str, where: str) -> list:
    """``raw[key]``, which must be a non-empty list."""
    value = raw.get(key)
    if not isinstance(value, list) or not value:
        raise InputError(f"'{key}' must be a non-empty list", where=where)
    return value


def ensemble_from_dict(raw: Any, where: str = "ensemble") -> Ensemble:
    """Validate a parsed YAML document and build an :class:`Ensemble`."""
    if not isinstance(raw, MappingABC):
        raise InputError("the ensemble must be a YAML mapping", where=where)
    known = {"platform", "n_steps", "simulations", "analyses", "mapping", "allocation"}
    extra = set(raw) - known
    if extra:
        raise InputError(f"unknown keys {sorted(extra)}; expected {sorted(known)}", where=where)
    p = raw.get("platform")
    if not isinstance(p, MappingABC):
        raise InputError("missing 'platform' mapping", where=where)
    pw = f"{where}: platform"
    network = p.get("network", "paper")
    if network not in NETWORKS:
        raise InputError(f"network must be one of {NETWORKS}, got {network!r}", where=pw)
    platform = Platform(
        nodes=_num(p, "nodes", pw, integer=True),
        cores=_num(p, "cores", pw, integer=True, default=PAPER_CORES),
        core_speed=_num(p, "core_speed", pw, default=PAPER_CORE_SPEED),
        bandwidth=_num(p, "bandwidth", pw, default=PAPER_BANDWIDTH),
        network=network,
    )
    n_steps = _num(raw, "n_steps", where, integer=True, default=PAPER_STEPS)
    sims_raw = _nonempty_list(raw, "simulations", where)
    sims: list[Simulation] = []
    for i, s in enumerate(sims_raw):
        sw = f"{where}: simulations[{i}]"
        if not isinstance(s, MappingABC) or "name" not in s:
            raise InputError("each simulation needs a name, work and data", where=sw)
        sims.append(
            Simulation(str(s["name"]), _num(s, "work", sw), _num(s, "data", sw, positive=False))
        )
    names = [s.name for s in sims]
    if len(set(names)) != len(names):
        raise InputError("simulation names must be unique", where=where)
    ana_raw = _nonempty_list(raw, "analyses", where)
    anas: list[Analysis] = []
    for i, a in enumerate(ana_raw):
        aw = f"{where}: analyses[{i}]"
        if not isinstance(a, MappingABC) or "name" not in a or "simulation" not in a:
            raise InputError("each analysis needs a name, a simulation and work", where=aw)
        if str(a["simulation"]) not in names:
            raise InputError(f"unknown simulation {a['simulation']!r}", where=aw)
        anas.append(Analysis(str(a["name"]), str(a["simulation"]), _num(a, "work", aw)))
    all_names = names + [a.name for a in anas]
    if len(set(all_names)) != len(all_names):
        raise InputError(
            "component names must be unique across simulations and analyses", where=where
        )
    for s in sims:
        if not any(a.simulation == s.name for a in anas):
            raise InputError(f"simulation {s.name!r} has no coupled analysis", where=where)
    if platform.nodes < len(sims):
        raise InputError(
            f"{platform.nodes} nodes cannot host {len(sims)} simulations (simulations are never "
            "co-scheduled together: need at least one node per simulation)",
            where=pw,
        )
    mapping = raw.get("mapping")
    if mapping is not None:
        if not isinstance(mapping, MappingABC):
            raise InputError(
                "'mapping' must map analysis -> simulation name or 'pool'", where=where
            )
        mapping = {str(k): str(v) for k, v in mapping.items()}
    allocation = raw.get("allocation")
    if allocation is not None and not isinstance(allocation, MappingABC):
        raise InputError("'allocation' must be a mapping", where=where)
    return Ensemble(
        platform,
        n_steps,
        tuple(sims),
        tuple(anas),
        mapping,
        dict(allocation) if allocation is not None else None,
    )


def load_ensemble(path: str | Path) -> Ensemble:
    """Read and validate an ensemble YAML file."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", where=str(path))
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {str(exc).splitlines()[0]}", where=str(path)) from None
    return ensemble_from_dict(raw, where=str(path))


def ensemble_to_dict(ens: Ensemble) -> dict[str, Any]:
    """Plain-data form of an ensemble (the YAML schema)."""
    p = ens.platform
    out: dict[str, Any] = {
        "platform": {
            "nodes": p.nodes,
            "cores": p.cores,
            "core_speed": p.core_speed,
            "bandwidth": p.bandwidth,
            "network": p.network,
        },
        "n_steps": ens.n_steps,
        "simulations": [{"name": s.name, "work": s.work, "data": s.data} for s in ens.simulations],
        "analyses": [
            {"name": a.name, "simulation": a.simulation, "work": a.work} for a in ens.analyses
        ],
    }
    if ens.mapping is not None:
        out["mapping"] = dict(ens.mapping)
    if ens.allocation is not None:
        out["allocation"] = ens.allocation
    return out


def dump_ensemble(ens: Ensemble) -> str:
    """YAML text of an ensemble."""
    return yaml.safe_dump(ensemble_to_dict(ens), sort_keys=False)


def generate_ensemble(
    simulations: int,
    analyses_per_sim: int,
    data: float,
    nodes: int,
    *,
    steps: int = PAPER_STEPS,
    seed: int = 0,
    cores: int = PAPER_CORES,
    core_speed: float = PAPER_CORE_SPEED,
    bandwidth: float = PAPER_BANDWIDTH,
    sim_work: float = PAPER_SIM_WORK,
    network: str = "paper",
) -> Ensemble:
    """The paper's random ensemble (Section V-A): S simulations of ``sim_work`` GFLOP/step, each
    with ``analyses_per_sim`` analyses of work uniform in [0.5, 1.5] x sim_work (drawn per analysis
    with ``numpy.random.default_rng(seed)``), V = ``data`` GB/step."""
    where = "generate"
    if simulations < 1 or analyses_per_sim < 1:
        raise InputError(
            "need at least one simulation and one analysis per simulation", where=where
        )
    if data < 0:
        raise InputError(f"data must be >= 0, got {data}", where=where)
    if steps < 1:
        raise InputError(f"steps must be >= 1, got {steps}", where=where)
    if nodes < simulations:
        raise InputError(f"{nodes} nodes cannot host {simulations} simulations", where=where)
    rng = np.random.default_rng(seed)
    draws = rng.uniform(0.5, 1.5, size=(simulations, analyses_per_sim)) * sim_work
    raw = {
        "platform": {
            "nodes": nodes,
            "cores": cores,
            "core_speed": core_speed,
            "bandwidth": bandwidth,
            "network": network,
        },
        "n_steps": steps,
        "simulations": [
            {"name": f"S{i + 1}", "work": float(sim_work), "data": float(data)}
            for i in range(simulations)
        ],
        "analyses": [
            {
                "name": f"A{i + 1}.{j + 1}",
                "simulation": f"S{i + 1}",
                "work": round(float(draws[i, j]), 6),
            }
            for i in range(simulations)
            for j in range(analyses_per_sim)
        ],
    }
    return ensemble_from_dict(raw, where=where)
