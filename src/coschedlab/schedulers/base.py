"""The scheduler interface: a policy sees a read-only view and returns decisions.

A scheduler is a small class with one method, :meth:`Scheduler.schedule`, called once per
scheduling pass with the kernel's :class:`~coschedlab.engine.view.View`. It returns the queued
jobs (view indices, or :class:`~coschedlab.engine.placement.Placement` decisions on shared
nodes) to start now, in the order they should start; the kernel checks that each one fits and
applies them. The view cannot be changed and holds no actual run times.

Options are the constructor's keyword arguments, stored under the same names; :meth:`params`
(what :meth:`describe` prints) is derived from the constructor's signature: every option whose
value differs from its default. Queue orders are options, not separate policies:
``order="fcfs"`` keeps the view's (submit, id) order, ``order="sjf"`` sorts by requested time,
``order="lxf"`` by expansion factor, ``order="wfp"`` by Argonne's WFP score (queued time /
requested time)^3 x nodes, or pass any key function ``key(view, j)``.

A scheduler declares what it promises in :attr:`Scheduler.guarantees`; the validator checks
those invariants on every schedule it produces (names in :data:`GUARANTEES`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import InputError, source_line
from ..validator import GUARANTEES  # noqa: F401  (the names a policy may declare)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.placement import Placement
    from ..engine.view import View

OrderKey = Callable[["View", int], Any]


def _sjf_key(view: View, j: int) -> tuple[float, int]:
    return (view.req[j], j)


def _lxf_key(view: View, j: int) -> tuple[float, int]:
    # largest expansion factor first: (wait + req) / req, highest first
    r = view.req[j] or 1.0
    return (-(view.now - view.submit[j] + r) / r, j)


def _wfp_key(view: View, j: int) -> tuple[float, int]:
    # WFP (Tang et al. 2009, Argonne's Cobalt): (queued time / requested time)^3 x size,
    # highest first; recomputed at every pass (Cobalt's Blue Gene scheduler)
    r = view.req[j] or 1.0
    return (-(((view.now - view.submit[j]) / r) ** 3) * view.nodes[j], j)


ORDERS: dict[str, OrderKey | None] = {
    "fcfs": None,
    "sjf": _sjf_key,
    "lxf": _lxf_key,
    "wfp": _wfp_key,
}


# -- option checks shared by every scheduler ------------------------------------------------------
def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is true or false, else an InputError naming option ``name``."""
    if not isinstance(value, bool):
        raise InputError(f"option {name} must be true or false, got {value!r}")
    return value


#: the largest whole-number option (a depth, a count of jobs): the compiled passes hold it in
#: a C integer, and no queue is longer
MOST_COUNT = 2**31 - 1


