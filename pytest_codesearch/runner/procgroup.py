"""An agent's child process and everything it starts die together (issue 18 item 10).

The child running an agent makes itself the leader of a new session and process group
(:func:`enter_own_group`), and marks its environment with a token (:data:`TOKEN_VARIABLE`) that every
program it starts inherits. At a missed deadline, a crash and the end of the run, :func:`kill_group`
kills the whole group with ``SIGKILL``; then, where ``/proc`` exists (Linux), it looks for processes
that carry the token but left the group (a ``setsid`` daemon, ``start_new_session=True``), kills them
too and returns their descriptions, which the runner names in an :class:`AgentProcessWarning`.

A process that left the group and never ran a new program (a bare ``fork`` then ``setsid``) shows its
parent's original environment, without the token, and is not found.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal

TOKEN_VARIABLE = "PYTEST_CODESEARCH_AGENT_PROCESS"
"""Set in the agent's child process to a token unique to that child; inherited by what it starts."""
_PROC = "/proc"


class AgentProcessWarning(UserWarning):
    """Processes an agent started outlived it outside its process group; they were killed."""


def new_token() -> str:
    """Return a fresh token for one child process."""
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def enter_own_group(token: str) -> None:
    """Make this process the leader of a new session and process group; mark its environment."""
    os.environ[TOKEN_VARIABLE] = token
    if hasattr(os, "setsid"):
        with contextlib.suppress(OSError):  # already a group leader
            os.setsid()


def kill_group(pid: int, token: str) -> list[str]:
    """Kill the process group led by ``pid`` and every process carrying ``token`` outside it; return
    ``pid N (command line)`` for each of the latter (empty where ``/proc`` is missing)."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(OSError):  # no such group: it is empty, or the child never made it
            os.killpg(pid, signal.SIGKILL)  # the leader may be gone already: its group lives on
    survivors: list[str] = []
    for other in _carrying(token):
        with contextlib.suppress(OSError):
            in_group = os.getpgid(other) == pid  # killed a moment ago: not yet reaped
            command = _command(other)  # before it dies: a dead process has no command line
            os.kill(other, signal.SIGKILL)
            if not in_group:
                survivors.append(f"pid {other} ({command})")
    return survivors


def _carrying(token: str) -> list[int]:
    """Return the live processes whose environment holds ``TOKEN_VARIABLE=token``, this one excepted."""
    needle = f"\0{TOKEN_VARIABLE}={token}\0".encode()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return []
    found: list[int] = []
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"{_PROC}/{name}/environ", "rb") as stream:
                environ = b"\0" + stream.read() + b"\0"
        except OSError:  # gone, or another user's
            continue
        if needle in environ and not _is_zombie(name):
            found.append(int(name))
    return found


def _is_zombie(pid: str) -> bool:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as stream:
            return stream.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def _command(pid: int) -> str:
    """Return the command line of ``pid``, shortened, or ``?``."""
    try:
        with open(f"{_PROC}/{pid}/cmdline", "rb") as stream:
            text = stream.read().rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
    text = text.encode("unicode_escape").decode("ascii")  # no control characters in a warning
    return text if len(text) <= 120 else text[:117] + "..."
