"""Reading workflows: the WoAS manifest (JSON), WfCommons' WfFormat (JSON) and Pegasus DAX (XML),
plus :func:`coarsen`, which fuses a many-task DAG into per-stage tasks.

* **Manifest** (the seed's Fig. 4, and the authors' ScSF manifests): ``{"tasks": [{"id",
  "cores" | "number_of_cores", "runtime" | "runtime_sim", "runtime_limit", "deps"}]}``; ScSF's
  ``dot_dag`` edges (``S0->S1``) are read when a task has no ``deps``.
* **WfFormat** 1.x (``json.load`` and a local structural check; no schema is fetched): tasks
  from ``workflow.specification.tasks`` (1.5) or ``workflow.tasks`` (older), run times from
  ``workflow.execution.tasks[].runtimeInSeconds`` or the task's ``runtimeInSeconds`` /
  ``runtime``, cores from ``coreCount`` / ``cores`` (default 1).
* **DAX** (Pegasus 2.x/3.x): ``<job id name runtime [cores]>`` and ``<child ref><parent ref/>``;
  a decimal comma (``1,3283``, as in the authors' SIPHT file) is read as a point.

A task's time limit is its run time + 60 s when the file gives none (the authors' convention in
ScSF's ``xml2json``). Every file error is one :class:`InputError` naming the file (and the task).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..bundled import local_path, read_bytes, read_json
from ..errors import InputError
from .library import builtin, names
from .model import MAX_CORES, Task, Workflow, kahn

__all__ = ["coarsen", "load_workflow", "read_dax", "read_manifest", "read_wfformat"]

LIMIT_SLACK = 60.0  # seconds added to a run time when a file gives no time limit
MAX_VALUE = 1e10  # a time beyond 10^10 s (317 years) or a count beyond it is a corrupt value


def _number(v: Any, what: str, where: str) -> float:
    if isinstance(v, str):
        v = v.strip().replace(",", ".") if v.count(",") == 1 and "." not in v else v.strip()
        try:
            v = float(v)
        except ValueError:
            raise InputError(f"{what} is {v!r}, not a number", where) from None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InputError(f"{what} is {v!r}, not a number", where)
    try:
        x = float(v)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x) or abs(x) > MAX_VALUE:
        shown = f"{v!r}" if len(repr(v)) < 30 else repr(v)[:20] + "..."
        raise InputError(f"{what} is {shown}, not a number up to {MAX_VALUE:g}", where)
    return x


def _cores(v: Any, what: str, where: str) -> int:
    x = _number(v, what, where)
    if x != int(x) or x < 1 or x > MAX_CORES:
        raise InputError(f"{what} is {v!r}, not a positive whole number", where)
    return int(x)


def _name_of(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".json", ".xml", ".dax"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _task(
    tid: str,
    what: str,
    where: str,
    cores: Any,
    run: Any,
    limit: Any = None,
    deps: Iterable[Any] = (),
    stage: Any = "",
) -> Task:
    """The task ``tid`` of a file (``what``: the task as its messages name it), its values
    checked: a run time that is a number, not negative; a time limit (default: the run time
    + :data:`LIMIT_SLACK`); a positive whole number of cores; each parent once, in order."""
    runtime = _number(run, f"{what} runtime", where)
    if runtime < 0:
        raise InputError(f"{what} has a negative runtime {runtime:g}", where)
    limit = runtime + LIMIT_SLACK if limit is None else _number(limit, f"{what} limit", where)
    deps = tuple(dict.fromkeys(map(str, deps)))
    return Task(tid, _cores(cores, f"{what} cores", where), runtime, limit, deps, str(stage))


def _entries(items: list, where: str, label: str):
    """``(task object, task id)`` of a JSON task list; a non-object or one without an id is an
    error naming its index."""
    for k, t in enumerate(items):
        if not isinstance(t, Mapping):
            raise InputError(f"{label}tasks[{k}] is not an object", where)
        tid = t.get("id", t.get("name"))
        if tid is None:
            raise InputError(f'{label}tasks[{k}] has neither "id" nor "name"', where)
        yield t, str(tid)


# -- the WoAS manifest --------------------------------------------------------------------------
def read_manifest(path: str | Path, data: Any = None) -> Workflow:
    """A workflow from a WoAS/ScSF JSON manifest (see the module docstring)."""
    path = Path(path)
    where = str(path)
    if data is None:
        data = read_json(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("tasks"), list):
        raise InputError('a manifest is a JSON object with a "tasks" list', where)
    edges: dict[str, list[str]] = {}
    for a, b in re.findall(r"([\w.-]+)\s*->\s*([\w.-]+)", str(data.get("dot_dag", ""))):
        edges.setdefault(b, []).append(a)
    tasks = []
    for t, tid in _entries(data["tasks"], where, ""):
        what = f"task {tid}"
        unknown = set(t) - {
            "id",
            "name",
            "cores",
            "number_of_cores",
            "runtime",
            "runtime_sim",
            "runtime_limit",
            "deps",
            "cmd",
            "execution_cmd",
            "stage",
        }
        if unknown:
            raise InputError(f"{what} has unknown key(s) {', '.join(sorted(unknown))}", where)
        cores = t.get("cores", t.get("number_of_cores"))
        if cores is None:
            raise InputError(f'{what} has no "cores"', where)
        run = t.get("runtime", t.get("runtime_sim"))
        if run is None:
            raise InputError(f'{what} has no "runtime"', where)
        deps = t.get("deps")
        if deps is None:
            deps = edges.get(tid, [])
        if not isinstance(deps, list):
            raise InputError(f'{what} "deps" must be a list of task ids', where)
        # the seed's Fig. 4 writes a parent as {"SLong"}
        deps = [next(iter(d)) if isinstance(d, Mapping) and len(d) == 1 else d for d in deps]
        limit = t.get("runtime_limit")
        tasks.append(_task(tid, what, where, cores, run, limit, deps, t.get("stage", "")))
    return Workflow(str(data.get("name") or _name_of(path)), tuple(tasks), where)


# -- WfFormat -----------------------------------------------------------------------------------
def _stage_of(name: str) -> str:
    """``mProject_ID0000001`` -> ``mProject`` (WfCommons' task naming)."""
    return re.sub(r"_(ID)?\d+$", "", name)


def read_wfformat(path: str | Path, data: Any = None) -> Workflow:
    """A workflow from a WfCommons WfFormat instance (see the module docstring)."""
    path = Path(path)
    where = str(path)
    if data is None:
        data = read_json(path)
    wf = data.get("workflow") if isinstance(data, Mapping) else None
    if not isinstance(wf, Mapping):
        raise InputError('a WfFormat file has a "workflow" object', where)
    spec = wf.get("specification", wf)
    if not isinstance(spec, Mapping) or not isinstance(spec.get("tasks"), list):
        raise InputError(
            'WfFormat: "workflow.specification.tasks" (or "workflow.tasks") missing', where
        )
    execution: dict[str, Mapping] = {}
    ex = wf.get("execution")
    if isinstance(ex, Mapping) and isinstance(ex.get("tasks"), list):
        for e in ex["tasks"]:
            if isinstance(e, Mapping) and "id" in e:
                execution[str(e["id"])] = e
    tasks = []
    for t, tid in _entries(spec["tasks"], where, "WfFormat: "):
        e = execution.get(tid, t)
        run = e.get("runtimeInSeconds", e.get("runtime", t.get("runtimeInSeconds")))
        if run is None:
            raise InputError(f"WfFormat: task {tid} has no runtimeInSeconds", where)
        cores = e.get("coreCount", e.get("cores", t.get("cores", 1)))
        cores = 1 if cores is None else cores
        parents = t.get("parents", [])
        if not isinstance(parents, list):
            raise InputError(f'WfFormat: task {tid} "parents" is not a list', where)
        stage = t.get("category") or _stage_of(str(t.get("name", tid)))
        what = f"WfFormat: task {tid}"
        tasks.append(_task(tid, what, where, cores, run, None, parents, stage))
    return Workflow(str(data.get("name") or _name_of(path)), tuple(tasks), where)


# -- Pegasus DAX --------------------------------------------------------------------------------
def read_dax(path: str | Path) -> Workflow:
    """A workflow from a Pegasus DAX file: one task per ``<job>`` (see the module docstring)."""
    path = Path(path)
    where = str(path)
    try:
        root = ET.fromstring(read_bytes(path))
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputError(f"not valid XML ({exc})", f"{path}:{line}" if line else where) from None
    if _local(root.tag) != "adag":
        raise InputError(f"a DAX file's root element is <adag>, not <{_local(root.tag)}>", where)
    jobs: dict[str, Task] = {}
    parents: dict[str, list[str]] = {}
    for el in root:
        tag = _local(el.tag)
        if tag == "job":
            jid = el.get("id")
            if not jid:
                raise InputError("a <job> has no id", where)
            if jid in jobs:
                raise InputError(f"job {jid} is defined twice", where)
            run = el.get("runtime")
            if run is None:
                raise InputError(f"job {jid} has no runtime attribute", where)
            cores, stage = el.get("cores", 1), el.get("name", "")
            jobs[jid] = _task(jid, f"job {jid}", where, cores, run, stage=stage)
        elif tag == "child":
            ref = el.get("ref")
            if not ref:
                raise InputError("a <child> has no ref", where)
            for p in el:
                if _local(p.tag) == "parent" and p.get("ref"):
                    parents.setdefault(ref, []).append(p.get("ref"))
    if not jobs:
        raise InputError("the DAX has no <job>", where)
    for child in parents:
        if child not in jobs:
            raise InputError(f"<child ref={child!r}> names no job", where)
    # a job's parents, given after it (by <child> elements)
    deps = {jid: tuple(dict.fromkeys(p)) for jid, p in parents.items()}
    tasks = tuple(replace(t, deps=deps.get(jid, ())) for jid, t in jobs.items())
    name = root.get("name")
    return Workflow(name if name and name != "test" else _name_of(path), tasks, where)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


# -- any file or name -----------------------------------------------------------------------------
def load_workflow(
    spec: str | Path, coarse: bool | Sequence[str] = False, max_cores: int | None = None
) -> Workflow:
    """A built-in workflow by name (``montage``, ``A8``, ...) or a file: ``.xml``/``.dax``
    (Pegasus DAX), ``.json`` (a WfFormat instance or a WoAS manifest; gzip allowed).
    ``coarse`` fuses same-stage tasks (True: every stage; a list: those stages), see
    :func:`coarsen`."""
    text = str(spec)
    path = Path(text)
    if not text.strip():
        raise InputError("give a workflow name or file, not an empty string")
    if "/" not in text and not path.suffix:  # a name: the built-ins come first
        wf = builtin(text)
        if wf is None and path.is_dir():  # (a folder given as a workflow: not an unknown name)
            raise InputError(f"workflow {text!r} is a directory, not a workflow file")
        if wf is None:
            raise InputError(
                f"unknown workflow {text!r}: give a file (.json, .xml, .dax) or one of "
                + ", ".join(names())
            )
    else:
        path = local_path(text)  # coschedlab:NAME: a bundled file
        if path.is_dir():
            raise InputError(f"workflow {text!r} is a directory, not a workflow file")
        low = path.name.lower().removesuffix(".gz")
        if low.endswith((".xml", ".dax")):
            wf = read_dax(path)
        elif low.endswith(".json"):
            data = read_json(path)
            if isinstance(data, Mapping) and "workflow" in data:
                wf = read_wfformat(path, data)
            else:
                wf = read_manifest(path, data)
        else:
            raise InputError(
                "unknown workflow format: use .json (manifest or WfFormat) or "
                ".xml/.dax (Pegasus DAX)",
                str(path),
            )
    if coarse:
        wf = coarsen(wf, None if coarse is True else list(coarse), max_cores=max_cores)
    elif max_cores is not None:
        raise InputError("max_cores applies to a coarsened workflow (give coarse)")
    return wf


# -- coarsening -----------------------------------------------------------------------------------
def coarsen(
    wf: Workflow,
    stages: Iterable[str] | None = None,
    max_cores: int | None = None,
    fuse_chains: bool = True,
) -> Workflow:
    """Fuse a many-task DAG into per-stage tasks, as the WoAS authors' framework did (ScSF's
    ``xml2json``): all tasks of one stage (``stages``: these names; None: every stage) become
    one task of the summed cores running as long as the longest member; with ``max_cores`` a
    stage wider than that runs its members in waves on ``max_cores`` cores (list scheduling,
    longest first). A stage depends on every stage one of its members depends on. Then, with
    ``fuse_chains``, a task whose only parent has it as only child and the same cores is
    merged into that parent. Tasks are renamed ``S0, S1, ...`` level by level; the time limit
    is the run time + 60 s. A fusion that would create a cycle (a stage on two levels of the
    DAG) is an :class:`InputError` naming the stage."""
    where = wf.source or f"workflow {wf.name}"
    chosen = None if stages is None else set(stages)
    if chosen is not None:
        missing = chosen - {t.stage for t in wf.tasks}
        if missing:
            raise InputError(
                f"coarsen: no task belongs to stage(s) {', '.join(sorted(missing))}", where
            )
    if max_cores is not None and (
        isinstance(max_cores, bool) or not isinstance(max_cores, int) or max_cores < 1
    ):
        raise InputError(f"coarsen: max_cores must be a positive integer, got {max_cores!r}")
    group_of: dict[str, str] = {}
    members: dict[str, list[Task]] = {}
    for t in wf.tasks:
        g = f"stage:{t.stage}" if t.stage and (chosen is None or t.stage in chosen) else t.id
        group_of[t.id] = g
        members.setdefault(g, []).append(t)
    groups: dict[str, dict[str, Any]] = {}
    for g, ts in members.items():
        cores = sum(t.cores for t in ts)
        run = max(t.runtime for t in ts)
        if max_cores is not None and cores > max_cores:
            cores, run = _waves(ts, max_cores, where)
        deps = {group_of[d] for t in ts for d in t.deps} - {g}
        groups[g] = {"cores": cores, "runtime": run, "deps": deps, "stage": ts[0].stage}
    _check_acyclic(groups, where)
    if fuse_chains:
        _fuse_chains(groups)
    order = _levels(groups)
    rename = {g: f"S{k}" for k, g in enumerate(order)}
    tasks = tuple(
        Task(
            rename[g],
            groups[g]["cores"],
            groups[g]["runtime"],
            groups[g]["runtime"] + LIMIT_SLACK,
            tuple(sorted((rename[d] for d in groups[g]["deps"]), key=lambda s: int(s[1:]))),
            groups[g]["stage"],
        )
        for g in order
    )
    return Workflow(wf.name, tasks, wf.source)


def _waves(ts: list[Task], cores: int, where: str) -> tuple[int, float]:
    """Members run on ``cores`` cores, longest first, each as soon as cores free up."""
    import heapq

    if max(t.cores for t in ts) > cores:
        raise InputError(f"coarsen: a task needs more than max_cores={cores} cores", where)
    free, now, running, end = cores, 0.0, [], 0.0
    for t in sorted(ts, key=lambda t: -t.runtime):
        while free < t.cores:
            e, c = heapq.heappop(running)
            now, free = max(now, e), free + c
        free -= t.cores
        heapq.heappush(running, (now + t.runtime, t.cores))
        end = max(end, now + t.runtime)
    return cores, end


def _check_acyclic(groups: dict[str, dict[str, Any]], where: str) -> None:
    order, left = kahn({g: v["deps"] for g, v in groups.items()})
    if len(order) < len(groups):
        stuck = sorted(
            g.removeprefix("stage:") for g, n in left.items() if n and g.startswith("stage:")
        )
        raise InputError(
            "coarsen: fusing stage(s) " + ", ".join(stuck or sorted(left)) + " creates a cycle "
            "(a stage on several levels of the DAG); leave it out of the stages to fuse",
            where,
        )


def _fuse_chains(groups: dict[str, dict[str, Any]]) -> None:
    """Merge every task whose only parent has it as only child and the same cores into that
    parent (one pass in topological order: a chain a -> b -> c becomes one task)."""
    children: dict[str, list[str]] = {g: [] for g in groups}
    for g, v in groups.items():
        for d in v["deps"]:
            children[d].append(g)
    into: dict[str, str] = {}  # a merged task -> the task it went into

    def head(g: str) -> str:
        while g in into:
            g = into[g]
        return g

    for b in _levels(groups):
        deps = {head(d) for d in groups[b]["deps"]}
        groups[b]["deps"] = deps
        if len(deps) != 1:
            continue
        (a,) = deps
        if len(children[a]) == 1 and groups[a]["cores"] == groups[b]["cores"]:
            groups[a]["runtime"] += groups[b]["runtime"]
            children[a] = children.pop(b)
            into[b] = a
    for b in into:
        del groups[b]
    for v in groups.values():
        v["deps"] = {head(d) for d in v["deps"]}


def _levels(groups: dict[str, dict[str, Any]]) -> list[str]:
    """Groups level by level (roots first), in a stable order within a level."""
    level: dict[str, int] = {}
    for g in kahn({g: v["deps"] for g, v in groups.items()})[0]:  # parents first
        level[g] = 1 + max((level[d] for d in groups[g]["deps"]), default=-1)
    rank = {g: k for k, g in enumerate(groups)}
    return sorted(groups, key=lambda g: (level[g], rank[g]))
