"""The study spec (YAML, every key checked by the project's one spec checker).

```yaml
design:                      # the design space: each parameter a list or a range
  prandtl: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
  velocity: {from: 0.5, to: 3.0, count: 6}
objectives: [height_0.2, height_0.4]   # names of the objectives (minimised)
reuse: [velocity]            # equal values of these parameters: one reuse class
scaling: {4: 1.95, 8: 1.14, 16: 0.80, 32: 0.60, 64: 1.82}  # s/timestep, or a CSV file,
# or a model: {amdahl: {seconds: 10.0, serial: 0.05, overhead: 0.01}, counts: [1, 2, 4, 8]}
processors: 32               # P, the study's partition
per_run: 32                  # processors per run without batching (default: the fastest)
checkpoint_every: 100        # timesteps between checkpoints
restart: 60                  # seconds a preemption costs (regroup, read the checkpoint)
alpha: scaling               # the rule's alpha: scaling table, or perfect-scaling (g / g')
step: 2                      # the active sampler's coarse step
config: E                    # O, A, B, C, D or E (the command line may override)
model:                       # the simulated executor's work model
  scratch: 2900              # mean timesteps from scratch
  reuse: 1641                # ... and from a reused final state
  spread: 0.25               # coefficient of variation of a design's timesteps
  seed: 1
  time_scale: 1.0            # a factor on the scaling table's seconds per timestep
  overhead: 318              # seconds of a run (or restart) outside its timesteps ...
  overhead_procs: 32         # ... on 32 processors, in proportion to them (0: on any)
  slowdown: {64: 1.0583}     # every run's time x this factor on a 64-processor machine
  preemption_cost: startup   # a moved run pays its start-up again; redo: re-done work only
  targets: [[0.0, 0.2], [0.5, 0.8]]   # one per objective, unit-scaled design coordinates
command: "{python} {here}/heat.py {params} --nprocs {nprocs} ..."  # real executor
```

A spec needs ``model`` to run simulated and ``command`` to run for real. The command's
placeholders are those of :mod:`~coschedlab.studies.real`, ``{python}``: the Python
coschedlab runs in, and ``{here}``: the spec's folder (a study's code kept beside its spec runs
from any working directory).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..schema import Checker, open_spec, show
from ..sweeps.capability import spec_place
from .batching import MOST_SIMULATIONS, ScalingTable, load_scaling
from .manager import ALPHAS, CONFIGS, Config
from .model import PREEMPTION_COSTS, WorkModel
from .sampling import DesignSpace

__all__ = ["StudySpec", "load_spec"]

KEYS = ("name", "design", "objectives", "reuse", "scaling", "processors", "per_run",
        "checkpoint_every", "restart", "alpha", "step", "config", "model", "command")  # fmt: skip
MODEL_KEYS = ("scratch", "reuse", "spread", "seed", "time_scale", "overhead", "overhead_procs",
              "slowdown", "preemption_cost", "targets", "noise", "normalize")  # fmt: skip
MOST_DESIGNS = MOST_SIMULATIONS


@dataclass(frozen=True)
class StudySpec:
    """A checked study spec (module doc)."""

    name: str
    space: DesignSpace
    objectives: tuple[str, ...]
    reuse: tuple[str, ...]
    scaling: ScalingTable
    processors: int
    per_run: int
    checkpoint_every: int
    restart: float
    step: int
    config: Config
    model: WorkModel | None
    command: str | None
    source: str = ""
    alpha: str = "scaling"

    def with_procs(self, procs: int) -> StudySpec:
        """The same study on ``procs`` processors (per run: the fastest count that fits,
        unless the spec's still fits)."""
        from dataclasses import replace

        if procs > 10_000_000:
            raise InputError(f"--procs must be at most 10000000, got {procs}")
        per_run = self.per_run if self.per_run <= procs else self.scaling.group(1, procs)
        if per_run is None:
            raise InputError(
                f"--procs {procs}: no tabulated processor count fits "
                f"(smallest: {self.scaling.seconds[0][0]})"
            )
        return replace(self, processors=procs, per_run=per_run)


def _values(ck: Checker, v: Any, path: str) -> list[float]:
    if isinstance(v, Mapping):
        ck.keys(v, ("from", "to", "count"), path)
        lo = _num(ck, ck.require(v, "from", path), f"{path}.from")
        hi = _num(ck, ck.require(v, "to", path), f"{path}.to")
        n = ck.integer(ck.require(v, "count", path), f"{path}.count", minimum=1)
        if n > 10_000:
            raise ck.fail(f"'{path}.count' must be at most 10000, got {n}", f"{path}.count")
        if n > 1 and hi <= lo:
            raise ck.fail(f"'{path}': 'to' must be above 'from'", path)
        return [float(x) for x in np.linspace(lo, hi, n)] if n > 1 else [lo]
    items = ck.items(v, path)
    vals = [_num(ck, x, f"{path}[{i}]") for i, x in enumerate(items)]
    if len(set(vals)) != len(vals):
        raise ck.fail(f"'{path}' lists a value twice", path)
    return vals


def _num(ck: Checker, v: Any, path: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
        raise ck.fail(f"'{path}' must be a finite number, got {show(v)}", path)
    return float(v)


def _scaling(ck: Checker, v: Any, base: Path) -> ScalingTable:
    try:
        if isinstance(v, Mapping) and "amdahl" in v:
            ck.keys(v, ("amdahl", "counts"), "scaling")
            m = ck.mapping(v["amdahl"], "scaling.amdahl")
            ck.keys(m, ("seconds", "serial", "overhead"), "scaling.amdahl")
            counts = [
                ck.integer(c, f"scaling.counts[{i}]", minimum=1)
                for i, c in enumerate(
                    ck.items(ck.require(v, "counts", "scaling"), "scaling.counts")
                )
            ]
            if len(set(counts)) != len(counts):
                raise ck.fail("'scaling.counts' names a count twice", "scaling.counts")
            serial = ck.number(m.get("serial", 0.0), "scaling.amdahl.serial")
            if serial > 1:
                raise ck.fail("'scaling.amdahl.serial' must be at most 1", "scaling.amdahl.serial")
            return ScalingTable.amdahl(
                ck.number(ck.require(m, "seconds", "scaling.amdahl"), "scaling.amdahl.seconds",
                          positive=True),
                serial,
                counts,
                ck.number(m.get("overhead", 0.0), "scaling.amdahl.overhead"),
            )  # fmt: skip
        if isinstance(v, Mapping):
            table: dict[int, float] = {}
            for p, t in v.items():
                p = ck.integer(p, f"scaling.{p}", minimum=1)
                table[p] = ck.number(t, f"scaling.{p}", positive=True)
            return ScalingTable.of(table)
        text = ck.string(v, "scaling")
        path = base / text
        return load_scaling(str(path) if path.is_file() else text)
    except InputError as exc:
        if exc.where:
            raise
        raise ck.fail(exc.what, "scaling") from None


def load_spec(path: str | Path) -> StudySpec:
    """Read and check a study spec (module doc)."""
    ck, raw = open_spec(path, KEYS, "docs/studies.md")
    base = Path(path).parent
    design = ck.mapping(ck.require(raw, "design", ""), "design")
    if not design:
        raise ck.fail("'design' names no parameter", "design")
    grid = {}
    for name, v in design.items():
        ck.name(name, f"design.{name}")
        grid[str(name)] = _values(ck, v, f"design.{name}")
    space = DesignSpace.of(grid)
    if int(np.prod(space.shape)) > MOST_DESIGNS:
        raise ck.fail(f"the design space has more than {MOST_DESIGNS:,} designs", "design")
    objectives = tuple(
        ck.string(o, f"objectives[{i}]")
        for i, o in enumerate(ck.items(ck.require(raw, "objectives", ""), "objectives"))
    )
    if len(set(objectives)) != len(objectives):
        raise ck.fail("'objectives' names an objective twice", "objectives")
    reuse_raw = raw.get("reuse")
    reuse_raw = [] if reuse_raw is None or reuse_raw == [] else ck.items(reuse_raw, "reuse")
    reuse = tuple(ck.string(r, f"reuse[{i}]") for i, r in enumerate(reuse_raw))
    for i, r in enumerate(reuse):
        if r not in space.names:
            raise ck.fail(f"'reuse[{i}]': {r!r} is not a design parameter", f"reuse[{i}]")
    if len(set(reuse)) != len(reuse):
        raise ck.fail("'reuse' names a parameter twice", "reuse")
    scaling = _scaling(ck, ck.require(raw, "scaling", ""), base)
    procs = ck.integer(ck.require(raw, "processors", ""), "processors", minimum=1)
    if procs > 10_000_000:
        raise ck.fail("'processors' must be at most 10000000", "processors")
    if scaling.group(1, procs) is None:
        raise ck.fail(
            f"no tabulated processor count fits {procs} processors "
            f"(smallest: {scaling.seconds[0][0]})",
            "processors",
        )
    per_run = raw.get("per_run")
    if per_run is None:
        per_run = scaling.group(1, procs)
    else:
        per_run = ck.integer(per_run, "per_run", minimum=1)
        if per_run not in dict(scaling.seconds) or per_run > procs:
            raise ck.fail(
                f"'per_run' must be a tabulated processor count of at most {procs}, got {per_run}",
                "per_run",
            )
    every = ck.integer(raw.get("checkpoint_every", 100), "checkpoint_every", minimum=1)
    restart = ck.number(raw.get("restart", 0.0), "restart")
    alpha = ck.choice(raw.get("alpha", "scaling"), "alpha", ALPHAS)
    step = ck.integer(raw.get("step", 2), "step", minimum=1)
    cfg = raw.get("config", "E")
    cfg = cfg.strip().upper() if isinstance(cfg, str) else cfg
    config = CONFIGS[ck.choice(cfg, "config", tuple(CONFIGS))]
    model = None
    if "model" in raw:
        m = ck.mapping(raw["model"], "model")
        ck.keys(m, MODEL_KEYS, "model")
        targets = m.get("targets")
        if targets is None:
            raise ck.fail("missing key 'model.targets' (one point per objective)", "model")
        pts = []
        for i, t in enumerate(ck.items(targets, "model.targets")):
            coords = ck.items(t, f"model.targets[{i}]")
            if len(coords) != len(space.names):
                raise ck.fail(
                    f"'model.targets[{i}]' needs {len(space.names)} coordinates "
                    f"(one per design parameter, from 0 to 1)",
                    f"model.targets[{i}]",
                )
            pt = tuple(_num(ck, c, f"model.targets[{i}]") for c in coords)
            if not all(0.0 <= c <= 1.0 for c in pt):
                raise ck.fail(
                    f"'model.targets[{i}]': coordinates run from 0 to 1 (unit-scaled), "
                    f"got {list(pt)}",
                    f"model.targets[{i}]",
                )
            pts.append(pt)
        if len(pts) != len(objectives):
            raise ck.fail(
                f"'model.targets' has {len(pts)} points for {len(objectives)} objectives",
                "model.targets",
            )
        slowdown = []
        for p, f in ck.mapping(m.get("slowdown", {}), "model.slowdown").items():
            p = ck.integer(p, f"model.slowdown.{p}", minimum=1)
            slowdown.append((p, ck.number(f, f"model.slowdown.{p}", positive=True)))
        try:
            model = WorkModel(
                space,
                scaling,
                scratch=ck.number(m.get("scratch", 2900), "model.scratch", positive=True),
                reuse=ck.number(m.get("reuse", 1641), "model.reuse", positive=True),
                spread=ck.number(m.get("spread", 0.25), "model.spread"),
                seed=ck.integer(m.get("seed", 0), "model.seed", minimum=0),
                time_scale=ck.number(m.get("time_scale", 1.0), "model.time_scale", positive=True),
                overhead=ck.number(m.get("overhead", 0.0), "model.overhead"),
                overhead_procs=ck.integer(
                    m.get("overhead_procs", 0), "model.overhead_procs", minimum=0
                ),
                slowdown=tuple(sorted(slowdown)),
                preemption_cost=ck.choice(
                    m.get("preemption_cost", "startup"),
                    "model.preemption_cost",
                    PREEMPTION_COSTS,
                ),
                targets=tuple(pts),
                noise=ck.number(m.get("noise", 0.0), "model.noise"),
                normalize=ck.boolean(m.get("normalize", True), "model.normalize"),
            )
        except InputError as exc:
            raise ck.fail(exc.what, "model") from None
    command = ck.string(raw["command"], "command") if "command" in raw else None
    if command is not None:  # {python}: this Python (the one coschedlab runs in); {here}
        here = shlex.quote(str(Path(path).resolve().parent))  # the spec's folder
        command = command.replace("{python}", shlex.quote(sys.executable)).replace("{here}", here)
    if model is None and command is None:
        raise ck.fail("the spec needs 'model' (simulated) or 'command' (real), or both")
    name = spec_place(ck, raw, Path(path))["name"]
    return StudySpec(name, space, objectives, reuse, scaling, procs, per_run, every, restart,
                     step, config, model, command, str(path), alpha)  # fmt: skip
