"""The package's compiled extension modules (the rest of the build is in pyproject.toml).

Every ``*.pyx`` under ``src/coschedlab`` is one extension module named by its path
(``src/coschedlab/_core/swf_parse.pyx`` -> ``coschedlab._core.swf_parse``), compiled by Cython
with the directives of :data:`DIRECTIVES` (set here once for all modules; a module may
override one locally, e.g. ``@cython.boundscheck(True)``). A module that needs C sources of
its own names them in its header (``# distutils: sources = helper.c``). A module linked to
SimGrid's C++ library (``# distutils: libraries = simgrid``: the in situ ``activities`` engine)
is built only where SimGrid's headers are installed (Debian ``libsimgrid-dev``, beside
``python3-simgrid``); without it that engine reports what is missing. Cython's generated C
goes to ``build/cython``; the editable install (``pip install -e .``) puts the built module
next to its ``.pyx``, and ``python setup.py build_ext --inplace`` rebuilds it.
"""

from __future__ import annotations

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
SRC = "src"

#: Compiler directives of every module: Python 3 semantics; no bounds or negative-index checks
#: on typed memoryviews and no zero-division checks (the code indexes within the sizes it
#: allocates and tests divisors itself).
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "embedsignature": True,
}


#: modules translated and compiled at once (``build_ext --parallel``; Cython's ``nthreads``):
#: one per core, so that a fresh set-up on 2 cores takes about half the time of one at a time
JOBS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)

#: where SimGrid's C++ headers are looked for
SIMGRID_HEADERS = ("/usr/include", "/usr/local/include", "/opt/simgrid/include")


def _needs_missing_simgrid(pyx: Path) -> bool:
    """The module links to SimGrid's C++ library and its headers are not installed."""
    head = pyx.read_text().split("\n", 5)[:5]
    if not any(line.startswith("# distutils: libraries") and "simgrid" in line for line in head):
        return False
    return not any((Path(d) / "simgrid" / "s4u.hpp").exists() for d in SIMGRID_HEADERS)


def extensions() -> list[Extension]:
    """One Extension per ``.pyx`` under ``src/coschedlab`` (paths relative to this file)."""
    modules = sorted(
        pyx for pyx in (ROOT / SRC / "coschedlab").rglob("*.pyx") if not _needs_missing_simgrid(pyx)
    )
    exts = [
        Extension(
            ".".join(pyx.relative_to(ROOT / SRC).with_suffix("").parts),
            [pyx.relative_to(ROOT).as_posix()],
            extra_compile_args=["-O3"],
        )
        for pyx in modules
    ]
    return cythonize(
        exts,
        compiler_directives=DIRECTIVES,
        include_path=[SRC],  # `cimport coschedlab._core.NAME` finds NAME.pxd
        build_dir="build/cython",
        quiet=True,
        nthreads=JOBS,
    )


setup(ext_modules=extensions(), options={"build_ext": {"parallel": JOBS}})
