"""ELiSE's experiment files (the YAML ``framework/batch/submit.py`` runs), read as they are.

The file's keys, as ELiSE's ``BatchCreator`` reads them (all four top-level keys required)::

    name: "..."                 description: "..." (optional)
    inputs:                     # one workload per item (ELiSE generates it `repeat` times)
    - cluster: {nodes: 420, socket-conf: [10, 10]}
      generator: {type: "Random Generator", arg: 500,
                  distribution: {type: "Poisson Distribution", arg: 15}}   # optional
      json: "lm-aris.compute-NAS.json"      # the pool (ELiSE's load manager as JSON)
      heatmap: "heatmap.json"               # optional: {app: {partner: speedup}} instead
      loads-machine: "aris.compute"          loads-suite: "NAS"     repeat: 2
    schedulers:                 # ELiSE's scheduler names and the attributes they set
    - {base: "EASY Scheduler", backfill_enabled: true, backfill_depth: 100}
    actions:                    # what to write, and where (``dir``)
      get_workload: {inputs: all, schedulers: all, dir: "results"}

Paths are read as ELiSE reads them (from the working directory), else from the experiment
file's folder. ELiSE's schedulers map to coschedlab's (:data:`SCHEDULERS`); a ``base`` that is
no ELiSE name may be any coschedlab scheduler spec. Where ELiSE's code has a bug, the default
is the correct behaviour and ``compat`` (:data:`COMPAT`) reproduces ELiSE's:

* ``late-kill``: ELiSE ends a job past its requested time at the next event (a completion or
  an arrival), not at its requested time;
* ``clock``: ELiSE's clock (:mod:`.clock`): time advances by subtracting each step from every
  running job's remaining time, so that ends which coincide can fall a rounding error apart,
  in two passes (implies ``late-kill``);
* ``conservative``: ELiSE's "Conservative Scheduler" is not conservative backfilling
  (:mod:`.conservative`); by default it runs as coschedlab's ``conservative``;
* ``alone``: ELiSE's spread-alone speedup is the larger of the measured spread speedup and
  the best pair speedup (matters only for pools with spread timings).

Everything else ELiSE does is reproduced as it is, and the tests hold it to ELiSE's own runs
job by job (``tests/coloc/elise``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...platform import Cluster
from ...schema import MOST_NAME, Checker, load_yaml, show
from ..pool import Pool, load_pool
from .generators import EliseClock, EliseJob, apply_distribution, generate, setup_jobs

__all__ = [
    "ACTIONS",
    "COMPAT",
    "SCHEDULERS",
    "EliseInput",
    "EliseScheduler",
    "Experiment",
    "Run",
    "expand",
    "read_experiment",
]

#: ELiSE's reproducible bugs (see the module doc)
COMPAT = ("late-kill", "clock", "conservative", "alone")

#: ELiSE's scheduler names -> (coschedlab scheduler, backfill_enabled by default)
SCHEDULERS: dict[str, tuple[str, bool]] = {
    "FIFO Scheduler": ("fcfs", False),
    "EASY Scheduler": ("easy", True),
    "Conservative Scheduler": ("conservative", True),
    "Random Ranks Co-Scheduler": ("easy-coloc", False),
    "Filler Co-Scheduler": ("filler", False),
    "Ranks Co-Scheduler": ("ranks", False),
    "Bester Ranks Co-Scheduler": ("bester", False),
    "Jungle Co-Scheduler": ("jungle", False),
    "Slowdown in favor Co-Scheduler": ("slowdown", False),
}
#: ELiSE names that do not run in ELiSE itself
_BROKEN = {
    "Rules Co-Scheduler": "it calls Cluster.nonfilled_xunits and assign_nodes, which ELiSE's "
    "cluster no longer has (HEAD 70efef0)",
    "Abstract Scheduler": "it is ELiSE's abstract base class",
    "Abstract Co-Scheduler": "it is ELiSE's abstract base class",
}
#: scheduler attributes ELiSE's code never reads (accepted, with a note)
_INERT = ("compact_fallback", "ranks_threshold")
_SCHED_KEYS = ("base", "backfill_enabled", "backfill_depth", "queue_depth", *_INERT)

#: ELiSE's actions -> the folder each writes into (``run_utils.patch``)
ACTIONS: dict[str, str] = {
    "get_workload": "workloads",
    "get_gantt_representation": "gantts",
    "get_waiting_queue": "waiting_queue",
    "get_jobs_throughput": "jobs_throughput",
    "get_unused_cores": "unused_cores",
}
_INPUT_KEYS = (
    "cluster",
    "generator",
    "json",
    "heatmap",
    "loads-machine",
    "loads-suite",
    "repeat",
    "path",
    "load-manager",
    "db",
)
_UNSUPPORTED_SOURCES = {
    "path": "a folder of raw run logs is read by ELiSE's LoadManager.init_loads; export it "
    "with LoadManager.export_to_json() and give the file as 'json'",
    "load-manager": "a pickled LoadManager is Python-version bound; export it with "
    "LoadManager.export_to_json() and give the file as 'json'",
    "db": "ELiSE's MongoDB store is not read; export the loads with "
    "LoadManager.export_to_json() and give the file as 'json'",
}


@dataclass(frozen=True)
class EliseInput:
    """One item of ``inputs``: a machine, a pool and how ELiSE generates the jobs."""

    index: int
    cluster: Cluster
    pool: str
    heatmap: str | None
    generator: str
    arg: Any
    distribution: tuple[str, Any] | None
    repeat: int
    where: str


@dataclass(frozen=True)
class EliseScheduler:
    """One item of ``schedulers``: ELiSE's name (or a coschedlab spec) and its options."""

    index: int
    base: str
    backfill: bool
    depth: int
    elise: bool  # an ELiSE scheduler name (else ``base`` is a coschedlab spec)

    def spec(self, compat: frozenset[str] = frozenset()) -> str:
        """The coschedlab scheduler spec that runs it."""
        if not self.elise:
            return self.base
        name, _ = SCHEDULERS[self.base]
        bf = self.backfill and self.depth > 0
        if name == "fcfs" or (name in ("easy", "conservative") and not bf):
            return "fcfs"
        if name == "easy":
            return f"easy:extra=false,depth={self.depth}"
        if name == "conservative":
            return f"elise-conservative:depth={self.depth}" if "conservative" in compat else name
        if not bf:
            return f"{name}:backfill=false"
        return f"{name}:extra=false,depth={self.depth}"


