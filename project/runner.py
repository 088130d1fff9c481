"""Process supervision for `make run`: each child in its own process group, a child that dies is
restarted after a back-off, and stopping leaves no process behind.

Each child gets its own session (so its own process group): Ctrl-C in the terminal reaches only the
runner, which stops the children in order instead of every process getting SIGINT at once. A stop
sends SIGTERM to each child (its own shutdown stops its workers), then SIGKILL to whatever is left in
its group after STOP_GRACE_SECONDS, so no worker process can keep the port.

A child that dies is restarted after 1 s, then 2, 4, ... up to BACKOFF_MAX_SECONDS while it keeps
dying; one that ran STABLE_SECONDS starts again from 1 s. supervisord was the library for this, but it
restarts a child that dies after its start-up at once, every time, and gives up on one that fails
during start-up after a few tries; neither is what a sandbox left running should do.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

STABLE_SECONDS = 60.0
BACKOFF_MAX_SECONDS = 60.0
STOP_GRACE_SECONDS = 10.0
_TICK = 0.2


@dataclass
class Child:
    name: str
    argv: list[str]
    env: dict[str, str] | None = None  # None: ours
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    failures: int = 0  # deaths in a row, each within STABLE_SECONDS of its start
    restart_at: float = 0.0

    def start(self) -> None:
        # Fixed argument lists built from our own virtualenv's executables.
        self.process = subprocess.Popen(self.argv, env=self.env, start_new_session=True)  # noqa: S603
        self.started_at = time.monotonic()


def exit_reason(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


def restart_delay(failures: int) -> float:
    return min(BACKOFF_MAX_SECONDS, 2.0 ** max(0, failures - 1))


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to a process group; False when the group has no process left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_alive(pgid: int) -> bool:
    return _signal_group(pgid, 0)


def _reap(child: Child) -> None:
    if child.process is not None:
        child.process.poll()


def stop(children: list[Child], *, grace: float = STOP_GRACE_SECONDS) -> None:
    """SIGTERM to each running child, SIGKILL to its whole group if anything of it outlives `grace`."""
    running = [c for c in children if c.process is not None]
    for child in running:
        if child.process.poll() is None:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        for child in running:
            _reap(child)
        if not any(_group_alive(c.process.pid) for c in running):
            break
        time.sleep(_TICK)
    for child in running:
        _signal_group(child.process.pid, signal.SIGKILL)  # stragglers, e.g. a worker that ignored SIGTERM
    for child in running:
        try:
            child.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def supervise(children: list[Child], *, stopping: Callable[[], bool], say: Callable[[str], None]) -> None:
    """Run the children until `stopping()` is true, restarting each one that dies; then stop them."""
    for child in children:
        child.start()
    try:
        while not stopping():
            now = time.monotonic()
            for child in children:
                if child.process is not None and child.process.poll() is not None:
                    ran = now - child.started_at
                    child.failures = 1 if ran >= STABLE_SECONDS else child.failures + 1
                    delay = restart_delay(child.failures)
                    say(
                        f"{child.name} {exit_reason(child.process.returncode)} after {ran:.0f} s; "
                        f"restarting it in {delay:.0f} s"
                    )
                    _signal_group(child.process.pid, signal.SIGKILL)  # what is left of it would hold its port
                    child.process, child.restart_at = None, now + delay
                elif child.process is None and now >= child.restart_at:
                    child.start()
            time.sleep(_TICK)
    finally:
        stop(children)
