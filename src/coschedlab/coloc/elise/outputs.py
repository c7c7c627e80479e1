"""ELiSE's output files, from coschedlab's results, so that notebooks written for ELiSE work.

ELiSE's batch runner (``framework/batch/run_utils.py``) writes, for simulation ``S`` (input
``I`` x scheduler ``K``, numbered input by input), into the folder its actions name:

* ``workloads/sim_S_input_I_scheduler_K.csv`` (action ``get_workload``): one row per job in
  job-id order, SWF's first 18 fields by name (submit, wait, run, allocated and requested
  processors, requested time, status 1, the application as "Executable Number") and
  ``Assigned Processors``, the list of the core ids it ran on (core ``c`` of socket ``s`` of
  host ``h`` is ``h * cores_per_node + s * cores_per_socket + c + 1``; a job takes the lowest
  free cores of every socket of its hosts, as ELiSE's ``find_suitable_nodes`` does);
* ``gantts/``, ``waiting_queue/``, ``jobs_throughput/``, ``unused_cores/``
  ``sim_S_input_I_scheduler_K.png`` (the other actions: the jobs over the cores, and the
  waiting jobs, finished jobs and unused cores at every instant a job starts or ends);
* ``time_reports.csv`` (``--export_reports``): wall-clock and simulated time of every run.

Times are Python's shortest float text, as ELiSE prints them; an instant 0 is ``0`` (ELiSE's
clock is the integer 0 until it first advances).
"""

from __future__ import annotations

import csv
import io
from bisect import insort
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from ...intervals import nodes_to_intervals, parse_intervals
from ...outputs import atomic_file
from ...platform import Cluster
from .generators import WORKLOAD_HEADER

__all__ = ["assigned_cores", "time_report", "workload_table", "write_plots"]


def _t(x: float) -> str:
    """A time as ELiSE prints it: ``0`` before its clock first advances, else ``repr``."""
    return "0" if x == 0 else repr(float(x))