@dataclass
class Experiment:
    """An ELiSE experiment file, checked."""

    path: Path
    name: str
    description: str
    inputs: list[EliseInput]
    schedulers: list[EliseScheduler]
    actions: dict[str, tuple[Any, Any]]  # action -> (inputs, schedulers): "all" or indices
    folder: str | None  # where ELiSE writes its actions' files (the last 'dir' given)
    notes: list[str] = field(default_factory=list)

    @cached_property
    def digest(self) -> str:
        """What the results depend on: the file's bytes and those of the files it names."""
        h = hashlib.sha256(self.path.read_bytes())
        for inp in self.inputs:
            for p in (inp.pool, inp.heatmap, *_file_args(inp)):
                if p is not None:
                    h.update(Path(p).read_bytes())
        return h.hexdigest()[:16]


def _names_a_file(kind: str, arg: Any) -> bool:
    """Whether generator ``kind``'s ``arg`` is a file's path (the List Generator's may be the
    CSV text itself, as ELiSE takes it)."""
    return kind in ("Shuffle List Generator", "SWF Generator") or (
        kind == "List Generator" and isinstance(arg, str) and "\n" not in arg
    )


def _file_args(inp: EliseInput) -> list[str]:
    return [str(inp.arg)] if _names_a_file(inp.generator, inp.arg) else []


