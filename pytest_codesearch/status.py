"""The status of one benchmark item: every count, table and writer iterates over ``Status``."""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """How a (case, agent) item ended. The value is what reports and JUnit properties show."""

    OK = "ok"
    """The agent answered; the answer was scored."""
    ERROR = "error"
    """The agent raised, answered something unusable, or the case could not be run; metrics score 0."""
    TIMEOUT = "timeout"
    """The agent did not answer (or index) within its budget; metrics score 0."""
    CRASHED = "crashed"
    """The process running the agent died; metrics score 0."""
    NOT_RUN = "not_run"
    """Collected but never run (an interrupted session, a worker past its restart limit)."""

    @property
    def answered(self) -> bool:
        """Return True when the agent's answer was scored (latency counts only then)."""
        return self is Status.OK

    @property
    def failed(self) -> bool:
        """Return True for the statuses that score every metric 0 and fail the item."""
        return self in (Status.ERROR, Status.TIMEOUT, Status.CRASHED)


STATUS_VALUES: tuple[str, ...] = tuple(s.value for s in Status)
"""Every status value, in the order tables show them."""
