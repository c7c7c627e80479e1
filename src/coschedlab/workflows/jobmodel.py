"""The regular-job model of the WoAS workload generator: empirical distributions of job size,
time limit, accuracy (run / limit) and inter-arrival time, fitted from a real trace.

The WoAS authors drew these from three years of Edison's own accounting (not public). What we
bundle instead (``data/jobmodel_curie.csv.gz``) is fitted by :func:`fit_job_model` from the
Parallel Workloads Archive's CEA-Curie log (Slurm, 2011-2012; the last half of the log, when the
5,040 thin nodes were in service): a seeded sample of 20,000 jobs' ``(cores, limit, accuracy)``
rows, drawn jointly so that size, limit and accuracy keep their correlation, and the log's
inter-arrival times. Cores are rounded up to whole nodes of the target machine (Edison: 24
cores), as whole-node allocation charges them. Any SWF trace can be fitted the same way
(``coschedlab workflows fit-jobs TRACE --out FILE``), or a table given directly.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..bundled import read_bytes
from ..errors import InputError, gunzip
from ..jobs import Workload

__all__ = ["JobModel", "fit_job_model"]

BUNDLED = "jobmodel_curie.csv.gz"


@dataclass(frozen=True)
class JobModel:
    """Rows of ``(cores, limit s, accuracy)`` drawn jointly, and inter-arrival times (s)."""

    cores: np.ndarray
    limit: np.ndarray
    accuracy: np.ndarray
    interarrival: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        n = len(self.cores)
        if n == 0 or len(self.limit) != n or len(self.accuracy) != n:
            raise InputError("a job model needs equally long, non-empty cores/limit/accuracy")
        if len(self.interarrival) == 0:
            raise InputError("a job model needs inter-arrival times")
        if (self.cores < 1).any() or (self.limit <= 0).any():
            raise InputError("a job model has cores < 1 or a limit <= 0")
        if ((self.accuracy < 0) | (self.accuracy > 1)).any():
            raise InputError("a job model has an accuracy outside [0, 1]")

    def draw(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``k`` jobs: cores, time limit and actual run time (limit x accuracy, >= 1 s)."""
        idx = rng.integers(0, len(self.cores), size=k)
        limit = self.limit[idx]
        run = np.maximum(1.0, np.round(limit * self.accuracy[idx]))
        return self.cores[idx], limit, np.minimum(run, limit)

    def scaled(self, ratio: float, cores_per_node: int) -> JobModel:
        """The same jobs with their cores times ``ratio``, rounded up to whole nodes (a job
        model of a large machine made for a smaller one: sizes keep their share of it)."""
        cores = np.maximum(1, np.ceil(self.cores * ratio / cores_per_node)).astype(np.int64)
        return JobModel(
            cores * cores_per_node,
            self.limit,
            self.accuracy,
            self.interarrival,
            f"{self.source}, sizes x {ratio:.4g}",
        )

    def mean_work(self) -> float:
        """Mean core-seconds of a drawn job."""
        return float(np.mean(self.cores * np.maximum(1.0, np.round(self.limit * self.accuracy))))

    # -- files ----------------------------------------------------------------------------------
    def to_csv(self, path: str | Path) -> None:
        """Write the model as a gzip CSV (``kind,a,b,c`` rows: ``job,cores,limit,accuracy`` and
        ``gap,seconds,,``)."""
        buf = io.StringIO()
        buf.write(f"# coschedlab job model; source: {self.source}\nkind,a,b,c\n")
        for c, lim, acc in zip(self.cores, self.limit, self.accuracy, strict=True):
            buf.write(f"job,{int(c)},{lim:.0f},{acc:.6g}\n")
        for g in self.interarrival:
            buf.write(f"gap,{g:.0f},,\n")
        Path(path).write_bytes(gzip.compress(buf.getvalue().encode(), mtime=0))

    @classmethod
    def from_csv(cls, path: str | Path | None = None) -> JobModel:
        """Read a model written by :meth:`to_csv` (default: the bundled Curie fit)."""
        if path is None:
            where = BUNDLED
            raw = gunzip(resources.files("coschedlab.data").joinpath(BUNDLED).read_bytes(), where)
        else:
            where = str(path)
            raw = read_bytes(path)
        cores, limit, acc, gaps = [], [], [], []
        source = ""
        for lineno, line in enumerate(raw.decode().splitlines(), 1):
            if line.startswith("# coschedlab job model; source:"):
                source = line.split("source:", 1)[1].strip()
            if not line or line.startswith("#") or line.startswith("kind,"):
                continue
            parts = line.split(",")
            try:
                if parts[0] == "job":
                    cores.append(int(parts[1]))
                    limit.append(float(parts[2]))
                    acc.append(float(parts[3]))
                elif parts[0] == "gap":
                    gaps.append(float(parts[1]))
                else:
                    raise ValueError(parts[0])
            except (ValueError, IndexError):
                raise InputError(f"not a job-model row: {line!r}", f"{where}:{lineno}") from None
        return cls(
            np.array(cores, np.int64), np.array(limit), np.array(acc), np.array(gaps), source
        )


def fit_job_model(
    trace: Workload,
    cores_per_node: int = 24,
    max_cores: int | None = None,
    since: float = 0.5,
    sample: int = 20_000,
    seed: int = 0,
) -> JobModel:
    """Fit a :class:`JobModel` from a trace: the jobs submitted in the last ``1 - since`` of
    its time span with a run time > 0 and a size up to ``max_cores``; ``sample`` of their
    ``(cores rounded up to whole nodes, limit, accuracy = min(1, run / limit))`` rows drawn
    with ``seed``, and the inter-arrival times of those jobs."""
    c = trace.columns
    submit, run, req, procs = c["submit"], c["run"], c["requested_time"], c["procs"]
    if not len(submit):
        raise InputError("the trace has no jobs to fit")
    t0 = submit.min() + since * (submit.max() - submit.min())
    keep = (submit >= t0) & (run > 0) & (procs > 0) & (req > 0)
    cores = -(-procs // cores_per_node) * cores_per_node
    if max_cores is not None:
        keep &= cores <= max_cores
    idx = np.flatnonzero(keep)
    if len(idx) < 10:
        raise InputError("fewer than 10 usable jobs in the trace to fit a job model")
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(idx, size=min(sample, len(idx)), replace=False))
    limit = np.ceil(req[pick] / 60.0) * 60.0  # whole minutes, as Slurm keeps limits
    acc = np.minimum(1.0, run[pick] / limit)
    gaps = np.diff(np.sort(submit[idx]))
    qs = np.quantile(gaps, np.linspace(0, 1, 1001))  # 1,001 quantiles stand for the log's gaps
    return JobModel(
        cores[pick].astype(np.int64), limit, acc, np.round(qs), source=trace.source or ""
    )