def assigned_cores(jobs: pd.DataFrame, cluster: Cluster) -> list[list[int]]:
    """The core ids (1-based, ELiSE's numbering) each job of ``jobs`` ran on, replaying the
    starts and ends in time order (ends first at an instant; starts in the order the
    scheduler made them, ``start_rank``): on each of its hosts a job takes the lowest free
    cores of every socket, ``node_cores / sockets`` of each."""
    cps, nsock = cluster.cores_per_socket, cluster.sockets_per_node
    cpn = cluster.cores_per_node
    start = jobs["start"].to_numpy()
    end = jobs["end"].to_numpy()
    rank = jobs["start_rank"].to_numpy() if "start_rank" in jobs else np.arange(len(jobs))
    cores = jobs["node_cores"].to_numpy() if "node_cores" in jobs else np.full(len(jobs), cpn)
    hosts = [
        [n for a, b in parse_intervals(text) for n in range(a, b)] if text else []
        for text in jobs["alloc"].tolist()
    ]
    events = []
    for j in range(len(jobs)):
        if np.isfinite(start[j]):
            events.append((start[j], 1, rank[j], j))
            events.append((end[j], 0, 0, j))
    events.sort()
    free: dict[tuple[int, int], list[int]] = {}
    out: list[list[int]] = [[] for _ in range(len(jobs))]
    for _, kind, _, j in events:
        per_socket = int(cores[j]) // nsock
        if kind == 1:
            got = []
            for h in hosts[j]:
                for s in range(nsock):
                    lst = free.get((h, s))
                    if lst is None:
                        first = h * cpn + s * cps + 1
                        lst = free[(h, s)] = list(range(first, first + cps))
                    got.extend(lst[:per_socket])
                    del lst[:per_socket]
            got.sort()
            out[j] = got
        else:
            for c in out[j]:
                h, rest = divmod(c - 1, cpn)
                insort(free[(h, rest // cps)], c)
    return out


def workload_table(jobs: pd.DataFrame, apps: list[str], cluster: Cluster) -> str:
    """The ``get_workload`` CSV of one run (``jobs``: a result's table on shared nodes;
    ``apps``: application name of each job, in the table's order)."""
    order = np.argsort(jobs["job_id"].to_numpy(), kind="stable")
    procs_of = assigned_cores(jobs, cluster)
    buf = io.StringIO()
    buf.write(",".join(WORKLOAD_HEADER) + "\n")
    jid = jobs["job_id"].to_numpy()
    submit, start, end = (jobs[c].to_numpy() for c in ("submit", "start", "end"))
    procs, req = jobs["procs"].to_numpy(), jobs["requested_time"].to_numpy()
    for j in order.tolist():
        s, b, e = float(submit[j]), float(start[j]), float(end[j])
        wait = "0" if b == 0 else repr(b - s)
        got = procs_of[j]
        buf.write(
            f"{jid[j]},{_t(s)},{wait},{e - b!r},{len(got)},,,{procs[j]},{float(req[j])!r},,1,,,"
            f'{apps[j]},,,,,"{got}"\n'
        )
    return buf.getvalue()


def time_report(rows: list[tuple]) -> str:
    """ELiSE's ``time_reports.csv``: rows of (simulation, input, scheduler index, scheduler
    name, wall-clock seconds, simulated seconds)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")  # ELiSE writes with csv's default line ends
    w.writerow(
        [
            "Simulation ID",
            "Input ID",
            "Scheduler ID",
            "Scheduler Name",
            "Real Time",
            "Simulated Time",
            "Time Ratio (Simulated Days / 1 real hour)",
        ]
    )
    for sim, inp, k, name, real, simulated in rows:
        ratio = simulated / (24 * real) if real > 0 else float("inf")
        w.writerow(
            [
                sim,
                inp,
                k,
                name,
                str(timedelta(seconds=real)).replace(", ", "_"),
                str(timedelta(seconds=simulated)).replace(", ", "_"),
                str(ratio),
            ]
        )
    return buf.getvalue()


def _checkpoints(jobs: pd.DataFrame) -> np.ndarray:
    start, end = jobs["start"].to_numpy(), jobs["end"].to_numpy()
    return np.unique(np.concatenate([[0.0], start[np.isfinite(start)], end[np.isfinite(end)]]))


def series(jobs: pd.DataFrame, cluster: Cluster) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """ELiSE's three curves at every checkpoint (0 and every instant a job starts or ends):
    jobs waiting (submitted, not started), jobs finished, cores unused."""
    t = _checkpoints(jobs)
    submit, start, end = (np.sort(jobs[c].to_numpy()) for c in ("submit", "start", "end"))
    waiting = np.searchsorted(submit, t, side="right") - np.searchsorted(start, t, side="right")
    finished = np.searchsorted(end, t, side="right")
    cores = (
        (jobs["node_cores"] * jobs["nodes"]).to_numpy()
        if "node_cores" in jobs
        else (jobs["nodes"].to_numpy() * cluster.cores_per_node)
    )
    s, e = jobs["start"].to_numpy(), jobs["end"].to_numpy()
    delta = np.zeros(len(t))
    np.add.at(delta, np.searchsorted(t, s), cores)
    np.add.at(delta, np.searchsorted(t, e), -cores)
    unused = cluster.total_cores - np.cumsum(delta)
    return {
        "waiting_queue": (t, waiting),
        "jobs_throughput": (t, finished),
        "unused_cores": (t, unused),
    }


_TITLES = {
    "waiting_queue": (
        "Number of jobs inside waiting queue per checkpoint",
        "Number of waiting jobs",
    ),
    "jobs_throughput": ("Number of finished jobs per checkpoint", "Number of finished jobs"),
    "unused_cores": ("Number of unused cores per checkpoint", "Number of unused cores"),
}


def write_plots(
    folder: Path,
    stem: str,
    jobs: pd.DataFrame,
    cluster: Cluster,
    scheduler: str,
    which: list[str],
) -> list[Path]:
    """The PNGs of ELiSE's plot actions for one run (``which``: folder names among
    ``gantts``, ``waiting_queue``, ``jobs_throughput``, ``unused_cores``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    curves = series(jobs, cluster)
    for name in which:
        path = folder / name / f"{stem}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if name == "gantts":
            fig = _gantt(plt, jobs, cluster, scheduler)
        else:
            t, y = curves[name]
            title, ylabel = _TITLES[name]
            fig, ax = plt.subplots(figsize=(10, 5), dpi=100)
            ax.plot(t, y, marker=".", markersize=3, linewidth=1)
            ax.set_title(f"{title}\n{scheduler}")
            ax.set_xlabel("Time (s)")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        fig.tight_layout()
        try:
            with atomic_file(path, force=True, probe=False) as tmp:
                fig.savefig(tmp)
        finally:
            plt.close(fig)
        written.append(path)
    return written


def _gantt(plt, jobs: pd.DataFrame, cluster: Cluster, scheduler: str):  # noqa: ANN001, ANN202
    """Each job as boxes over the cores it ran on, from its start to its end (ELiSE's
    ``get_gantt_representation``), coloured along the jobs' order."""
    cores = assigned_cores(jobs, cluster)
    fig, ax = plt.subplots(figsize=(20.48, 10.24), dpi=100)
    cmap = plt.get_cmap("turbo")
    n = max(len(jobs) - 1, 1)
    start, end = jobs["start"].to_numpy(), jobs["end"].to_numpy()
    for j, got in enumerate(cores):
        if not got:
            continue
        for lo, hi in nodes_to_intervals(got):  # runs of consecutive cores
            ax.add_patch(
                plt.Rectangle(
                    (start[j], lo),
                    end[j] - start[j],
                    hi - lo,
                    facecolor=cmap(j / n),
                    edgecolor="black",
                    linewidth=0.1,
                )
            )
    ax.set_xlim(0, float(np.nanmax(end)) if len(end) else 1)
    ax.set_ylim(0, cluster.total_cores + 1)
    ax.set_title(f"{scheduler}\nGantt Plot")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Cores")
    return fig