def _resolve(ck: Checker, value: Any, key: str, base: Path) -> str:
    """A path as ELiSE reads it (working directory), else beside the experiment file;
    ``coschedlab:NAME`` names a bundled file (``coschedlab:pools/lm-aris.compute-NAS.json``)."""
    from ...bundled import bundled, is_bundled

    text = ck.string(value, key)
    if is_bundled(text):
        try:
            return str(bundled(text))
        except InputError as exc:
            raise ck.fail(f"'{key}': {exc.what}", key) from None
    p = Path(text)
    for cand in (p, base / p):
        if cand.is_file():
            return str(cand.resolve())
    for cand in (p, base / p):
        if cand.is_dir():  # it said 'not found' of a folder that is there
            raise ck.fail(f"'{key}': {text!r} is a directory, not a file", key)
    where = {str(Path.cwd().resolve()), str(base)}
    raise ck.fail(
        f"'{key}': file {text!r} not found (looked in {' and '.join(sorted(where))})", key
    )


def read_experiment(path: str | Path) -> Experiment:
    """Read and check an ELiSE experiment file (every error one line naming the file, line
    and key)."""
    path = Path(path)
    raw = load_yaml(path, "an ELiSE experiment file (YAML)")
    ck = Checker(str(path), raw)
    if raw is None:
        raise ck.fail("the experiment file is empty")
    raw = ck.mapping(raw, "the experiment file")
    if "workloads" in raw and "inputs" not in raw:
        raise ck.fail(
            "ELiSE's batch runner reads 'inputs', not 'workloads' (an older layout)", "workloads"
        )
    ck.keys(raw, ("name", "description", "inputs", "schedulers", "actions"), "")
    for key in ("name", "inputs", "schedulers", "actions"):
        ck.require(raw, key, "")  # ELiSE refuses a file without any of the four
    # the experiment's title: a null (``name: ~``) was printed as "None"; a mapping or list
    # as its Python form
    name = raw["name"]
    if not isinstance(name, (str, int, float)) or isinstance(name, bool):
        raise ck.fail(f"'name' must be the experiment's name (text), got {show(name)}", "name")
    name = ck.string(str(name), "name", MOST_NAME)
    base = path.resolve().parent
    notes: list[str] = []
    inputs = [_input(ck, item, i, base) for i, item in enumerate(ck.items(raw["inputs"], "inputs"))]
    scheds = [
        _scheduler(ck, item, k, notes)
        for k, item in enumerate(ck.items(raw["schedulers"], "schedulers"))
    ]
    n_inputs = sum(inp.repeat for inp in inputs)
    actions, folder = _actions(ck, raw["actions"], n_inputs, len(scheds))
    return Experiment(
        path.resolve(),
        name,
        str(raw.get("description") or ""),
        inputs,
        scheds,
        actions,
        folder,
        notes,
    )


