"""Imports point down the layers of the design notes (DESIGN.md), and packages form no circle.

Read with ``ast`` from the source (nothing is imported): every ``import`` of a coschedlab
module, at the top of a module or inside a function (DESIGN.md allows no lazy exception: "A
module never imports from a layer above it"); only imports under ``if TYPE_CHECKING:`` are left
out (annotations, never executed). The imports that break a rule today are listed below, each
with its reason; the list can only shrink: an entry that no longer occurs fails too (remove it).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "coschedlab"


def _registered_packages() -> tuple[str, ...]:
    """The packages the built-in capabilities' registrations name (``"coschedlab.PKG..."`` in
    capabilities.py, read with ``ast``): each is a capability of the layer of that name."""
    tree = ast.parse((PACKAGE / "capabilities.py").read_text())
    named = {m[1] for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str)
             and (m := re.match(r"coschedlab\.(\w+)[.:]", node.value))}  # fmt: skip
    return tuple(sorted(named))


#: DESIGN.md's layers, bottom first; a module belongs to the longest prefix that names it.
#: Modules DESIGN.md does not name are placed where what they do puts them (comments).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # what the runtime may depend on ("errors / outputs / schema"), and the helpers they use:
    # bundled files (schema and errors read them), the JSON cleaner, text-table formatting;
    # _build checks that the compiled modules are newer than their sources
    # (and _core.textrows, the writers' compiled rows and Arrow text buffers, a leaf module)
    (
        "base",
        (
            "errors",
            "outputs",
            "schema",
            "bundled",
            "jsonsafe",
            "tables",
            "_build",
            "_core.textrows",
        ),
    ),
    ("runtime", ("sweeps",)),
    # plain data: the validator reads job tables only; intervals/core_ids parse allocations;
    # generate makes workloads; _core.swf_parse is read_swf's compiled parse loop,
    # _core.checks the validator's scans, _core.kahan the metrics' per-group sums, _core.order
    # the stable orders and event sweep the metrics and the validator share
    (
        "model",
        (
            "platform",
            "jobs",
            "workload",
            "metrics",
            "report",
            "generate",
            "intervals",
            "core_ids",
            "validator",
            "_core.swf_parse",
            "_core.checks",
            "_core.kahan",
            "_core.order",
        ),
    ),  # fmt: skip
    ("engine", ("engine", "_core")),
    # simulation: one run wired (scheduler, speed model, pass time limit), below the API
    ("policies", ("schedulers", "simulation")),
    # the comparison sweep (spec, workloads, comparison, compare, plots) is the batch
    # simulation core's capability, as the other capabilities' sweeps in experiments/
    # capabilities: the registrations of the built-in ones are one module of this layer, and
    # every package they name is a capability (a new one is placed by its registration)
    ("capabilities", ("coloc", "capabilities", *_registered_packages())),
    ("interfaces", ("cli", "gui", "api", "__main__")),
)

#: Imports from a higher layer that exist today: (importer, imported module) -> why.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

#: Imports that close a circle between packages of the same layer: (importer, imported) -> why.
KNOWN_CIRCLES: dict[tuple[str, str], str] = {}


def _layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    return None if best is None else best[0]


def _modules() -> dict[str, Path]:
    out = {}
    paths = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx"), *PACKAGE.rglob("*.pxd")]
    for path in sorted(paths):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            out[".".join(parts)] = path
    return out


def _is_module(name: str) -> bool:
    base = PACKAGE.joinpath(*name.split("."))
    return (
        base.with_suffix(".py").is_file()
        or (base / "__init__.py").is_file()
        or any(base.parent.glob(base.name + ".*.so"))
        or base.with_suffix(".pyx").is_file()
    )


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


_CYTHON_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<mod>[.\w]+)[ \t]+c?import[ \t]+(?P<names>\([^)]*\)|[^\n#]+)"
    r"|c?import[ \t]+(?P<plain>[^\n#]+))",
    re.MULTILINE,
)


def _cython_imports_of(name: str, path: Path) -> list[tuple[str, int]]:
    """The coschedlab modules a Cython module (``.pyx``/``.pxd``) imports or cimports, with
    their lines: read with a regular expression (Cython is not Python's grammar); every
    import counts, as a compiled module has no TYPE_CHECKING blocks."""
    package = name.split(".")[:-1]
    text = path.read_text()
    out: list[tuple[str, int]] = []
    for m in _CYTHON_IMPORT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m["plain"]:
            targets = [t.split(" as ")[0].strip() for t in m["plain"].split(",")]
        else:
            mod = m["mod"]
            level = len(mod) - len(mod.lstrip("."))
            if level:
                base = package[: len(package) - (level - 1)]
                rest = mod.lstrip(".")
                mod = ".".join(["coschedlab", *base, *([rest] if rest else [])])
            names = m["names"].strip("() \t\n").replace("\n", " ").split(",")
            targets = [f"{mod}.{n.split(' as ')[0].strip()}" for n in names if n.strip()]
            targets = [t if _is_module(t.removeprefix("coschedlab.")) else mod for t in targets]
        out += [(t.removeprefix("coschedlab."), line) for t in targets
                if t.startswith("coschedlab.")]  # fmt: skip
    return out


def _imports_of(name: str, path: Path) -> list[tuple[str, int]]:
    """The coschedlab modules ``name`` (at ``path``) imports, with their lines."""
    if path.suffix in (".pyx", ".pxd"):
        return _cython_imports_of(name, path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: list[tuple[str, int]] = []
    todo: list[ast.AST] = [ast.parse(path.read_text(), str(path))]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            todo.extend(node.orelse)  # annotations only: never executed
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(["coschedlab", *base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" for a in node.names]
            targets = [t if _is_module(t.removeprefix("coschedlab.")) else module for t in targets]
        else:
            todo.extend(ast.iter_child_nodes(node))
            continue
        out += [(t.removeprefix("coschedlab."), node.lineno) for t in targets
                if t.startswith("coschedlab.")]  # fmt: skip
    return out


@cache
def _imports() -> dict[str, list[tuple[str, int]]]:
    """Per module (dotted, without ``coschedlab.``): the coschedlab modules it imports, with
    the line (TYPE_CHECKING blocks left out; the package root, which holds only __version__
    and lazy re-exports, is not counted)."""
    return {name: _imports_of(name, path) for name, path in _modules().items()}


def _edges() -> set[tuple[str, str]]:
    return {(m, t) for m, targets in _imports().items() for t, _ in targets}


def test_every_module_has_a_layer():
    unplaced = [m for m in _modules() if m and _layer_of(m) is None]
    assert not unplaced, f"place these modules in LAYERS (DESIGN.md's layers): {unplaced}"


def test_imports_point_down():
    upward = []
    for module, targets in _imports().items():
        here = _layer_of(module)
        for target, line in targets:
            there = _layer_of(target)
            if None not in (here, there) and there > here and (module, target) not in KNOWN_UPWARD:
                upward.append(
                    f"{_modules()[module].relative_to(PACKAGE.parent)}:{line} imports {target} "
                    f"({LAYERS[here][0]} -> {LAYERS[there][0]})"
                )
    assert not upward, "imports from a higher layer:\n" + "\n".join(sorted(set(upward)))


def test_known_exceptions_still_exist():
    """The lists only shrink: an exception that no longer occurs is removed from them."""
    gone = [pair for pair in (*KNOWN_UPWARD, *KNOWN_CIRCLES) if pair not in _edges()]
    assert not gone, f"no longer imported, remove from the exception lists: {gone}"
    for module, target in KNOWN_UPWARD:
        assert _layer_of(target) > _layer_of(module), f"{module} -> {target} is not upward"


def _package(module: str) -> str:
    """The package a module counts in: its top-level one, the runtime's modules apart (DESIGN.md
    makes the runner, store and executors a package of their own)."""
    return "runtime" if LAYERS[_layer_of(module) or 0][0] == "runtime" else module.split(".")[0]


def test_no_import_circle_among_packages():
    """Between top-level packages and modules (``experiments``, ``insitu``, ``metrics``...),
    the imports left after the listed exceptions form no circle."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, target in _edges():
        a, b = _package(module), _package(target)
        if a != b and a and (module, target) not in KNOWN_UPWARD | KNOWN_CIRCLES.keys():
            graph[a].add(b)
    circles = []
    for start in sorted(graph):  # a circle through start: a path back to it
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    circles.append(" -> ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    shown = sorted(set(circles), key=len)[:20]
    assert not circles, "import circles between packages:\n" + "\n".join(shown)
