"""Ensemble specification: platform, simulations, analyses, coupling (Do et al., Section III).

Units: work in GFLOP per step, core speed in GFLOP/s, data in GB per step, bandwidth in GB/s.
An ensemble is read from YAML (:func:`load_ensemble`), validated with :class:`InputError` on
every bad field, and written back with :func:`dump_ensemble`. :func:`generate_ensemble` draws the
paper's random ensembles (analysis work uniform in [0.5, 1.5] x simulation work, seeded).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..errors import InputError, check_seed
from ..platform import MAX_CORES, MAX_NODES
from ..schema import Checker, load_yaml, show

NETWORKS = ("paper", "per-node")


def check_choice(value: str, known: tuple[str, ...], what: str, where: str) -> None:
    """An InputError naming ``where`` unless ``value`` is one of ``known`` (a ``what``: the
    in situ options' one message)."""
    if value not in known:
        raise InputError(f"unknown {what} {value!r}; use one of {', '.join(known)}", where)


#: Parameters of the paper's experiments (Do et al., "Co-scheduling ensembles of in situ
#: workflows", Section V-A).
PAPER_CORE_SPEED = 36.8
PAPER_CORES = 128
PAPER_BANDWIDTH = 6.0
PAPER_SIM_WORK = 5000.0
PAPER_STEPS = 100
#: the most components (simulations and analyses) an ensemble may have: the paper's largest
#: has 160; planning 10,000 takes about a minute
MOST_COMPONENTS = 10_000


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


_TOP_KEYS = ("platform", "n_steps", "simulations", "analyses", "mapping", "allocation")
_PLATFORM_KEYS = ("nodes", "cores", "core_speed", "bandwidth", "network")
_SIM_KEYS = ("name", "work", "data")
_ANALYSIS_KEYS = ("name", "simulation", "work")
_BLOCK_KEYS = ("nodes", "cores")


def _name(ck: Checker, d: Mapping, path: str) -> str:
    v = ck.require(d, "name", path)
    if isinstance(v, bool) or not isinstance(v, str | int | float):
        raise ck.fail(f"'{path}.name' must be a name, got {show(v)}", f"{path}.name")
    return ck.string(str(v), f"{path}.name")


def ensemble_from_dict(raw: Any, where: str = "ensemble") -> Ensemble:
    """Validate a parsed YAML document and build an :class:`Ensemble` (every key checked by the
    project's one spec checker, :mod:`coschedlab.schema`: an unknown key at any depth is an
    error naming it, its line and the closest known key)."""
    ck = Checker(where, raw)
    if raw is None:
        raise ck.fail("the ensemble file is empty; see docs/insitu.md for an example")
    raw = ck.mapping(raw, "the ensemble")
    ck.keys(raw, _TOP_KEYS, "")
    p = ck.mapping(ck.require(raw, "platform", ""), "platform")
    ck.keys(p, _PLATFORM_KEYS, "platform")
    platform = Platform(
        nodes=ck.integer(
            ck.require(p, "nodes", "platform"), "platform.nodes", minimum=1, maximum=MAX_NODES
        ),
        cores=ck.integer(
            p.get("cores", PAPER_CORES), "platform.cores", minimum=1, maximum=MAX_CORES
        ),
        core_speed=ck.number(p.get("core_speed", PAPER_CORE_SPEED), "platform.core_speed", True),
        bandwidth=ck.number(p.get("bandwidth", PAPER_BANDWIDTH), "platform.bandwidth", True),
        network=ck.choice(p.get("network", "paper"), "platform.network", NETWORKS),
    )
    n_steps = ck.integer(raw.get("n_steps", PAPER_STEPS), "n_steps", minimum=1)
    sims: list[Simulation] = []
    for i, item in enumerate(ck.items(raw.get("simulations"), "simulations")):
        path = f"simulations[{i}]"
        d = ck.mapping(item, path)
        ck.keys(d, _SIM_KEYS, path)
        sims.append(
            Simulation(
                _name(ck, d, path),
                ck.number(ck.require(d, "work", path), f"{path}.work", positive=True),
                ck.number(ck.require(d, "data", path), f"{path}.data"),
            )
        )
    names = [s.name for s in sims]
    if len(set(names)) != len(names):
        raise ck.fail("simulation names must be unique", "simulations")
    anas: list[Analysis] = []
    for i, item in enumerate(ck.items(raw.get("analyses"), "analyses")):
        path = f"analyses[{i}]"
        d = ck.mapping(item, path)
        ck.keys(d, _ANALYSIS_KEYS, path)
        sim = str(ck.require(d, "simulation", path))
        if sim not in names:
            raise ck.fail(f"'{path}.simulation': unknown simulation {sim!r}", f"{path}.simulation")
        anas.append(
            Analysis(
                _name(ck, d, path),
                sim,
                ck.number(ck.require(d, "work", path), f"{path}.work", positive=True),
            )
        )
    all_names = names + [a.name for a in anas]
    if len(all_names) > MOST_COMPONENTS:
        raise ck.fail(
            f"{len(all_names):,} simulations and analyses: an ensemble may have at most "
            f"{MOST_COMPONENTS:,}",
            "analyses",
        )
    if len(set(all_names)) != len(all_names):
        raise ck.fail("component names must be unique across simulations and analyses")
    for s in sims:
        if not any(a.simulation == s.name for a in anas):
            raise ck.fail(f"simulation {s.name!r} has no coupled analysis", "simulations")
    if platform.nodes < len(sims):
        raise ck.fail(
            f"{platform.nodes} nodes cannot host {len(sims)} simulations (simulations are never "
            "co-scheduled together: need at least one node per simulation)",
            "platform.nodes",
        )
    mapping = raw.get("mapping")
    if mapping is not None:
        mapping = ck.mapping(mapping, "mapping")
        ana_names = tuple(a.name for a in anas)
        ck.keys({str(k): v for k, v in mapping.items()}, ana_names, "mapping")
        for k, v in mapping.items():
            ck.choice(str(v), f"mapping.{k}", (*names, "pool"))
        mapping = {str(k): str(v) for k, v in mapping.items()}
    allocation = raw.get("allocation")
    if allocation is not None:
        allocation = ck.mapping(allocation, "allocation")
        for block, b in allocation.items():
            path = f"allocation.{block}"
            b = ck.mapping(b, path)
            ck.keys(b, _BLOCK_KEYS, path)
            ck.integer(ck.require(b, "nodes", path), f"{path}.nodes", minimum=1)
            cores = ck.mapping(ck.require(b, "cores", path), f"{path}.cores")
            ck.keys({str(c): k for c, k in cores.items()}, tuple(all_names), f"{path}.cores")
            for c, k in cores.items():
                ck.integer(k, f"{path}.cores.{c}", minimum=1)
    return Ensemble(
        platform,
        n_steps,
        tuple(sims),
        tuple(anas),
        mapping,
        {k: dict(v) for k, v in allocation.items()} if allocation is not None else None,
    )


def load_ensemble(path: str | Path) -> Ensemble:
    """Read and validate an ensemble YAML file."""
    path = Path(path)
    return ensemble_from_dict(load_yaml(path, "an ensemble YAML file"), where=str(path))


def ensemble_to_dict(ens: Ensemble) -> dict[str, Any]:
    """Plain-data form of an ensemble (the YAML schema)."""
    out: dict[str, Any] = {
        "platform": asdict(ens.platform),
        "n_steps": ens.n_steps,
        "simulations": [asdict(s) for s in ens.simulations],
        "analyses": [asdict(a) for a in ens.analyses],
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
    if simulations < 1:
        raise InputError(f"--simulations must be >= 1, got {simulations}", where=where)
    if analyses_per_sim < 1:
        raise InputError(f"--analyses must be >= 1, got {analyses_per_sim}", where=where)
    if not data >= 0 or not np.isfinite(data):
        raise InputError(f"--data must be a finite number >= 0, got {data}", where=where)
    if steps < 1:
        raise InputError(f"--steps must be >= 1, got {steps}", where=where)
    if nodes < simulations:
        raise InputError(
            f"--nodes {nodes} cannot host {simulations} simulations (one node each at least)",
            where=where,
        )
    if simulations * (1 + analyses_per_sim) > MOST_COMPONENTS:
        raise InputError(
            f"--simulations {simulations:,} x (1 + --analyses {analyses_per_sim:,}) components: "
            f"an ensemble may have at most {MOST_COMPONENTS:,}",
            where=where,
        )
    check_seed(seed)
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
