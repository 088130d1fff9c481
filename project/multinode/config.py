"""The run's settings (environment, ports, waits), its output and the report of its checks."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


API = "/api/2025-10-13"


DATABASE_URL = os.environ.get("MULTINODE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/multinode")


REDIS_URL = os.environ.get("MULTINODE_REDIS_URL", "redis://127.0.0.1:6379/15")


STORM_EVENTS = int(os.environ.get("MULTINODE_STORM_EVENTS", "10000"))


BALANCER, PGBOUNCER, REDIS_PROXY, RECEIVER = 8360, 8361, 8362, 8363


WEB_PORTS = (8371, 8372, 8373)


WORKER_METRICS_PORTS = (8381, 8382)


PREPARING_WEB_PORT = 8374  # a node without DATABASE_TRANSACTION_POOLING, for scenario 0


KILL_LOAD_SECONDS = 30


OUTCOME_WAIT_SECONDS = 600  # the webhook sweeper re-queues a lost delivery after 300 s


TERMINAL = {"COMPLETED", "REJECTED", "FAILED", "REFUNDED", "EXPIRED"}


UMA_SUCCESS = "$success.usd@sandbox.uma.example"


def say(line: str) -> None:
    print(line, flush=True)


@dataclass
class Report:
    figures: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str) -> None:
        say(f"  [{'ok' if ok else 'FAIL'}] {what}")
        if not ok:
            self.failures.append(what)
