"""What `make bench` measures. Each case names the floor its ratio is taken against; later features
add their cases here. `prepare` runs in the runner (Django set up, same database as the server) and
returns the request to load the server with."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Load:
    method: str
    path: str
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    name: str
    floor: str | None  # name of the floor case, None for a floor itself
    prepare: Callable[[dict], Load]
    target: float | None = None  # minimum ratio to the floor the design asks for


def basic_auth(creds: dict) -> dict[str, str]:
    token = base64.b64encode(f"{creds['clientId']}:{creds['clientSecret']}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


FLOORS = [
    Case("floor: bare DRF view", None, lambda c: Load("GET", "/bench/drf")),
    Case("floor: ORM read", None, lambda c: Load("GET", "/bench/read")),
    Case(
        "floor: ORM transaction",
        None,
        lambda c: Load("POST", "/bench/txn", "{}", {"Content-Type": "application/json"}),
    ),
]

CASES = [
    Case(
        "GET /config",
        "floor: ORM read",
        lambda c: Load("GET", "/api/2025-10-13/config", headers=basic_auth(c)),
        target=0.6,
    ),
]


@dataclass(frozen=True)
class Throughput:
    """A measurement wrk cannot take: `run` does the work itself (after the HTTP cases, with the server
    stopped) and returns at least {"per_second": float}."""

    name: str
    unit: str
    run: Callable[[], dict]


def _webhook_delivery() -> dict:
    from project.bench.webhooks import delivered_events_per_second

    return delivered_events_per_second()


THROUGHPUTS = [
    Throughput("webhooks delivered, one worker (solo)", "events/s", _webhook_delivery),
]
