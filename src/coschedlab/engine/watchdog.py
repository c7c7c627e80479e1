"""A time limit on each scheduling pass: a policy that never returns stops the run with an error.

The limit is enforced by a daemon thread that interrupts the main thread
(a SIGINT sent to it) when one call of ``schedule(view)`` has run longer than the
limit; the interruption becomes a :class:`~coschedlab.engine.kernel.SchedulerError` naming the
policy, the simulated time and the limit. Only the wrapped ``schedule`` pays for it (two
clock reads per pass), so built-in policies run without it unless asked.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import InputError

__all__ = ["PassTimeout", "pass_time_limit"]


class PassTimeout(InputError):
    """One scheduling pass ran longer than its limit (a policy bug, reported in one line)."""


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
    state = {"started": None, "fired": False, "now": None}
    done = threading.Event()

    def message() -> str:
        return (
            f"scheduler {describe()}: a pass at t={state['now']:g} took more than {limit:g} s "
            "(the pass time limit); fix the policy or raise the limit"
        )

    def timed(view: Any) -> Any:
        state["now"] = view.now
        state["started"] = time.monotonic()
        try:
            return original(view)
        except KeyboardInterrupt:
            if state["fired"]:
                raise PassTimeout(message()) from None
            raise
        finally:
            state["started"] = None

    main = threading.main_thread().ident

    def watch() -> None:
        while not done.wait(min(0.05, limit / 4)):
            started = state["started"]
            if started is not None and time.monotonic() - started > limit:
                state["fired"] = True
                # a real SIGINT to the main thread: it also wakes a blocking call (sleep, I/O),
                # which _thread.interrupt_main() would not
                signal.pthread_kill(main, signal.SIGINT)
                return

    own = "schedule" in getattr(scheduler, "__dict__", {})
    scheduler.schedule = timed
    watcher = threading.Thread(target=watch, name="pass-time-limit", daemon=True)
    watcher.start()
    try:
        yield
    except KeyboardInterrupt:
        if state["fired"]:  # fired just as the pass returned
            raise PassTimeout(message()) from None
        raise
    finally:
        done.set()
        watcher.join()
        if own:
            scheduler.schedule = original
        else:
            del scheduler.schedule  # back to the class's method
