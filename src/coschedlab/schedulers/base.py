"""The scheduler interface: a policy sees the kernel's read-only view and returns decisions.

A scheduler is a small class with one method, :meth:`Scheduler.schedule`, called once per
scheduling pass with the view (the running :class:`~coschedlab.engine.kernel.Simulation`). It
returns the queued jobs (view indices) to start now, in the order they should start; the kernel
checks that each one fits and applies them. It must never modify the view's lists.

Queue orders are parameters, not separate policies: ``order="fcfs"`` keeps the view's
(submit, id) order, ``order="sjf"`` sorts by requested time, or pass any key function
``key(view, j)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.kernel import Simulation

OrderKey = Callable[["Simulation", int], Any]


def _sjf_key(view: Simulation, j: int) -> tuple[float, int]:
    return (view.req[j], j)


def _lxf_key(view: Simulation, j: int) -> tuple[float, int]:
    # largest expansion factor first: (wait + req) / req, highest first
    r = view.req[j] or 1.0
    return (-(view.now - view.submit[j] + r) / r, j)


ORDERS: dict[str, OrderKey | None] = {"fcfs": None, "sjf": _sjf_key, "lxf": _lxf_key}


class Scheduler:
    """Base class of every policy. Subclasses set ``name`` and override :meth:`schedule`."""

    name: ClassVar[str] = ""

    def __init__(self, order: str | OrderKey = "fcfs") -> None:
        if isinstance(order, str):
            if order not in ORDERS:
                raise InputError(f"unknown queue order {order!r}; choose one of {sorted(ORDERS)}")
            self.order_name = order
            self.order_key = ORDERS[order]
        else:
            self.order_name = getattr(order, "__name__", "custom")
            self.order_key = order

    def setup(self, view: Simulation) -> None:
        """Called once before the run (allocate per-run state here)."""

    def schedule(self, view: Simulation) -> Sequence[int]:
        """Return the queued jobs to start now."""
        raise NotImplementedError

    def ordered_queue(self, view: Simulation) -> list[int]:
        """The queue in this policy's priority order."""
        if self.order_key is None:
            return view.queue
        key = self.order_key
        return sorted(view.queue, key=lambda j: key(view, j))

    def params(self) -> dict[str, Any]:
        """The options that distinguish this instance (shown by :meth:`describe`)."""
        return {} if self.order_name == "fcfs" else {"order": self.order_name}

    def describe(self) -> str:
        """``name`` or ``name:key=value,...`` -- the spec that recreates this instance."""
        name = self.name or type(self).__name__
        params = self.params()
        if not params:
            return name
        return name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items())


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
