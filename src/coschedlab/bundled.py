"""Data files shipped with the package (traces, application pools, studies, sweep specs),
named ``coschedlab:NAME`` wherever a file is asked for: in specs, on the command line and in
the dashboard; and the readers of a file so named or a path (:func:`read_bytes`,
:func:`read_json`)."""

from __future__ import annotations

import json
from pathlib import Path

from .errors import InputError, gunzip, refuse_device

__all__ = [
    "CATALOGUE",
    "PREFIX",
    "bundled",
    "data_path",
    "file_name",
    "in_words",
    "is_bundled",
    "local_path",
    "read_bytes",
    "read_json",
]

#: every bundled file and what it holds (``coschedlab data`` prints this)
CATALOGUE: dict[str, str] = {
    "KTH-SP2-1996-2.1-cln.swf.gz": "trace: KTH IBM SP2 1996-97 (Parallel Workloads Archive), "
    "28,476 jobs on 100 nodes; the demo's trace",
    "theta_2022.swf.gz": "trace: ALCF Theta 2022, 4,360 nodes; the coupled systems' large machine",
    "pools/lm-aris.compute-NAS.json": "ELiSE pool: NPB on ARIS (2 x 10 cores per node), "
    "33 applications, measured pairs",
    "pools/lm-aris.compute-SPEC.json": "ELiSE pool: SPEC MPI on ARIS, 8 applications",
    "pools/lm-remake-g5k.nancy.grvingt-NAS.json": "ELiSE pool: NPB on Grid'5000 grvingt "
    "(2 x 16 cores per node), 13 applications",
    "pools/lm-remake-g5k.nancy.grvingt-LARGENAS.json": "ELiSE pool: the grvingt NAS pool "
    "under ELiSE's LARGENAS name (identical)",
    "pools/lm-remake-g5k.nancy.grvingt-NASx10.json": "ELiSE pool: grvingt NPB, ELiSE's NASx10 "
    "variant",
    "helium_study.yaml": "study: SimX's helium plume study (`study run helium`)",
    "jobmodel_curie.csv.gz": "job model fitted on CEA Curie: the background load of "
    "`workflows generate`",
    "insitu_authors_fig4_runs.csv.gz": "in situ: the authors' published runs of Fig. 4",
    "insitu_authors_table2_runs.csv.gz": "in situ: the authors' published runs of Table 2",
    "workflows/CyberShake_1000.xml.gz": "workflow: Pegasus DAX of CyberShake, 1,000 tasks "
    "(WorkflowSim's copy of the Pegasus workflow generator's output)",
    "sweeps/woas_small.yaml": "sweep: WoAS in small (`workflows compare`), about a minute",
    "sweeps/coupled_small.yaml": "sweep: coupled systems in small (`coupled compare`)",
    "sweeps/elise_small.yaml": "sweep: an ELiSE experiment file, 300 ARIS jobs x 3 "
    "schedulers (`elise run`)",
}

#: how a spec or a command names a bundled file: ``coschedlab:KTH-SP2-1996-2.1-cln.swf.gz``
PREFIX = "coschedlab:"


def is_bundled(value: str) -> bool:
    """Whether ``value`` names a bundled file (``coschedlab:NAME``)."""
    return str(value).startswith(PREFIX)


def bundled(name: str) -> Path:
    """The installed path of the bundled data file ``name`` (``pools/aris.json``, with or
    without the ``coschedlab:`` prefix); :class:`InputError` when there is none."""
    name = str(name).removeprefix(PREFIX)
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise InputError(f"no bundled data file {name!r}{_see}")
    root = _data_folder()
    file = root / name
    if not file.is_file() and len(parts) == 1:  # a pool or sweep named without its folder
        found = sorted(f for f in root.glob(f"*/{name}") if f.is_file())
        file = found[0] if len(found) == 1 else file
    if not file.is_file():
        raise InputError(f"no bundled data file {name!r}{_see}")
    return file.resolve()


_see = " (`coschedlab data` lists them)"


def file_name(value: str | Path) -> str:
    """The file name ``value`` names, as a user reads it: ``KTH-SP2.swf.gz`` for
    ``coschedlab:KTH-SP2.swf.gz`` and for ``traces/KTH-SP2.swf.gz``."""
    return Path(str(value).removeprefix(PREFIX)).name


def local_path(value: str | Path) -> Path:
    """The file ``value`` names: a bundled file's installed path for ``coschedlab:NAME``,
    else ``value`` as a path (whether it exists is the reader's business)."""
    return bundled(str(value)) if is_bundled(str(value)) else Path(value)


def data_path(value: str, base: Path | None = None) -> Path:
    """A data file a spec or a command names: ``coschedlab:NAME`` (:func:`bundled`), else a
    path, relative to ``base`` (a spec's folder) when given; it must exist (else
    :class:`InputError`)."""
    if is_bundled(value):
        return bundled(value)
    file = Path(value).expanduser()
    if base is not None and not file.is_absolute():
        file = base / file
    if file.is_dir():
        raise InputError(f"{str(file)!r} is a directory, not a file")
    if not file.is_file():
        raise InputError(f"no such file {str(file)!r}")
    return file.resolve()


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes (gunzipped when gzip); a file that cannot be read is an
    :class:`InputError` naming it; ``coschedlab:NAME`` reads a bundled file."""
    path = local_path(path)
    try:
        refuse_device(path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", where=str(path)) from None
    return gunzip(data, str(path))


def read_json(path: str | Path) -> object:
    """Parse a JSON file (gzip allowed); a missing, unreadable or malformed file is an
    :class:`InputError` naming it."""
    data = read_bytes(path)
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:  # file:line, as every other message
        raise InputError(
            f"not valid JSON ({exc.msg}, column {exc.colno})", where=f"{path}:{exc.lineno}"
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})", where=str(path)) from None
    except RecursionError:
        raise InputError("not valid JSON (nested too deeply)", where=str(path)) from None


def in_words(text: str) -> str:
    """``text`` (a message) with the installed data folder named as users name it
    (``.../site-packages/coschedlab/data/sweeps/x.yaml`` -> ``coschedlab:sweeps/x.yaml``)."""
    folder = str(_data_folder().resolve())
    return text.replace(folder + "/", PREFIX)


def _data_folder() -> Path:
    """The installed ``coschedlab/data`` folder (``importlib.resources``, imported here: the
    plain command names no bundled file and does not load it, nor tempfile and shutil)."""
    from importlib import resources

    return Path(str(resources.files("coschedlab") / "data"))
