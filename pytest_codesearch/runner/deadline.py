"""A soft deadline for agent code running in this process (SIGALRM), which coexists with pytest-timeout.

The alarm interrupts Python code only: an agent that swallows ``BaseException`` or holds the GIL in C
code is late (PITFALLS 16); hard deadlines need an agent in a child process. pytest-timeout's signal
method arms the same timer: the earlier of the two deadlines is armed, theirs keeps its handler, and
its remaining time is restored afterwards.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any


class DeadlineExceeded(BaseException):
    """Raised inside agent code when its budget is spent (a BaseException, as KeyboardInterrupt is)."""


def can_interrupt() -> bool:
    """Return True where a deadline can interrupt this thread (POSIX, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise ``DeadlineExceeded`` in the body once ``seconds`` have passed (no limit for None).

    Where signals cannot be used (another thread, Windows) the body runs unlimited.
    """
    if seconds is None or not can_interrupt():
        yield
        return
    ends_at = time.monotonic() + seconds
    theirs, their_remaining = signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)[0]
    their_end = time.monotonic() + their_remaining if their_remaining > 0 else None

    def on_alarm(signum: int, frame: FrameType | None) -> Any:
        if time.monotonic() >= ends_at - 0.001:
            raise DeadlineExceeded()
        if callable(theirs):  # pytest-timeout's deadline came first: its handler decides
            theirs(signum, frame)
        signal.setitimer(signal.ITIMER_REAL, max(ends_at - time.monotonic(), 0.001))  # ours still stands
        return None

    signal.signal(signal.SIGALRM, on_alarm)
    first = seconds if their_end is None else min(seconds, max(their_end - time.monotonic(), 0.001))
    signal.setitimer(signal.ITIMER_REAL, first)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, theirs)
        if their_end is not None:
            signal.setitimer(signal.ITIMER_REAL, max(their_end - time.monotonic(), 0.001))
