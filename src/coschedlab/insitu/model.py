"""Model makespan (Do et al., Eqs. 1-3) and the calibrated bandwidths of Table II."""

from __future__ import annotations

from .allocation import Allocation
from .mapping import POOL, Mapping
from .spec import Ensemble, check_choice

BANDWIDTH_MODELS = ("B", "B1", "B2", "B3")


def bandwidth_key(model: str, where: str = "bandwidth-model") -> str:
    """The canonical name of a bandwidth model (``b'_3`` -> ``B3``), else an InputError
    naming ``where``."""
    key = model.upper().replace("'", "").replace("_", "")
    if key not in BANDWIDTH_MODELS:  # (the message names the model as given)
        check_choice(model, BANDWIDTH_MODELS, "bandwidth model", where)
    return key


def model_bandwidth(ens: Ensemble, mapping: Mapping, model: str = "B3") -> float:
    """B (per node), B'_1 = B/|A_NC|, B'_2 = B T/(N T_NC), B'_3 = B'_2/|A_NC| (Table II).

    With no pool analysis there is no remote transfer and every model returns B.
    """
    key = bandwidth_key(model)
    b = ens.platform.bandwidth
    pool = mapping.pool()
    if key == "B" or not pool:
        return b
    t_nc = sum(ens.t1(a) for a in pool)
    t_all = sum(ens.t1(s.name) for s in ens.simulations) + sum(ens.t1(a.name) for a in ens.analyses)
    if key == "B1":
        return b / len(pool)
    b2 = b * t_all / (ens.platform.nodes * t_nc)
    return b2 if key == "B2" else b2 / len(pool)


def step_times(
    ens: Ensemble, mapping: Mapping, alloc: Allocation, bandwidth: float
) -> dict[str, float]:
    """t(x) of one step for every component: Eq. (1) for simulations and co-scheduled analyses,
    Eq. (2) with the remote term V/(B n) for analyses not co-scheduled with their simulation."""
    coupled = {a.name: a.simulation for a in ens.analyses}
    data = {a.name: ens.data_of(a) for a in ens.analyses}
    out: dict[str, float] = {}
    for b in alloc.blocks:
        for c, k in b.cores:
            t = ens.t1(c) / (b.nodes * k)
            if c in coupled and (b.name == POOL or b.name != coupled[c]):
                t += data[c] / (bandwidth * b.nodes)
            out[c] = t
    return out


def model_makespan(ens: Ensemble, mapping: Mapping, alloc: Allocation, bandwidth: float) -> float:
    """Eq. (3): MAKESPAN = n_steps x max_x t(x)."""
    return ens.n_steps * max(step_times(ens, mapping, alloc, bandwidth).values())