def _input(ck: Checker, item: Any, i: int, base: Path) -> EliseInput:
    at = f"inputs[{i}]"
    item = ck.mapping(item, at)
    ck.keys(item, _INPUT_KEYS, at)
    for key, why in _UNSUPPORTED_SOURCES.items():
        if key in item and "json" not in item:
            raise ck.fail(f"'{at}.{key}': not supported: {why}", f"{at}.{key}")
    if "json" not in item:
        raise ck.fail(f"'{at}' needs 'json': the pool file (ELiSE's lm-*.json)", at)
    pool = _resolve(ck, item["json"], f"{at}.json", base)
    heatmap = None
    if "heatmap" in item:
        from ..heatmap import Heatmap

        heatmap = _resolve(ck, item["heatmap"], f"{at}.heatmap", base)
        Heatmap.from_json(heatmap)  # a bad file is refused now, not in every run
    cl = ck.mapping(ck.require(item, "cluster", at), f"{at}.cluster")
    ck.keys(cl, ("nodes", "socket-conf"), f"{at}.cluster")
    nodes = ck.integer(
        ck.require(cl, "nodes", f"{at}.cluster"),
        f"{at}.cluster.nodes",
        minimum=1,
        maximum=1_000_000,
    )
    sockets = ck.items(ck.require(cl, "socket-conf", f"{at}.cluster"), f"{at}.cluster.socket-conf")
    sockets = [
        ck.integer(s, f"{at}.cluster.socket-conf[{k}]", minimum=1, maximum=4096)
        for k, s in enumerate(sockets)
    ]
    if len(set(sockets)) != 1:
        raise ck.fail(
            f"'{at}.cluster.socket-conf': sockets of different sizes {sockets} are not "
            "supported (coschedlab's nodes have equal sockets)",
            f"{at}.cluster.socket-conf",
        )
    gen = ck.mapping(ck.require(item, "generator", at), f"{at}.generator")
    ck.keys(gen, ("type", "arg", "distribution"), f"{at}.generator")
    kind = ck.string(ck.require(gen, "type", f"{at}.generator"), f"{at}.generator.type")
    if kind.endswith(".py"):
        raise ck.fail(
            f"'{at}.generator.type': ELiSE generator files cannot run in coschedlab; "
            "write the jobs as an ELiSE workload CSV and use the List Generator",
            f"{at}.generator.type",
        )
    from .generators import DISTRIBUTIONS, GENERATORS

    if kind not in GENERATORS:
        raise ck.fail(
            f"'{at}.generator.type': unknown generator {kind!r}; ELiSE's are "
            f"{', '.join(GENERATORS)}",
            f"{at}.generator.type",
        )
    arg = ck.require(gen, "arg", f"{at}.generator")
    if _names_a_file(kind, arg):
        arg = _resolve(ck, arg, f"{at}.generator.arg", base)
    dist = None
    if "distribution" in gen:
        d = ck.mapping(gen["distribution"], f"{at}.generator.distribution")
        ck.keys(d, ("type", "arg"), f"{at}.generator.distribution")
        dkind = ck.string(
            ck.require(d, "type", f"{at}.generator.distribution"),
            f"{at}.generator.distribution.type",
        )
        if dkind not in DISTRIBUTIONS:
            raise ck.fail(
                f"'{at}.generator.distribution.type': unknown distribution {dkind!r}; "
                f"ELiSE's are {', '.join(DISTRIBUTIONS)}",
                f"{at}.generator.distribution.type",
            )
        dist = (dkind, ck.require(d, "arg", f"{at}.generator.distribution"))
    repeat = ck.integer(item.get("repeat", 1), f"{at}.repeat", minimum=1, maximum=1000)
    where = f"{ck.where}:{ck.line_of(at + '.generator') or ''}".rstrip(":")
    return EliseInput(
        i, Cluster(nodes, len(sockets), sockets[0]), pool, heatmap, kind, arg, dist, repeat, where
    )


