"""``coschedlab generate`` and ``coschedlab report``: ELiSE-style workloads and their plots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..errors import InputError
from .options import ForceOpt, csv_items
from .progress import text_console

console = text_console()


def _int_list(text: str, option: str) -> set[int]:
    """``"4,8"`` -> ``{4, 8}``; anything else is an InputError naming ``option``."""
    out = set()
    for item in csv_items(text) or []:
        try:
            out.add(int(item))
        except ValueError:
            raise InputError(
                f"{option} takes whole numbers separated by commas, got {item!r}"
            ) from None
    return out


def parse_frequencies(text: str | None) -> dict[str, float] | None:
    """``"lu.E.2048=2,cg.D.64=1"`` -> ``{"lu.E.2048": 2.0, "cg.D.64": 1.0}``."""
    if not text:
        return None
    out: dict[str, float] = {}
    for item in csv_items(text) or []:
        name, sep, value = item.rpartition("=")
        try:
            out[name] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name:
            raise InputError(f"--frequencies item {item!r} is not NAME=WEIGHT")
    return out


def load_pool_option(pool: Path | None, heatmap: Path | None, compact_times: Path | None):
    """The application pool from ``--pool`` or from ``--heatmap`` + ``--compact-times``
    (the co-location package, and with it pandas, is imported only then)."""
    if pool is not None and heatmap is not None:
        raise InputError("give --pool or --heatmap, not both")
    if pool is not None and compact_times is not None:  # it was ignored
        raise InputError("--compact-times goes with --heatmap (a pool holds its compact times)")
    if pool is not None:
        from ..coloc import load_pool

        return load_pool(pool)
    if heatmap is not None:
        if compact_times is None:
            raise InputError("--heatmap needs --compact-times (app,procs,compact_time)")
        from ..coloc import Pool

        return Pool.from_heatmap(heatmap, compact_times)
    if compact_times is not None:
        raise InputError("--compact-times goes with --heatmap")
    return None


def generate(
    out: Annotated[Path, typer.Option(help="output SWF (.swf or .swf.gz)")],
    jobs: Annotated[
        int | None, typer.Option(help="number of jobs (default 100; with --names: its length)")
    ] = None,
    pool: Annotated[Path | None, typer.Option(help="ELiSE application pool JSON")] = None,
    heatmap: Annotated[Path | None, typer.Option(help="heatmap CSV/JSON instead of a pool")] = None,
    compact_times: Annotated[Path | None, typer.Option(help="app,procs,compact_time CSV")] = None,
    nodes: Annotated[
        int | None, typer.Option(help="nodes of the machine (default: the pool's machine)")
    ] = None,
    cores_per_node: Annotated[
        int | None, typer.Option(help="cores per node (default: the pool's machine)")
    ] = None,
    sockets: Annotated[
        int | None, typer.Option(help="sockets per node (default: the pool's machine)")
    ] = None,
    arrival: Annotated[
        str, typer.Option(help="constant:S | uniform:S | poisson:MEAN | weibull:SHAPE,SCALE")
    ] = "constant:0",
    frequencies: Annotated[str | None, typer.Option(help="NAME=WEIGHT,... per app")] = None,
    names: Annotated[str | None, typer.Option(help="explicit comma-separated app list")] = None,
    shuffle: Annotated[bool, typer.Option("--shuffle", help="shuffle the explicit list")] = False,
    procs: Annotated[str | None, typer.Option(help="keep only apps with these procs")] = None,
    requested_factor: Annotated[float, typer.Option(help="requested = factor x compact")] = 1.4,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    force: ForceOpt = False,
) -> None:
    """Generate a workload from an application pool (ELiSE section 3.1) and write it as SWF
    (application id in field 14, names in the header, and the machine it is for, so that
    simulate needs no machine options)."""
    from ..errors import check_seed
    from ..generate import generate_workload
    from ..outputs import check_target
    from ..workload.swf import write_workload_swf
    from .batch import machine_options

    check_seed(seed)
    check_target(out, force, "file")
    from ..experiments.spec import MAX_DRAWN_JOBS  # what a comparison spec may draw

    if jobs is not None and jobs < 1:
        raise InputError(f"must be at least 1, got {jobs}", where="--jobs")
    if jobs is not None and jobs > MAX_DRAWN_JOBS:
        raise InputError(f"must be at most {MAX_DRAWN_JOBS:,}, got {jobs:,}", where="--jobs")
    the_pool = load_pool_option(pool, heatmap, compact_times)
    if the_pool is None:
        raise InputError("give --pool, or --heatmap with --compact-times")
    known = the_pool.platform
    if known is None and (nodes is None or cores_per_node is None):
        what = f"machine {the_pool.machine!r}" if the_pool.machine else "machine"
        raise InputError(
            f"the pool's {what} is not a known one; give --nodes and --cores-per-node (and "
            "--sockets) of the machine the workload is for",
            where="--nodes",
        )
    cluster = machine_options(nodes, cores_per_node, sockets, known, "give --nodes")
    apps = the_pool.app_frame()
    if procs:
        keep = _int_list(procs, "--procs")
        apps = apps[apps.procs.isin(keep)].reset_index(drop=True)
        if apps.empty:
            raise InputError(f"no application of the pool has procs in {sorted(keep)}")
    explicit = csv_items(names)
    w = generate_workload(
        apps,
        jobs if jobs is not None or explicit else 100,
        weights=parse_frequencies(frequencies),
        names=explicit,
        shuffle=shuffle,
        arrival=arrival,
        requested_factor=requested_factor,
        seed=seed,
        cluster=cluster,
    )
    w.header["Pool"] = str(pool or heatmap)
    from ..outputs import atomic_file

    with atomic_file(out, force) as tmp:
        write_workload_swf(tmp, w)
    console.print(
        f"wrote {len(w):,} jobs ({len(apps)} applications, seed {seed}) for {cluster} to {out}"
    )


def report(
    results: Annotated[list[Path], typer.Argument(help="result directories written by simulate")],
    out: Annotated[
        Path | None,
        typer.Option(help="output directory (default: a new out/report/FIRST-DIR-NAME[-N])"),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--from", help="show the time from T since the first submission (3600, 90m, 12h, 2d)"
        ),
    ] = None,
    end: Annotated[
        str | None, typer.Option("--to", help="show the time up to T (same forms as --from)")
    ] = None,
) -> None:
    """Plots of one or more results: Gantt, utilization, queue, throughput, unused cores,
    speedups (PNG) and one interactive HTML report. The numbers shown are each result's
    metrics.json, as stored; --from/--to limit the Gantt charts and the curves to a window."""
    from ..engine.result import Result
    from ..report import Window, app_names_from_header, write_report

    window = Window.parse(start, end)
    seen: dict[Path, Path] = {}
    for d in results:  # one result drawn twice under two names would look like two
        first = seen.get(d.resolve())
        if first is not None:
            what = f"{d} is given twice" if d == first else f"{first} and {d} are one result"
            raise InputError(f"{what}: give each result once")
        seen[d.resolve()] = d
    loaded = {}
    names = None
    for d in results:
        if not d.is_dir():  # a mistyped path: say so, not that a file is missing in it
            if d.exists():  # a newcomer's trace or metrics.json itself
                raise InputError(
                    f"{d} is a file, not a directory; give a directory written by simulate"
                )
            raise InputError(f"{d}: no such directory; give a directory written by simulate")
        if not (d / "metrics.json").is_file():
            raise InputError(f"{d}: no metrics.json here; give a directory written by simulate")
        r = Result.load(d)  # r.metrics: the "metrics" of metrics.json, as stored
        label = r.scheduler if r.scheduler not in loaded else f"{r.scheduler} ({d.name})"
        loaded[label] = r
        if names is None and r.header.get("Applications"):
            names = app_names_from_header(r.header["Applications"])
    from ..outputs import check_target, mark
    from .batch import new_output_dir

    target = out or new_output_dir(Path("out/report"), results[0].resolve())

    # figures are derived data: they replace earlier figures, never files of the user's
    check_target(target, force=True)
    fresh = not target.exists()
    mark(target)
    try:
        paths = write_report(loaded, target, app_names=names, window=window)
    except BaseException:  # Ctrl-C, a full disk: a folder this command made goes (no result)
        if fresh:
            import shutil

            shutil.rmtree(target, ignore_errors=True)
        raise
    console.print(escape(f"wrote {len(paths)} files to {target}/ (open {target}/report.html)"))