def check_positive(name: str, value: Any, *, integer: bool = False, allow_none: bool = True):
    """``value`` if it is a positive (whole, with ``integer``) finite number or None."""
    if value is None and allow_none:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        kind = "positive whole number" if integer else "positive number"
        raise InputError(f"option {name} must be a {kind}, got {value!r}")
    if integer and not isinstance(value, int):
        raise InputError(f"option {name} must be a whole number, got {value!r}")
    if integer and value > MOST_COUNT:
        raise InputError(
            f"option {name} must be a whole number from 1 to {MOST_COUNT:,}, got {value:,}"
        )
    return value


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``."""
    if value not in choices:
        raise InputError(f"option {name} must be one of {', '.join(choices)}, got {value!r}")
    return value


class Scheduler:
    """Base class of every policy. Subclasses set ``name`` and override :meth:`schedule`."""

    name: ClassVar[str] = ""
    #: the invariants this policy promises (see :data:`GUARANTEES`); built-ins set them per
    #: instance from their options, a user policy may set them as a class attribute
    guarantees: tuple[str, ...] = ()
    #: constructor arguments for the Python API only: not spec options, not in
    #: :meth:`describe`, not listed by ``coschedlab schedulers`` (e.g. a table of numbers)
    api_only: ClassVar[tuple[str, ...]] = ()
    #: option values a file gave this instance (``slurm:conf=FILE``): :meth:`params` compares
    #: with them instead of the constructor's defaults, so the spec names the file, not them
    file_options: dict[str, Any] = {}
    #: the pass the kernel calls instead of :meth:`schedule` (a built-in's compiled
    #: :class:`~coschedlab.engine.cpass.CompiledPass`, made at :meth:`setup`; None: none)
    compiled_pass: Any = None
    #: the policy places jobs on shared nodes (the co-schedulers): a run without them is
    #: refused, by :meth:`setup` and, before any run, by a comparison spec's loader
    needs_shared_nodes: ClassVar[bool] = False

    def __init__(self, order: str | OrderKey = "fcfs") -> None:
        if isinstance(order, str):
            if order not in ORDERS:
                raise InputError(f"unknown queue order {order!r}; choose one of {sorted(ORDERS)}")
            self.order = order
            self.order_key = ORDERS[order]
        else:
            self.order = getattr(order, "__name__", "custom")
            self.order_key = order

    def setup(self, view: View) -> None:
        """Called once before the run (allocate per-run state here)."""

    def schedule(self, view: View) -> Sequence[int | Placement] | None:
        """Return the queued jobs to start now."""
        raise NotImplementedError

    def ordered_queue(self, view: View) -> Sequence[int]:
        """The queue in this policy's priority order (:meth:`View.ordered
        <coschedlab.engine.view.View.ordered>` by :attr:`order_key`; in FCFS order the view's
        own list, read only), as the kernel presents it: in a coupled run the jobs its gate
        demoted stay last."""
        return view.ordered(self.order_key)

    def order_name(self) -> str:
        """The queue order a compiled pass is told (:data:`.passes.ORDER_CODES`): the built-in
        order's name; ``"custom"`` for any other key (the kernel sorts by :attr:`order_key`
        in Python once per pass); ``"own"`` when a subclass overrides :meth:`ordered_queue`
        (the kernel shows the pass what it returns)."""
        if type(self).ordered_queue is not Scheduler.ordered_queue:
            return "own"
        if isinstance(self.order, str) and self.order_key is ORDERS.get(self.order, False):
            return self.order
        return "custom"

    def _refuse_own_order(self, owner: type, instead: str) -> None:
        """One line, not a silent no-op, for a subclass of ``owner`` (a built-in that orders
        its queue by ``instead`` and never calls :meth:`ordered_queue`) that overrides
        :meth:`ordered_queue` but keeps ``owner``'s :meth:`schedule`; it names the override's
        file and line."""
        cls = type(self)
        fn = cls.ordered_queue
        if fn is Scheduler.ordered_queue or cls.schedule is not owner.schedule:
            return
        raise InputError(
            f"scheduler {self.describe()} overrides ordered_queue, which {owner.__name__} never "
            f"calls: it orders its queue by {instead}",
            source_line(fn),
        )

    def _refuse_former_methods(self, owner: type, names: Sequence[str], what: str) -> None:
        """One line, not a silent no-op, for a subclass of built-in ``owner`` that overrides
        one of ``names``, methods of the Python pass its compiled pass (``what``) replaced
        (the pass is now the tests' oracle), but keeps ``owner``'s ``schedule``: it names the
        override's file and line; such a subclass overrides ``schedule`` to change the pass."""
        cls = type(self)
        if cls.schedule is not owner.schedule:
            return
        for name in names:
            fn = getattr(cls, name, None)
            if fn is not None:
                raise InputError(
                    f"scheduler {self.describe()} overrides {name}, which {what} does not call "
                    "(it is compiled): override schedule to write a pass of your own",
                    source_line(fn),
                )

    def _setup_skipped(self) -> InputError:
        """One line, at the subclass's own ``setup``, for a subclass of a built-in whose
        ``setup`` does not call ``super().setup(view)``: the built-in's pass (compiled, or
        Slurm's and the co-schedulers' state) is never made."""
        return InputError(
            f"scheduler {self.describe()}'s setup does not call super().setup(view): "
            "its compiled pass is never made",
            source_line(type(self).setup),
        )

    def _no_python_pass(self, owner: type) -> Exception:
        """What built-in ``owner``'s ``schedule`` raises when called: its pass is compiled and
        the kernel calls it, so only a subclass reaches here: one whose ``setup`` does not call
        ``super().setup`` (named at that ``setup``), or whose ``schedule`` calls
        ``super().schedule``."""
        cls = type(self)
        if cls.schedule is owner.schedule and cls.setup is not owner.setup:
            return self._setup_skipped()
        return NotImplementedError(
            f"{self.describe()}'s pass is compiled and has no Python schedule(): a subclass "
            "that overrides schedule writes its own pass (super().schedule is none), and one "
            "that overrides setup must call super().setup(view)"
        )

    def _compilable(self, owner: type, *methods: str) -> bool:
        """Whether this instance's pass may be the compiled one: none of ``methods`` (of class
        ``owner``) overridden by a subclass (that subclass runs its own Python pass). Any queue
        order compiles, a subclass's :meth:`ordered_queue` too: the kernel orders the queue."""
        cls = type(self)
        return all(getattr(cls, m) is getattr(owner, m) for m in methods)

    def params(self) -> dict[str, Any]:
        """The options that distinguish this instance: every keyword of the constructor whose
        value (the attribute of the same name) differs from its default (or from the value a
        file gave, :attr:`file_options`)."""
        out: dict[str, Any] = {}
        for cls in type(self).__mro__:
            init = cls.__dict__.get("__init__")
            if init is not None:
                break
        else:  # pragma: no cover
            return out
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.name in self.api_only:
                continue
            if not hasattr(self, p.name):
                continue
            value = getattr(self, p.name)
            default = self.file_options.get(p.name, p.default)
            if p.default is p.empty or not same_value(value, default):
                out[p.name] = "all" if value is None else value
        return out

    def describe(self) -> str:
        """``name`` or ``name:key=value,...`` -- the spec that recreates this instance."""
        name = self.name or type(self).__name__
        params = self.params()
        if not params:
            return name
        return name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items())


def same_value(a: Any, b: Any) -> bool:
    """True when the parameter value ``a`` is the default ``b`` (:meth:`Scheduler.params`
    leaves it out of the label): numbers by value (``86400 == 86400.0``), a bool only equal
    to a bool (``True`` is not ``1``), any other value equal and of the same type."""
    a_bool, b_bool = isinstance(a, bool), isinstance(b, bool)
    if a_bool or b_bool:
        return a_bool and b_bool and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
