"""Co-schedulers: ELiSE's (Algorithms 1 and 2 and the ranks family of its code) and best-pair.

All follow ELiSE's scheduler interface (Algorithm 1) as hooks of one class,
:class:`CoScheduler`:

* ``deploy_order`` (ELiSE's ``waiting_queue_reordering``): the order jobs are deployed in;
* ``fallback=true``: a job that cannot be spread now but fits on whole idle nodes runs compact
  (not in ELiSE; it fights the fragmentation the paper observes with diverse process counts);
* ``node_order`` (ELiSE's ``host_alloc_condition``): which nodes a job goes to first (by
  default the partly used ones by node id, then idle ones by node id);
* ``cores_for``: the placement (``spread``: half of every socket, so two jobs share a node;
  ``compact``: whole nodes).

A pass deploys jobs in ``deploy_order`` while they fit (stopping at the first that does not),
then backfills with EASY on shared nodes: the first job of the queue in submission order that
did not start (the head) gets the shadow time S, the first running job's estimated end (start
+ requested time) at which enough nodes have the free cores it needs, computed node by node; a
later job that fits now starts if it ends by S (rule a) or if, with its cores still in use at
S, the head still fits (rule b: the node-level form of EASY's "extra nodes"). ELiSE's own
backfill (``ranks.py``) applies rule (a) only (``extra=false``) and looks 100 jobs deep
(``depth=100``); a head that fits now but was not deployed (Filler's order) gets the first
estimated end as S, as ELiSE computes it.

Every co-scheduler's pass is compiled (:class:`.copass.ColocPass`); a subclass's own
``node_order``/``node_key``/``deploy_order`` are called by it, ``cores_for`` and ``choice_key``
taken at set-up. The Python class scan it replaced is the tests' oracle
(``tests/coloc/reference_coloc.py``); a subclass overriding one of that scan's methods
(``choose``, ``_backfill``, ...) without a ``schedule`` of its own is refused at set-up.

ELiSE's schedulers by their names in its code (``framework/realsim/scheduler``), each
reproduced job by job on ELiSE's own runs with ``extra=false,depth=100``
(``tests/coloc/elise``):

==============================  ================================================================
Random Ranks Co-Scheduler       ``easy-coloc`` (the paper's "EASY co-scheduler"; despite the
                                name nothing is random at ELiSE's HEAD)
Filler Co-Scheduler             ``filler`` (Algorithm 2)
Ranks Co-Scheduler              ``ranks``: nodes ranked by the job's predicted speedup there
Bester Ranks Co-Scheduler       ``bester``: ``ranks``' nodes, a backfill without reservation
Jungle Co-Scheduler             ``jungle``: nodes ranked by the pair's mean speedup
Slowdown in favor Co-Scheduler  ``slowdown``: nodes ranked by how many pair speedups are >= 1
==============================  ================================================================
"""

from __future__ import annotations

import math
import numbers
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..platform import spread_cores, too_large_to_spread
from ..schedulers.base import Scheduler, check_bool, check_choice, check_positive
from ..schedulers.registry import register
from .copass import ColocPass, filler_order, pair_predictor

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.view import View
    from ..platform import Cluster

INF = math.inf


def first_nodes(runs: list[tuple], need: int) -> tuple[list[tuple[int, int]], int]:
    """The first ``need`` nodes of ``runs`` (``(first, end, jobs)``, in the order to use them)
    as intervals, and how many were still missing."""
    chosen = []
    for a, b, _ in runs:
        if b - a >= need:
            chosen.append((a, a + need))
            return chosen, 0
        chosen.append((a, b))
        need -= b - a
    return chosen, need


