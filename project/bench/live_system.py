"""`manage.py runsystem` started as `make run` starts it (SQLite, the embedded broker, a fresh data
directory), on a free port, for tests and scripts that need the whole system running."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
API = "/api/2025-10-13"
PORTS = range(8330, 8400)  # this project's servers listen on 8300-8399


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 8330-8399")


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass
class System:
    process: subprocess.Popen
    port: int
    data_dir: Path
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def credentials(self) -> tuple[str, str]:
        creds = json.loads((self.data_dir / "sandbox-credentials.json").read_text())
        return creds["clientId"], creds["clientSecret"]

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(
            **{"base_url": self.base_url + API, "auth": self.credentials(), "timeout": 30, **kwargs}
        )

    def children(self) -> list[int]:
        pid = self.process.pid
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        return [int(value) for value in text.split()]

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 30) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=timeout)


def environment(data_dir: Path, port: int) -> dict[str, str]:
    """The embedded defaults: no DATABASE_URL or CELERY_* from the caller (a Celery worker started in a
    test process leaves CELERY_LOG_LEVEL=40 there, which the celery command line refuses)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE") and not key.startswith("CELERY_")
    }
    env.update(DATA_DIR=str(data_dir), PORT=str(port), HOST="127.0.0.1", PYTHONUNBUFFERED="1")
    return env


def wait_until_serving(system: System, deadline: float) -> None:
    while time.monotonic() < deadline:
        if system.process.poll() is not None:
            raise RuntimeError(f"runsystem exited early:\n{system.output()}")
        try:
            httpx.get(system.base_url + API + "/config", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise RuntimeError(f"runsystem did not answer in time:\n{system.output()}")


@contextmanager
def running_system(data_dir: Path, *, port: int | None = None) -> Iterator[System]:
    port = port or free_port()
    log = data_dir / "runsystem.log"
    data_dir.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runsystem"],
            cwd=ROOT,
            env=environment(data_dir, port),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    system = System(process=process, port=port, data_dir=data_dir, log=log)
    try:
        wait_until_serving(system, time.monotonic() + 240)  # a loaded machine migrates slowly
        yield system
    finally:
        try:
            system.stop()
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
