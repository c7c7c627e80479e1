"""A time limit on each scheduling pass: a policy that never returns stops the run with an error;
and the limit on a livelock's passes (:data:`WAKE_LIMIT`, checked by the kernel's loop).

The limit is enforced by a daemon thread that interrupts the main thread
(a SIGINT sent to it) when one call of ``schedule(view)`` has run longer than the
limit; the interruption becomes a :class:`~coschedlab.engine.kernel.SchedulerError` naming the
policy, the simulated time and the limit. Only the wrapped ``schedule`` pays for it (two
clock reads per pass), so built-in policies run without it unless asked.

A policy may defeat the SIGINT (it ignores the signal, or catches ``KeyboardInterrupt`` and
goes on): the limit still holds, in steps of :data:`GRACE` seconds. The thread then raises
:class:`PassTimeout` in the main thread (an asynchronous exception, seen at the policy's next
Python instruction); if the pass still does not end (a policy blocked in a call with SIGINT
ignored, or swallowing every exception), it writes the one-line error to standard error and
ends the process with exit code 2 (``os._exit``): nothing else can stop a policy that
refuses to yield. A pass that returned after its limit is an error too.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral
from typing import Any

from ..errors import InputError

__all__ = [
    "MIN_WAKE_STEP", "WAKE_LIMIT", "PassTimeout", "check_limit", "check_wake_limit",
    "pass_time_limit",
]  # fmt: skip


class PassTimeout(InputError):
    """One scheduling pass ran longer than its limit (a policy bug, reported in one line)."""


class _Stop(BaseException):
    """Raised inside a policy that defeated the SIGINT (a BaseException: ``except Exception``
    does not swallow it); becomes :class:`PassTimeout`."""


#: seconds a policy is given to yield after each step of the escalation (module docstring)
GRACE = 2.0


def _raise_in(thread: int, exc: type[BaseException]) -> None:
    """Raise ``exc`` in the thread ``thread`` at its next Python instruction."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(exc))


def _exit_with(message: str) -> None:
    """The last step: the one-line error on standard error (written to the descriptor: the
    main thread may hold the buffered stream's lock), then the process ends with code 2."""
    try:
        os.write(2, f"error: {message}\n".encode(errors="replace"))
    finally:
        os._exit(2)


def check_limit(limit: float | None) -> float | None:
    """``limit`` (``--pass-timeout``, seconds) if None or a positive finite number, else an
    :class:`InputError` saying so."""
    if limit is not None and not (limit > 0 and limit < float("inf")):
        raise InputError(f"--pass-timeout must be a positive number of seconds, got {limit}")
    return limit


#: a livelock (:meth:`.kernel.Simulation._loop`): this many passes in a row woken by the
#: policy alone (``view.wake_at``: nothing arrived, ended or was released at their instants,
#: nothing started in them) whose clock advanced less than :data:`MIN_WAKE_STEP` per pass on
#: average stop the run (``wake_limit``; a Python policy's 10^6 passes take 1-3 s)
WAKE_LIMIT = 1_000_000
#: seconds: the mean step of the passes counted above below which they are a livelock (10^6
#: passes within 1,000 s: a policy waking every millisecond or less, for nothing)
MIN_WAKE_STEP = 1e-3


def check_wake_limit(limit: int | None) -> int:
    """``limit`` (``--wake-limit``, passes; None: :data:`WAKE_LIMIT`; 0: no limit) if a whole
    number from 0 to 10^15, else an :class:`InputError` saying so."""
    if limit is None:
        return WAKE_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, Integral) or not 0 <= limit <= 10**15:
        raise InputError(
            f"--wake-limit must be a whole number of passes from 0 (no limit) to 10^15, "
            f"got {limit!r}"
        )
    return int(limit)


