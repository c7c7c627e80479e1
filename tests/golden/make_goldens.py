"""Write the golden schedules: ``.venv/bin/python tests/golden/make_goldens.py``.

Runs every case of ``_cases.py`` and writes ``data/golden.csv`` (per jobs.csv: its sha256, its
rows and the headline metrics), ``data/source.json`` (the commit the goldens come from) and,
for the fast cases, ``data/rows/*.csv.gz`` (the key columns of each distinct jobs.csv, shown
when a case differs). The whole traces take a while: ``--fast`` runs only the default run's
cases, ``--only TEXT`` the cases whose name holds TEXT (the other rows are kept).

The goldens are those of a *committed* tree, never of a working tree others are editing: the
code of ``--tree`` (default HEAD) is exported with ``git archive`` into a temporary directory
and this script reruns itself there (``--tree .``: the working tree as it is). Rerun it only
in a commit that says which bug the new schedules fix (the rule in test_golden_schedules.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cases import (  # noqa: E402
    DATA,
    GOLDEN_CSV,
    METRICS,
    PREFIX,
    ROOT,
    ROWS,
    all_cases,
    metric_cells,
    read_golden,
    rows_file,
    sha256,
    write_rows,
)

SOURCE = DATA / "source.json"


def main(argv: list[str] | None = None) -> None:
    """Run the chosen cases and store their goldens."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="only the default run's cases")
    ap.add_argument("--only", default=None, help="only the cases whose name holds this text")
    ap.add_argument("--tree", default="HEAD", help="the commit to run (.: the working tree)")
    ap.add_argument("--into", default=None, help=argparse.SUPPRESS)  # set by the re-run
    args = ap.parse_args(argv)
    if args.tree != ".":
        export_and_rerun(args, argv if argv is not None else sys.argv[1:])
        return
    if args.into is None:
        commit = _git("rev-parse", "HEAD") + (" + working tree" if _dirty() else "")
        args.into = str(DATA)
    else:
        commit = os.environ["GOLDEN_COMMIT"]
    run(args, Path(args.into), commit)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def _dirty() -> bool:
    return bool(_git("status", "--porcelain", "--", "src"))


def export_and_rerun(args: argparse.Namespace, argv: list[str]) -> None:
    """``git archive`` the commit ``args.tree`` into a temporary directory, copy this
    directory's scripts into it and run them there on that code (``PYTHONPATH``); the goldens
    land in this tree's ``data/``."""
    commit = _git("rev-parse", args.tree)
    with tempfile.TemporaryDirectory(prefix="goldens-") as tmp:
        tree = Path(tmp)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        here = Path(__file__).resolve().parent
        (tree / "tests" / "golden").mkdir(parents=True, exist_ok=True)
        for script in here.glob("*.py"):
            shutil.copy(script, tree / "tests" / "golden" / script.name)
        if (tree / "setup.py").exists():  # the compiled modules, as scripts/setup.sh builds them
            print("building the compiled modules of the export", flush=True)
            subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                           cwd=tree, check=True, capture_output=True)  # fmt: skip
        DATA.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PYTHONPATH=str(tree / "src"), GOLDEN_COMMIT=commit)
        rest = [a for a in argv if not a.startswith("--tree")]
        if "--tree" in argv:  # "--tree X" as two words
            i = argv.index("--tree")
            rest = argv[:i] + argv[i + 2 :]
        cmd = [sys.executable, str(tree / "tests/golden/make_goldens.py"), "--tree", ".",
               "--into", str(DATA), *rest]  # fmt: skip
        print(f"running the goldens of {commit[:12]} (exported to {tree})", flush=True)
        subprocess.run(cmd, env=env, check=True, cwd=tree)


def run(args: argparse.Namespace, into: Path, commit: str) -> None:
    """Run the cases on the code imported here and write the goldens into ``into``."""
    import coschedlab

    print(f"coschedlab from {Path(coschedlab.__file__).parent}", flush=True)
    cases = all_cases(False) + ([] if args.fast else all_cases(True))
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    golden_csv, rows_dir = into / GOLDEN_CSV.name, into / ROWS.name
    rows = read_golden(golden_csv)
    rows_dir.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    for case in cases:
        t = time.perf_counter()
        for old in [k for k in rows if k == case.name or k.startswith(case.name + "/")]:
            del rows[old]  # a case's outputs are all rewritten (a mode or system may go)
        with tempfile.TemporaryDirectory() as tmp:
            for label, data, metrics in case.run(Path(tmp)):
                rows[label] = {
                    "case": label,
                    "scope": "fast" if case.fast else "slow",
                    "rows": str(data.count(b"\n") - 1),
                    "sha256": sha256(data),
                    **metric_cells(metrics),
                }
                if case.fast:
                    write_rows(data, rows_dir)
        write_golden(golden_csv, rows)  # after each case: an interrupted run keeps its work
        print(f"{time.perf_counter() - t:7.2f} s  {case.name}", flush=True)
    kept = {rows_file(r["sha256"], rows_dir) for r in rows.values() if r["scope"] == "fast"}
    for path in rows_dir.glob("*.csv.gz"):
        if path not in kept:  # no case has this output any more
            path.unlink()
    write_source(into / SOURCE.name, commit, args)
    print(f"{len(cases)} cases in {time.perf_counter() - total:.1f} s, "
          f"{time.process_time():.1f} s CPU; wrote {golden_csv}", flush=True)  # fmt: skip


def write_source(path: Path, commit: str, args: argparse.Namespace) -> None:
    """source.json: the commit of the last whole run; a partial one (``--fast``, ``--only``)
    is added to its list ``partial`` with what it reran."""
    if not (args.fast or args.only) or not path.exists():
        source = {"commit": commit, "prefix": PREFIX}
        if args.fast or args.only:
            source["partial"] = []
    else:
        source = json.loads(path.read_text())
    if args.fast or args.only:
        what = ("fast cases" if args.fast else "cases") + (
            f" with {args.only!r}" if args.only else ""
        )
        source.setdefault("partial", []).append({"commit": commit, "rerun": what})
    path.write_text(json.dumps(source, indent=1) + "\n")


def write_golden(path: Path, rows: dict[str, dict[str, str]]) -> None:
    """golden.csv, one row per jobs.csv in name order (written whole, then moved in place)."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, ["case", "scope", "rows", "sha256", *METRICS], lineterminator="\n")
        w.writeheader()
        w.writerows(rows[k] for k in sorted(rows))
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