def _scheduler(ck: Checker, item: Any, k: int, notes: list[str]) -> EliseScheduler:
    at = f"schedulers[{k}]"
    item = ck.mapping(item, at)
    ck.keys(item, _SCHED_KEYS, at)
    base = ck.string(ck.require(item, "base", at), f"{at}.base")
    if base in _BROKEN:
        raise ck.fail(f"'{at}.base': {base!r} cannot run: {_BROKEN[base]}", f"{at}.base")
    elise = base in SCHEDULERS
    if not elise and " " in base:
        close = _closest_name(base, [*SCHEDULERS, *_BROKEN], 0.5)
        hint = f"did you mean {close!r}?" if close else f"ELiSE's are {', '.join(SCHEDULERS)}"
        raise ck.fail(f"'{at}.base': unknown ELiSE scheduler {base!r} ({hint})", f"{at}.base")
    if not elise:
        if base.endswith(".py") and "realsim" in _read_text(base):
            raise ck.fail(
                f"'{at}.base': an ELiSE scheduler file cannot run in coschedlab; write "
                "it as a coschedlab policy (docs/schedulers.md)",
                f"{at}.base",
            )
        from ...schedulers.registry import get_scheduler

        try:
            get_scheduler(base)
        except InputError as exc:
            if exc.what.startswith("unknown scheduler"):
                close = _closest_name(base, list(SCHEDULERS), 0.3)
                hint = f"; did you mean {close!r}?" if close else ""
                raise ck.fail(
                    f"'{at}.base': {base!r} is neither an ELiSE scheduler nor a "
                    f"coschedlab one (coschedlab schedulers lists them){hint}",
                    f"{at}.base",
                ) from None
            raise ck.fail(f"'{at}.base': {exc.what}", f"{at}.base") from None
    bf = SCHEDULERS[base][1] if elise else True
    if "backfill_enabled" in item:
        bf = ck.boolean(item["backfill_enabled"], f"{at}.backfill_enabled")
    depth = ck.integer(
        item.get("backfill_depth", 100), f"{at}.backfill_depth", minimum=0, maximum=10**9
    )
    if item.get("queue_depth") is not None:
        raise ck.fail(
            f"'{at}.queue_depth': not supported (deploy looks at the whole queue, ELiSE's default)",
            f"{at}.queue_depth",
        )
    if not elise and ("backfill_enabled" in item or "backfill_depth" in item):
        raise ck.fail(
            f"'{at}': backfill_enabled and backfill_depth are ELiSE schedulers' "
            f"attributes; give {base!r} its options in the spec",
            at,
        )
    for key in _INERT:
        if key in item:
            note = f"{key} has no effect: ELiSE's code never reads it"
            if note not in notes:
                notes.append(note)
    return EliseScheduler(k, base, bf, depth, elise)


def _closest_name(base: str, names: list[str], cutoff: float) -> str | None:
    """The one of ``names`` (ELiSE's scheduler names) ``base`` most looks like, if any looks
    enough like it."""
    import difflib

    close = difflib.get_close_matches(base, names, n=1, cutoff=cutoff)
    return close[0] if close else None


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def _actions(
    ck: Checker, raw: Any, n_inputs: int, n_scheds: int
) -> tuple[dict[str, tuple[Any, Any]], str | None]:
    if raw is None:
        return {}, None
    raw = ck.mapping(raw, "actions")
    out: dict[str, tuple[Any, Any]] = {}
    folder = None
    for name, spec in raw.items():
        at = f"actions.{name}"
        if name == "get_animated_cluster":
            raise ck.fail(
                f"'{at}': ELiSE opens an interactive window for it; not supported "
                "(coschedlab report draws the machine over time)",
                at,
            )
        if name not in ACTIONS:
            ck.keys({name: None}, tuple(ACTIONS), "actions")
        spec = ck.mapping(spec, at)
        for key in ("inputs", "schedulers"):
            ck.require(spec, key, at)
        picks = []
        for key, n in (("inputs", n_inputs), ("schedulers", n_scheds)):
            v = spec[key]
            if v == "all":
                picks.append("all")
                continue
            items = ck.items(v, f"{at}.{key}")
            picks.append(
                tuple(
                    ck.integer(x, f"{at}.{key}[{i}]", minimum=0, maximum=n - 1)
                    for i, x in enumerate(items)
                )
            )
        for key, value in spec.items():
            if key in ("inputs", "schedulers"):
                continue
            if key != "dir":
                raise ck.fail(
                    f"unknown key '{at}.{key}' (an action takes inputs, schedulers and dir)",
                    f"{at}.{key}",
                )
            # ELiSE keeps one value per extra key: the last action's dir is every action's
            folder = ck.string(value, f"{at}.dir")
        out[name] = (picks[0], picks[1])
    return out, folder


