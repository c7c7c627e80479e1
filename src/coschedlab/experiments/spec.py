"""Comparison specs: which workloads x schedulers x repetitions to run (docs/experiments.md).

A spec is a YAML file, read by :func:`load_spec` and validated strictly by the project's one
spec checker (:mod:`coschedlab.schema`): an unknown key anywhere is an
:class:`~coschedlab.errors.InputError` naming the file, the line, the key path and the closest
known key, and so is a value of the wrong type. Relative data paths (``pool``, ``trace``,
scheduler ``.py`` files) are relative to the spec file; ``output`` is relative to the current
directory, like ``--out``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..bundled import data_path
from ..errors import InputError
from ..outputs import slug
from ..platform import MAX_CORES, MAX_NODES, Cluster
from ..schema import MOST_NAME, Checker, load_yaml
from ..sweeps.capability import spec_place
from ..sweeps.sweep import MAX_REPETITIONS

__all__ = [
    "PLOTS",
    "SchedulerSpec",
    "Spec",
    "WorkloadSpec",
    "file_digest",
    "load_spec",
    "spec_from_dict",
]

PLOTS = ("comparison", "full", "none")
#: bounds of what a spec may ask for (far beyond any machine or study; they catch typos that
#: would otherwise run for days or exhaust the memory)
MAX_DRAWN_JOBS = 5_000_000

_TOP_KEYS = (
    "name", "cluster", "output", "repetitions", "seed", "kill_at_walltime", "baseline",
    "schedulers", "workloads", "plots", "executor",
)  # fmt: skip
_CLUSTER_KEYS = ("nodes", "sockets_per_node", "cores_per_socket")
_SCHED_KEYS = ("name", "spec")
_POOL_KEYS = (
    "name", "pool", "jobs", "arrival", "names", "weights", "select", "shuffle",
    "requested_factor", "colocation", "cluster",
)  # fmt: skip
_TRACE_KEYS = ("name", "trace", "limit", "cluster")
_SELECT_KEYS = ("procs",)
#: what a comparison writes beside its workloads' folders (the store's analysis outputs, spec
#: and sweep files): no workload may be named so
RESERVED_NAMES = ("comparison.csv", "runs.csv", "improvement.png", "plots", "spec.json",
                  "sweep.json")  # fmt: skip


# -- the spec ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SchedulerSpec:
    """One scheduler of the comparison: a display ``label`` and the scheduler ``spec`` string."""

    label: str
    spec: str

    @property
    def slug(self) -> str:
        """The directory name of this scheduler's runs."""
        return slug(self.label)


@dataclass(frozen=True)
class WorkloadSpec:
    """One workload: generated from an application pool, or read from an SWF trace.

    ``path`` is the absolute pool or trace file; ``cluster`` the machine it runs on.
    Pool workloads use ``jobs``, ``arrival``, ``names``, ``weights``, ``select_procs``,
    ``shuffle``, ``requested_factor`` and ``colocation``; trace workloads use ``limit``.
    """

    name: str
    kind: str  # "pool" or "trace"
    path: str
    cluster: Cluster
    jobs: int | None = None
    arrival: str = "constant:0"
    names: tuple[str, ...] | None = None
    weights: tuple[tuple[str, float], ...] | None = None
    select_procs: tuple[int, ...] | None = None
    shuffle: bool = False
    requested_factor: float = 1.4
    colocation: bool = True
    limit: int | None = None

    def describe(self) -> dict[str, Any]:
        """Everything that determines this workload's runs, as plain JSON (with file digest)."""
        c = self.cluster
        out: dict[str, Any] = {
            "kind": self.kind,
            "file": Path(self.path).name,  # by name and content: moving the project is fine
            "digest": file_digest(self.path),
            "cluster": [c.nodes, c.sockets_per_node, c.cores_per_socket],
        }
        if self.kind == "trace":
            out["limit"] = self.limit
            return out
        out.update(
            jobs=self.jobs,
            arrival=self.arrival,
            names=list(self.names) if self.names is not None else None,
            weights=dict(self.weights) if self.weights is not None else None,
            select_procs=list(self.select_procs) if self.select_procs is not None else None,
            shuffle=self.shuffle,
            requested_factor=self.requested_factor,
            colocation=self.colocation,
        )
        return out