@contextmanager
def pass_time_limit(
    scheduler: Any, limit: float | None, describe: Callable[[], str]
) -> Iterator[None]:
    """While the block runs, ``scheduler.schedule`` is timed: a pass longer than ``limit``
    seconds raises :class:`PassTimeout` in the main thread. ``limit`` None: no limit."""
    if limit is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    original = scheduler.schedule
    state: dict[str, Any] = {
        "started": None,
        "fired": False,
        "now": None,
        "inner": original,
        "by_key": False,
    }
    done = threading.Event()

    def message() -> str:
        return (
            f"scheduler {describe()}: a pass at t={state['now']:g} took more than {limit:g} s "
            "(the pass time limit); fix the policy or raise the limit"
        )

    def call(inner: Callable[..., Any], view: Any, *args: Any) -> Any:
        """``inner(view, *args)`` timed as a pass, unless a timed call already times it."""
        outer = state["started"] is None
        if outer:
            state["now"] = view.now
            state["started"] = time.monotonic()
        try:
            out = inner(view, *args)
        except (KeyboardInterrupt, _Stop):
            if state["fired"]:
                raise PassTimeout(message()) from None
            raise
        finally:
            if outer:
                state["started"] = None
        if state["fired"]:  # the policy caught the interruption and returned late
            raise PassTimeout(message())
        return out

    def timed(view: Any) -> Any:
        return call(state["inner"], view)

    def timed_key(view: Any, j: int) -> Any:
        """A compiled pass's Python order key, called by the kernel once per queued job in
        queue order: the pass is timed from the first job's call to the last one's end."""
        if state["started"] is None and j == view.queue[0]:
            state["now"] = view.now
            state["started"] = time.monotonic()
            state["by_key"] = True
        try:
            return call(key, view, j)  # (nested: timed from the pass's first call)
        finally:
            if state["by_key"] and j == view.queue[-1]:
                state["started"] = None
                state["by_key"] = False

    main = threading.main_thread().ident
    assert main is not None

    def stuck(started: float) -> bool:
        """The pass that began at ``started`` still runs after another grace period."""
        return not done.wait(GRACE) and state["started"] == started

    def watch() -> None:
        while not done.wait(min(0.05, limit / 4)):
            started = state["started"]
            if started is not None and time.monotonic() - started > limit:
                state["fired"] = True
                # a real SIGINT to the main thread: it also wakes a blocking call (sleep, I/O),
                # which _thread.interrupt_main() would not
                signal.pthread_kill(main, signal.SIGINT)
                if stuck(started):  # SIGINT ignored or caught: an exception in the policy
                    _raise_in(main, _Stop)
                    if stuck(started):  # blocked, or swallowing every exception
                        _exit_with(message() + "; the policy did not stop, the process ends")
                return

    own = "schedule" in getattr(scheduler, "__dict__", {})
    scheduler.schedule = timed
    # a policy may bind its pass at setup (``self.schedule = self._mine``, as the backfilling
    # family once did): time whatever setup leaves there
    original_setup = scheduler.setup
    own_setup = "setup" in getattr(scheduler, "__dict__", {})

    hooks: list[str] = []  # the compiled pass's Python hooks this limit wrapped
    key: Callable[..., Any] = scheduler.order_key if hasattr(scheduler, "order_key") else None

    def setup_then_time(view: Any) -> Any:
        out = original_setup(view)
        bound = scheduler.schedule
        if bound is not timed:
            state["inner"] = bound
            scheduler.schedule = timed
        # a built-in's compiled pass calls no ``schedule``, but a subclass's ``ordered_queue``
        # or ``order_key`` in Python (the kernel looks them up at each pass): time those
        compiled = getattr(scheduler, "compiled_pass", None) is not None
        order = scheduler.order_name() if compiled and not hooks else None
        if order == "own":
            own_queue = scheduler.ordered_queue
            scheduler.ordered_queue = lambda v: call(own_queue, v)
            hooks.append("ordered_queue")
        elif order == "custom" and callable(key):
            scheduler.order_key = timed_key
            hooks.append("order_key")
        return out

    scheduler.setup = setup_then_time
    watcher = threading.Thread(target=watch, name="pass-time-limit", daemon=True)
    watcher.start()
    try:
        yield
    except (KeyboardInterrupt, _Stop):
        if state["fired"]:  # fired just as the pass returned
            raise PassTimeout(message()) from None
        raise
    finally:
        done.set()
        watcher.join()
        if state["inner"] is not original:  # what setup bound stays (as without a limit)
            scheduler.schedule = state["inner"]
        elif own:
            scheduler.schedule = original
        else:
            del scheduler.schedule  # back to the class's method
        if own_setup:
            scheduler.setup = original_setup
        else:
            del scheduler.setup
        if "ordered_queue" in hooks:
            del scheduler.ordered_queue  # back to the class's method
        if "order_key" in hooks:
            scheduler.order_key = key