# -- the runs -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """One simulation of the experiment: input ``inp`` (repeats counted) x scheduler ``k``,
    numbered ``sim`` as ELiSE numbers them."""

    sim: int
    inp: int
    k: int
    source: int  # the ``inputs`` item it was generated from


def expand(
    exp: Experiment, seed: int
) -> tuple[list[tuple[EliseInput, list[EliseJob], Pool]], list[Run]]:
    """Generate every input's jobs as ELiSE does (its clock starting at ``seed``), in ELiSE's
    order (each ``inputs`` item ``repeat`` times), and list the runs."""
    clock = EliseClock(seed)
    made = []
    for inp in exp.inputs:
        pool = load_pool(inp.pool)
        for _ in range(inp.repeat):
            jobs = generate(inp.generator, inp.arg, clock, pool, inp.where)
            _note_negative_limits(jobs, exp)
            if inp.distribution is not None:
                apply_distribution(jobs, *inp.distribution, clock, inp.where)
            jobs = setup_jobs(jobs)
            _check_fits(inp, jobs, exp)
            made.append((inp, jobs, pool))
    runs = []
    for i, (inp, _, _) in enumerate(made):
        for s in exp.schedulers:
            runs.append(Run(len(runs), i, s.index, inp.index))
    return made, runs


def _note_negative_limits(jobs: list[EliseJob], exp: Experiment) -> None:
    """A listed job's negative requested time is 0 in ELiSE (its ``Job`` takes ``wall_time if
    wall_time > 0 else 0`` when the batch runner copies the jobs): the same here
    (:func:`.generators.setup_jobs`), and a note names the first such line."""
    negative = [j for j in jobs if j.wall < 0]
    if not negative:
        return
    note = (
        f"{negative[0].at}: requested time {negative[0].wall:g} is taken as 0, as ELiSE "
        f"does (the job is killed at its start); {len(negative)} such job(s) in this input"
    )
    if note not in exp.notes:
        exp.notes.append(note)


def _check_fits(inp: EliseInput, jobs: list[EliseJob], exp: Experiment) -> None:
    """Every job fits the machine on whole nodes (else an error); a job too large to spread
    under ELiSE's co-schedulers (ELiSE loops for ever on it: its simulation loop catches the
    error and tries again) runs on whole nodes here, and a note says so."""
    c = inp.cluster
    half = c.sockets_per_node * (c.cores_per_socket // 2)
    spread = any(
        s.elise and SCHEDULERS[s.base][0] not in ("fcfs", "easy", "conservative")
        for s in exp.schedulers
    )
    wide = 0
    for job in jobs:
        whole = -(-job.procs // c.cores_per_node)
        if whole > c.nodes:
            raise InputError(
                f"job {job.id} ({job.app}, {job.procs} processes) needs {whole} nodes; the "
                f"cluster has {c.nodes} (ELiSE would loop for ever)",
                where=inp.where,
            )
        if spread and (not half or -(-job.procs // half) > c.nodes):
            wide += 1
    note = (
        f"input {inp.index}: {wide} job(s) cannot be spread on {c.nodes} nodes (ELiSE's "
        "co-schedulers would loop for ever on them); coschedlab runs them on whole nodes"
    )
    if wide and note not in exp.notes:
        exp.notes.append(note)


def describe(exp: Experiment, seed: int, compat: frozenset[str]) -> dict[str, Any]:
    """What the stored runs of ``exp`` depend on (``spec.json`` of its output folder)."""
    return {
        "kind": "elise",
        "experiment": exp.path.name,
        "digest": exp.digest,
        "seed": seed,
        "compat": sorted(compat),
        "schedulers": [s.spec(compat) for s in exp.schedulers],
    }


def parse_compat(text: str | None) -> frozenset[str]:
    """``--compat``: ``all``, ``none`` or a comma-separated list of :data:`COMPAT` names."""
    if text is None or text.strip() in ("", "none"):
        return frozenset()
    if text.strip() == "all":
        return frozenset(COMPAT)
    names = [t.strip() for t in text.split(",") if t.strip()]
    for n in names:
        if n not in COMPAT:
            raise InputError(
                f"--compat: unknown name {n!r}; choose all, none or {', '.join(COMPAT)}"
            )
    return frozenset(names)


def dump(obj: Mapping) -> str:
    """JSON text with a final newline (``spec.json``)."""
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"