class CoScheduler(Scheduler):
    """EASY co-scheduling on shared nodes; subclasses override the hooks."""

    needs_shared_nodes = True

    #: :meth:`node_order` ranks idle nodes together with the partly used ones (ELiSE's
    #: ``host_alloc_condition`` over every host) instead of after them
    orders_idle_nodes: bool = False

    def __init__(
        self,
        placement: str = "spread",
        extra: bool = True,
        depth: int | None = None,
        backfill: bool = True,
        fallback: bool = False,
    ) -> None:
        super().__init__("fcfs")
        self.placement = check_choice("placement", placement, ("spread", "compact"))
        self.extra = check_bool("extra", extra)
        self.depth = check_positive("depth", depth, integer=True)
        self.backfill = check_bool("backfill", backfill)
        self.fallback = check_bool("fallback", fallback)

    def setup(self, view: View) -> None:
        if self.needs_shared_nodes and not view.machine.shared:
            raise InputError(f"scheduler {self.describe()} needs shared nodes (give a pool)")
        self._refuse_own_order(CoScheduler, "deploy_order (override that hook)")
        self._refuse_former_methods(CoScheduler, _FORMER_SCAN_METHODS, "the co-schedulers' pass")
        c = view.cluster
        self._cpn = c.cores_per_node
        self._half = spread_cores(c)
        if self.placement == "spread" and self._half < 1:
            raise InputError(f"{c} has sockets of 1 core: nodes cannot be split in halves")
        # cores per node and nodes of every job (cores_for depends on the job alone)
        procs = np.asarray(view.procs, dtype=np.int64)
        if type(self).cores_for is CoScheduler.cores_for:  # the default rule, on arrays
            cores = self._cores_of(procs, c)
        else:
            cores = self._hook_cores(view)
        k = -(-procs // cores)
        # the compiled pass reads the arrays; the lists (Python hooks) are made on first use
        self._shapes = (cores, k)
        vars(self).pop("_cores", None)
        vars(self).pop("_k", None)
        cls = type(self)
        self._ordered = cls.node_order is not CoScheduler.node_order
        # best-pair's node order runs compiled on the co-location model's pair speedups
        self._pairs = pair_predictor(view) if cls.node_order is BestPair.node_order else None
        # the ranks family's node order runs compiled on the co-location model's inputs
        self._keys = _compiled_keys(self, view)
        # any other node order (a node_order or node_key hook, best-pair on another speed
        # model) is called by the compiled pass (_hook_nodes), and so is a deploy_order hook
        compiled_order = self._pairs is not None or self._keys is not None
        nodes_hook = (
            self._hook_nodes
            if (self._ordered or self.orders_idle_nodes) and not compiled_order
            else None
        )
        filler = cls.deploy_order is Filler.deploy_order
        deploy_hook = (
            self.deploy_order
            if not filler and cls.deploy_order is not CoScheduler.deploy_order
            else None
        )
        self._cpass = ColocPass(
            view, cores, k, self.extra, self.depth, self.backfill, self.fallback, filler,
            group=_choice_groups(self, view), model=self._pairs, keys=self._keys,
            info=view.coloc if self._keys else None, bester=isinstance(self, Bester),
            nodes_hook=nodes_hook, deploy_hook=deploy_hook,
        )  # fmt: skip
        #: the kernel calls it directly (no Python call per pass); a pass with Python hooks
        #: runs from :meth:`schedule` (the hooks take the view; --pass-timeout times it), and
        #: so does a subclass's own ``schedule``
        hooked = nodes_hook is not None or deploy_hook is not None
        own = cls.schedule is not CoScheduler.schedule
        self.compiled_pass = None if hooked or own else self._cpass

    def _hook_cores(self, view: View) -> np.ndarray:
        """Each job's cores per node from a subclass's own :meth:`cores_for`: whole numbers
        from 1 to the cores per node, else an error naming the hook (the compiled pass reads
        them unchecked; NaN was an internal error, 0 a division by zero)."""
        from ..errors import source_line

        cores = []
        for j in range(view.n):
            c = self.cores_for(view, j)
            if isinstance(c, bool) or not isinstance(c, numbers.Integral) or not 0 < c <= self._cpn:
                raise InputError(
                    f"scheduler {self.describe()}'s cores_for(view, {j}) returned {c!r}: cores "
                    f"per node are a whole number from 1 to {self._cpn}",
                    source_line(type(self).cores_for),
                )
            cores.append(int(c))
        return np.asarray(cores, dtype=np.int64)

    @cached_property
    def _cores(self) -> list[int]:
        """Cores per node of every job (a list, made on first use after :meth:`setup`)."""
        return self._shapes[0].tolist()

    @cached_property
    def _k(self) -> list[int]:
        """Nodes of every job (a list, made on first use after :meth:`setup`)."""
        return self._shapes[1].tolist()

    def shape(self, j: int) -> tuple[int, int]:
        """``(cores per node, nodes)`` job ``j`` gets from this co-scheduler (during a run)."""
        return self._cores[j], self._k[j]

    # -- hooks ------------------------------------------------------------------------------
    def deploy_order(self, view: View) -> list[int]:
        """Order in which queued jobs are deployed (ELiSE's waiting_queue_reordering)."""
        return list(view.queue)

    def node_order(self, view: View, j: int, runs: list[tuple]) -> list[tuple]:
        """Order of the partly used nodes job ``j`` may share (ELiSE's host_alloc_condition);
        they are preferred to idle nodes, so jobs pair up. ``runs`` lists them as
        ``(first node, end node, jobs on them)`` by node id; return them in the order to use
        (a run may be used in part: its first nodes)."""
        return runs

    def cores_for(self, view: View, j: int) -> int:
        """Cores per node job ``j`` gets: half of every socket (spread) or the whole node."""
        return int(self._cores_of(np.asarray([view.procs[j]], dtype=np.int64), view.cluster)[0])

    def _hook_nodes(self, view: View, j: int) -> list[tuple[int, int]]:
        """The nodes of job ``j``, which fits spread now, by this scheduler's own
        :meth:`node_order`, then the lowest idle nodes (the compiled pass calls it)."""
        sh = view.machine
        c = self._cores[j]
        runs = sh.free_runs(c) if self.orders_idle_nodes else sh.partly_free(c)
        chosen, need = first_nodes(self.node_order(view, j, runs), self._k[j])
        if need:
            chosen += sh.idle_intervals(need)
        return chosen

    def _cores_of(self, procs: np.ndarray, cluster: Cluster) -> np.ndarray:
        """:meth:`cores_for`'s rule for jobs of ``procs`` processors: whole nodes when compact
        or too big to spread on this machine, else half of every socket."""
        if self.placement == "compact":
            return np.full(procs.shape, self._cpn, dtype=np.int64)
        return np.where(too_large_to_spread(procs, cluster), self._cpn, self._half)

    def choice_key(self, view: View, j: int) -> tuple:
        """Jobs with equal keys get the same nodes in the same state (the compiled pass's
        classes: taken once at set-up)."""
        return (self._cores[j], self._k[j])

    # -- mechanism --------------------------------------------------------------------------
    def schedule(self, view: View) -> list:
        if "_cpass" not in vars(self):  # a subclass's setup that skipped CoScheduler's
            raise self._setup_skipped()
        self._cpass.run_view(view)  # (hooks of its own, or a kernel with a loop of its own)
        return []


#: methods of the Python class scan the compiled pass replaced (``tests/coloc/reference_coloc.py``)
_FORMER_SCAN_METHODS = ("choose", "_backfill", "_shadow", "_classes", "_sync", "_leave")


@register("easy-coloc")
class EasyColoc(CoScheduler):
    """EASY co-scheduler: FCFS pairing into spread allocations, EASY backfilling that keeps
    the head job's reservation on shared nodes."""


@register("filler")
class Filler(CoScheduler):
    """Filler co-scheduler (ELiSE Algorithm 2): deploy in order of factor0 / factor1, where
    factor0 = 1 - (free - procs) / free if the job fits the free cores (1 when nothing is free,
    -1 when it does not fit) and factor1 = (job id + 1) / queue length; backfill as easy-coloc.

    factor1 uses the job's id in the trace, as ELiSE's code does (``job.job_id``), not its
    position in the queue: the two differ on real traces, whose ids do not start at 0 and
    skip dropped jobs. The queue length is the same for every job of a pass, so only the id
    matters for the order."""

    def deploy_order(self, view: View) -> list[int]:
        return filler_order(view.queue, view.procs, view.ids, view.machine.total_free)


@register("best-pair")
class BestPair(CoScheduler):
    """Like easy-coloc, but a job shares first the nodes whose current neighbour gives it the
    best predicted speedup (from the heatmap)."""

    def choice_key(self, view: View, j: int) -> tuple:
        return (self._cores[j], self._k[j], view.apps[j])

    def node_order(self, view: View, j: int, runs: list[tuple]) -> list[tuple]:
        if len(runs) < 2 or view.speedup(j, ()) is None:
            return runs
        score: dict[tuple, float] = {}  # a job spans several runs: one lookup per neighbour set
        for r in runs:
            if r[2] not in score:
                score[r[2]] = -view.speedup(j, r[2])
        return sorted(runs, key=lambda r: (score[r[2]], r[0]))


# -- ELiSE's ranks family (``framework/realsim/scheduler/coschedulers/ranks``) ------------------
class _RankedNodes(CoScheduler):
    """A co-scheduler that ranks every node a job could use, idle ones included, by a key of
    the jobs already there (ELiSE's ``host_alloc_condition``): highest key first, ties by node
    id (ELiSE sorts its hosts, in id order, with a stable descending sort)."""

    orders_idle_nodes = True

    def node_key(self, view: View, j: int, jobs: tuple[int, ...]) -> float | tuple:
        """The rank of a node holding ``jobs`` (``()``: idle) for job ``j``; higher first."""
        raise NotImplementedError

    def choice_key(self, view: View, j: int) -> tuple:
        return (self._cores[j], self._k[j], view.apps[j])

    def node_order(self, view: View, j: int, runs: list[tuple]) -> list[tuple]:
        if view.coloc is None:
            raise InputError(f"scheduler {self.describe()} needs a co-location model (a pool)")
        key: dict[tuple, float | tuple] = {}
        for r in runs:
            if r[2] not in key:
                key[r[2]] = self.node_key(view, j, r[2])
        return sorted(runs, key=lambda r: key[r[2]], reverse=True)


@register("ranks")
class Ranks(_RankedNodes):
    """ELiSE's Ranks Co-Scheduler: easy-coloc, but a job goes first where it is predicted to
    run fastest: an idle node scores its spread-alone speedup, a used one its lowest measured
    speedup beside the jobs there (unmeasured: 1.0).

    ELiSE's ``Coscheduler.host_alloc_condition``."""

    def node_key(self, view: View, j: int, jobs: tuple[int, ...]) -> float:
        info = view.coloc
        if not jobs:
            return info.alone(j)
        worst = INF
        for k in jobs:
            v = info.pair(j, k)
            v = 1.0 if v is None else v
            if v < worst:
                worst = v
        return worst


@register("bester")
class Bester(Ranks):
    """ELiSE's Bester Ranks Co-Scheduler: ``ranks``' deploy, then a backfill with no
    reservation for the head: the next ``depth`` queued jobs, shortest requested time first,
    each on the lowest-numbered nodes with room, until one does not fit (``bester.py``)."""


def _compiled_keys(sched: CoScheduler, view: View) -> str | None:
    """Which of the ranks family's node keys ``sched`` ranks nodes by, if the compiled pass
    can compute them (:meth:`.copass.ColocPass._choose_keyed`): the built-in ``node_order``,
    ``choice_key`` and ``node_key`` of ranks, jungle or slowdown, on the co-location model's
    own :class:`.speed.ColocInfo`; else None (another node order, called by the compiled
    pass). A NaN spread-alone speedup (or, for jungle and slowdown, mean speedup) of an
    application of the workload is refused: a NaN key has no place in a sorted order (Python's
    sort leaves it where its comparisons, all False, happen to), so no order follows it.
    :class:`.speed.ColocationSpeed` refuses a NaN spread-alone speedup and its means are
    finite: only a hand-made ColocInfo has one."""
    from .speed import ColocInfo  # (as pair_predictor: the model's module imports the engine)

    cls = type(sched)
    if (
        cls.node_order is not _RankedNodes.node_order
        or cls.choice_key is not _RankedNodes.choice_key
        or type(view.coloc) is not ColocInfo
    ):
        return None
    keys = {Ranks.node_key: "ranks", Jungle.node_key: "jungle", Slowdown.node_key: "slowdown"}
    name = keys.get(cls.node_key)
    if name is None:
        return None
    info = view.coloc
    rows = sorted(set(info._app) - {-1})
    for what, values in (("spread-alone", info._alone), ("mean", info._mean)):
        bad = [a for a in rows if values[a] != values[a]]
        if bad:
            raise InputError(
                f"scheduler {sched.describe()}: the co-location model's {what} speedup of "
                f"heatmap row {bad[0]} is NaN (a node key with no order)"
            )
        if name == "ranks":  # (ranks reads no mean speedup)
            break
    return name


def _choice_groups(sched: CoScheduler, view: View) -> list[int] | None:
    """Per job, a number for its :meth:`~CoScheduler.choice_key` (jobs of different numbers
    are never interchangeable in the compiled pass's classes), or None for the default key
    (cores per node and nodes: the compiled pass's shapes already)."""
    key = type(sched).choice_key
    if key is CoScheduler.choice_key:
        return None
    if key is BestPair.choice_key or key is _RankedNodes.choice_key:
        return view.apps
    ids: dict = {}
    return [ids.setdefault(sched.choice_key(view, j), len(ids)) for j in range(view.n)]


def _pair_stats(view: View, j: int, jobs: tuple[int, ...]) -> tuple[float, int]:
    """Mean of the speedups of ``j`` beside each job of ``jobs`` and of each beside ``j``, and
    how many of them are >= 1 (ELiSE's Jungle and Slowdown keys; ELiSE fails on an
    unmeasured pair, here it counts as the application's mean measured speedup)."""
    info = view.coloc
    values = [info.pair_or_mean(j, k) for k in jobs] + [info.pair_or_mean(k, j) for k in jobs]
    return sum(values) / (len(jobs) * 2), sum(1 for v in values if v >= 1)


@register("jungle")
class Jungle(_RankedNodes):
    """ELiSE's Jungle Co-Scheduler: a job goes first to the nodes where the mean speedup of
    the pairs it would form (both ways) is highest, then where more of them are >= 1; an idle
    node scores the job's spread-alone speedup."""

    def node_key(self, view: View, j: int, jobs: tuple[int, ...]) -> tuple:
        if not jobs:
            return (view.coloc.alone(j), INF)
        return _pair_stats(view, j, jobs)


@register("slowdown")
class Slowdown(_RankedNodes):
    """ELiSE's Slowdown in favor Co-Scheduler: idle nodes first (each job spread alone when it
    can), then the nodes where more of the pairs it would form have speedups >= 1, then by
    their mean speedup."""

    def node_key(self, view: View, j: int, jobs: tuple[int, ...]) -> tuple:
        if not jobs:
            return (INF, view.coloc.alone(j))
        mean, count = _pair_stats(view, j, jobs)
        return (count, mean)