@dataclass(frozen=True)
class Spec:
    """A validated comparison spec (see docs/experiments.md for every key)."""

    path: Path
    name: str
    output: Path
    repetitions: int
    seed: int
    kill_at_walltime: bool
    baseline: str
    schedulers: tuple[SchedulerSpec, ...]
    workloads: tuple[WorkloadSpec, ...]
    plots: str = "comparison"
    executor: Any = None  # where the runs execute (an ExecutorSpec; None: local)

    @property
    def title(self) -> str:
        """What the comparison command's first line calls it."""
        return (f"{self.name}: {len(self.workloads)} workload(s) x {len(self.schedulers)} "
                f"scheduler(s) x {self.repetitions} repetition(s)")  # fmt: skip

    def scheduler(self, label: str) -> SchedulerSpec:
        """The scheduler labelled ``label``."""
        return next(s for s in self.schedulers if s.label == label)

    def describe(self) -> dict[str, Any]:
        """What determines the runs (not presentation keys such as baseline or plots)."""
        return {
            "seed": self.seed,
            "kill_at_walltime": self.kill_at_walltime,
            "schedulers": {s.label: _scheduler_identity(s.spec) for s in self.schedulers},
            "workloads": {w.name: w.describe() for w in self.workloads},
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`describe` plus the repetitions (identifies the whole comparison)."""
        doc = {**self.describe(), "repetitions": self.repetitions}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=64)
def _digest_cached(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes (cached on path, size and modification time)."""
    st = Path(path).stat()
    return _digest_cached(str(path), st.st_size, st.st_mtime_ns)


def _scheduler_identity(spec: str) -> str:
    """The scheduler spec, plus the digest of its ``.py`` file when it names one."""
    from ..schedulers.registry import parse_spec

    name = parse_spec(spec)[0]
    if name.endswith(".py") and Path(name).is_file():
        return f"{Path(name).name}{spec[len(name) :]} sha256={file_digest(name)}"
    return spec


# -- parsing ----------------------------------------------------------------------------------
def load_spec(path: str | Path) -> Spec:
    """Read and validate a comparison spec file (YAML, through :mod:`coschedlab.schema`)."""
    path = Path(path)
    return spec_from_dict(load_yaml(path, "a YAML spec file"), path)


def spec_from_dict(raw: Any, path: str | Path, load_schedulers: bool = True) -> Spec:
    """Validate a parsed spec document; ``path`` is the spec file (for messages and paths).
    ``load_schedulers=False`` checks every scheduler spec's form but loads none (a ``.py``
    policy's module code does not run: for a caller that loads them in a process of its
    own, such as the dashboard)."""
    path = Path(path)
    ck = Checker(str(path), raw)
    base = path.resolve().parent
    if raw is None:
        raise ck.fail("the spec is empty; see docs/experiments.md for an example")
    raw = ck.mapping(raw, "the spec")
    ck.keys(raw, _TOP_KEYS, "")
    for key in ("schedulers", "workloads"):
        ck.require(raw, key, "")
    default_cluster = _cluster(raw["cluster"], "cluster", ck) if "cluster" in raw else None
    schedulers, shared = _schedulers(raw["schedulers"], base, ck, load_schedulers)
    workloads = tuple(
        _workload(w, f"workloads[{i}]", base, default_cluster, ck)
        for i, w in enumerate(ck.items(raw["workloads"], "workloads"))
    )
    _check_shared_nodes(schedulers, shared, workloads, ck)
    names = [w.name for w in workloads]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:  # the line of the second
        second = names.index(dup, names.index(dup) + 1)
        raise ck.fail(f"workload name {dup!r} is used twice in 'workloads'", f"workloads[{second}]")
    labels = [s.label for s in schedulers]
    baseline = ck.string(raw.get("baseline", labels[0]), "baseline")
    if baseline not in labels:
        by_spec = [s.label for s in schedulers if s.spec == baseline]
        if len(by_spec) != 1:
            close = difflib.get_close_matches(baseline, labels, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"labels: {', '.join(labels)}"
            raise ck.fail(f"'baseline' must be one of the scheduler labels ({hint})", "baseline")
        baseline = by_spec[0]
    plots = ck.choice(raw.get("plots", "comparison"), "plots", PLOTS)
    return Spec(
        repetitions=ck.integer(raw.get("repetitions", 1), "repetitions", 1, MAX_REPETITIONS),
        seed=ck.integer(raw.get("seed", 0), "seed", minimum=0, maximum=2**63 - 1),
        kill_at_walltime=ck.boolean(raw.get("kill_at_walltime", False), "kill_at_walltime"),
        baseline=baseline,
        schedulers=schedulers,
        workloads=workloads,
        plots=plots,
        **spec_place(ck, raw, path, MOST_NAME, Path("out") / slug(path.stem)),
    )


def _check_shared_nodes(
    schedulers: tuple[SchedulerSpec, ...],
    shared: tuple[bool | None, ...],
    workloads: tuple[WorkloadSpec, ...],
    ck: Checker,
) -> None:
    """A co-scheduler runs on shared nodes, which only a pool workload with co-location
    gives: with any other workload its runs could only fail, so the spec is refused at the
    scheduler's line before any run. ``shared``: each scheduler's ``needs_shared_nodes``, as
    :func:`_schedulers` built it (None: a ``.py`` policy not loaded)."""
    plain = next((w for w in workloads if w.kind != "pool" or not w.colocation), None)
    if plain is None:
        return
    for i, (s, needs) in enumerate(zip(schedulers, shared, strict=True)):
        if needs:
            raise ck.fail(
                f"'schedulers[{i}]' ({s.label}) needs shared nodes, which workload "
                f"'{plain.name}' does not give (a trace, or a pool with colocation: false); "
                "put it in a spec of its own",
                f"schedulers[{i}]",
            )


def _cluster(v: Any, path: str, ck: Checker) -> Cluster:
    d = ck.mapping(v, path)
    ck.keys(d, _CLUSTER_KEYS, path)
    return Cluster(
        nodes=ck.integer(ck.require(d, "nodes", path), f"{path}.nodes", 1, MAX_NODES),
        sockets_per_node=ck.integer(
            d.get("sockets_per_node", 1), f"{path}.sockets_per_node", 1, MAX_CORES
        ),  # fmt: skip
        cores_per_socket=ck.integer(
            d.get("cores_per_socket", 1), f"{path}.cores_per_socket", 1, MAX_CORES
        ),  # fmt: skip
    )


def _schedulers(
    v: Any, base: Path, ck: Checker, load: bool = True
) -> tuple[tuple[SchedulerSpec, ...], tuple[bool | None, ...]]:
    """The schedulers of the spec, each parsed and built once (a ``.py`` policy only when
    ``load``), and whether each needs shared nodes (None: not built)."""
    from ..schedulers import get_scheduler
    from ..schedulers.registry import parse_spec

    out: list[SchedulerSpec] = []
    shared: list[bool | None] = []
    for i, item in enumerate(ck.items(v, "schedulers")):
        path = f"schedulers[{i}]"
        if isinstance(item, Mapping):
            ck.keys(item, _SCHED_KEYS, path)
            text = ck.string(ck.require(item, "spec", path), f"{path}.spec")
            label = ck.string(item["name"], f"{path}.name", MOST_NAME) if "name" in item else None
        else:
            text, label = ck.string(item, path), None
        sched_name = parse_spec(text)[0]
        if sched_name.endswith(".py"):
            file = Path(sched_name)
            resolved = file if file.is_absolute() else (base / file).resolve()
            text = str(resolved) + text[len(sched_name) :]
            label = label or Path(sched_name).stem + text[len(str(resolved)) :]
        label = label or text
        if "/" in label or "\\" in label:
            raise ck.fail(f"'{path}' label {label!r} must not contain '/'; give a name", path)
        if slug(label).startswith("."):  # ".", ".." or a hidden folder: not a run's own folder
            raise ck.fail(f"'{path}' label {label!r} cannot name a folder; give a name", path)
        built = None
        try:
            if load or not sched_name.endswith(".py"):
                built = get_scheduler(text)
        except InputError as exc:
            raise ck.fail(f"'{path}': {exc}", path) from None
        out.append(SchedulerSpec(label=label, spec=text))
        shared.append(None if built is None else bool(built.needs_shared_nodes))
    for key, what in ((lambda s: s.label, "label"), (lambda s: s.slug, "directory name")):
        values = [key(s) for s in out]
        dup = next((x for x in values if values.count(x) > 1), None)
        if dup is not None:  # the line of the second
            second = values.index(dup, values.index(dup) + 1)
            raise ck.fail(
                f"two schedulers share the {what} {dup!r}; "
                "give them names with {name: LABEL, spec: SPEC}",
                f"schedulers[{second}]",
            )
    return tuple(out), tuple(shared)


def _workload(
    v: Any, path: str, base: Path, default_cluster: Cluster | None, ck: Checker
) -> WorkloadSpec:
    d = ck.mapping(v, path)
    if "pool" in d and "trace" in d:
        raise ck.fail(
            f"'{path}' gives both 'pool' and 'trace'; a workload is one or the other", path
        )
    if "pool" not in d and "trace" not in d:
        raise ck.fail(f"'{path}' needs 'pool' (an application pool) or 'trace' (an SWF file)", path)
    kind = "pool" if "pool" in d else "trace"
    allowed = _POOL_KEYS if kind == "pool" else _TRACE_KEYS
    for key in d:
        if isinstance(key, str) and key not in allowed and key in _POOL_KEYS + _TRACE_KEYS:
            raise ck.fail(
                f"key '{path}.{key}' does not apply to a {kind} workload", f"{path}.{key}"
            )
    ck.keys(d, allowed, path)
    name = ck.name(ck.require(d, "name", path), f"{path}.name")
    if name in RESERVED_NAMES:
        raise ck.fail(
            f"'{path}.name' {name!r} is reserved for an output; choose another name", f"{path}.name"
        )
    cluster = _cluster(d["cluster"], f"{path}.cluster", ck) if "cluster" in d else default_cluster
    given = ck.string(d[kind], f"{path}.{kind}")
    try:  # bundled data (coschedlab:NAME), or relative to the spec
        file = str(data_path(given, base))
    except InputError as exc:
        raise ck.fail(f"'{path}.{kind}': {exc.what}", f"{path}.{kind}") from None
    if kind == "trace":
        limit = ck.integer(d["limit"], f"{path}.limit", minimum=1) if "limit" in d else None
        from ..workload.swf import cluster_from_header, read_swf

        trace = read_swf(file)
        cluster = cluster or cluster_from_header(trace.header)
        if cluster is None:
            raise ck.fail(
                f"'{path}': the trace has no MaxNodes/MaxProcs header; give 'cluster'", path
            )
        if not (trace.procs <= cluster.total_cores).any():  # else every run fails (exit 1)
            raise ck.fail(f"'{path}': no job of {file} fits the cluster ({cluster})", path)
        return WorkloadSpec(name=name, kind=kind, path=file, cluster=cluster, limit=limit)
    if cluster is None:
        raise ck.fail(f"'{path}' is a pool workload: give 'cluster' (top level or in it)", path)
    w = WorkloadSpec(
        name=name,
        kind=kind,
        path=file,
        cluster=cluster,
        jobs=ck.integer(d["jobs"], f"{path}.jobs", 1, MAX_DRAWN_JOBS) if "jobs" in d else None,
        arrival=ck.string(d.get("arrival", "constant:0"), f"{path}.arrival"),
        names=_names(d["names"], f"{path}.names", ck) if "names" in d else None,
        weights=_weights(d["weights"], f"{path}.weights", ck) if "weights" in d else None,
        select_procs=_select(d["select"], f"{path}.select", ck) if "select" in d else None,
        shuffle=ck.boolean(d.get("shuffle", False), f"{path}.shuffle"),
        requested_factor=ck.number(
            d.get("requested_factor", 1.4), f"{path}.requested_factor", positive=True
        ),
        colocation=ck.boolean(d.get("colocation", True), f"{path}.colocation"),
    )
    if w.jobs is None and w.names is None:
        raise ck.fail(f"'{path}' needs 'jobs' (how many to draw) or 'names' (the job list)", path)
    if w.colocation:  # shared nodes: a machine too large failed each run (MemoryError)
        from ..engine.accounting import check_shared

        try:
            check_shared(cluster.nodes, cluster.cores_per_node)
        except InputError as exc:
            where = f"{path}.cluster" if "cluster" in d else "cluster"
            raise ck.fail(f"'{where}': {exc.what}", where) from None
    try:
        from .workloads import build_workload

        build_workload(w, seed=0)  # a dry run: unknown applications, empty selections, ...
    except InputError as exc:
        raise ck.fail(f"'{path}': {exc}", path) from None
    return w


def _names(v: Any, path: str, ck: Checker) -> tuple[str, ...]:
    items = ck.items(v, path)
    return tuple(ck.string(x, f"{path}[{i}]") for i, x in enumerate(items))


def _weights(v: Any, path: str, ck: Checker) -> tuple[tuple[str, float], ...]:
    d = ck.mapping(v, path)
    if not d:
        raise ck.fail(f"'{path}' is empty; give {{application: weight}}", path)
    return tuple((str(k), ck.number(w, f"{path}.{k}")) for k, w in d.items())


def _select(v: Any, path: str, ck: Checker) -> tuple[int, ...]:
    d = ck.mapping(v, path)
    ck.keys(d, _SELECT_KEYS, path)
    procs = ck.require(d, "procs", path)
    items = [procs] if isinstance(procs, int) and not isinstance(procs, bool) else procs
    items = ck.items(items, f"{path}.procs")
    return tuple(ck.integer(p, f"{path}.procs[{i}]", minimum=1) for i, p in enumerate(items))
