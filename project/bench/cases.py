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
    lua: str | None = None  # a whole wrk script instead of the one built from the fields above


@dataclass(frozen=True)
class Case:
    name: str
    floor: str | None  # name of the floor case, None for a floor itself
    prepare: Callable[[dict], Load]
    target: float | None = None  # minimum ratio to the floor the design asks for
    metric: str = "rps"  # "rps": own req/s ÷ the floor's; "p50": the floor's p50 ÷ own p50
    broker_down: bool = False  # served by a second server whose Celery broker is unreachable


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


def _wallets(name: str) -> Callable[[dict], object]:
    """A preparer from project/bench/wallets.py (imported when the runner calls it, Django set up)."""

    def prepare(creds: dict) -> object:
        from project.bench import wallets

        return getattr(wallets, name)(creds)

    return prepare


def _money(name: str) -> Callable[[dict], object]:
    """A preparer from project/bench/money.py (imported when the runner calls it, Django set up)."""

    def prepare(creds: dict) -> object:
        from project.bench import money

        return getattr(money, name)(creds)

    return prepare


CASES = [
    Case(
        "GET /config",
        "floor: ORM read",
        lambda c: Load("GET", "/api/2025-10-13/config", headers=basic_auth(c)),
        target=0.6,
    ),
    # The one stamped request wrk can repeat: the identical re-send of a signed retry still PROCESSING.
    Case(
        "signed-retry re-send while PROCESSING (PATCH internal account)",
        "floor: ORM read",
        _wallets("replay_load"),
        target=0.3,
    ),
    Case("POST /quotes", "floor: ORM transaction", _money("quote_create_load"), target=0.4),
    Case("GET /quotes/{id}", "floor: ORM read", _money("quote_get_load"), target=0.5),
    # Each request executes the next of many prepared quotes (a Lua script rotates the ids).
    Case("POST /quotes/{id}/execute", "floor: ORM transaction", _money("execute_load"), target=0.4),
    # Each request authorizes 1 cent on the next of many cards (a hold, a card transaction, its event).
    Case(
        "POST /sandbox/cards/{id}/simulate/authorization",
        "floor: ORM transaction",
        _money("card_authorization_load"),
        target=0.4,
    ),
    # Its ratio to the plain execute: a stamp may cost at most 1.25x (ratio >= 0.8).
    Case(
        "POST /quotes/{id}/execute (embedded wallet, stamped)",
        "POST /quotes/{id}/execute",
        _money("stamped_execute_load"),
        target=0.8,
    ),
    # Executes that record a webhook event (the platform has an endpoint), so each commit queues a
    # delivery task; the baseline of the next case.
    Case(
        "POST /quotes/{id}/execute (webhooks on)",
        "floor: ORM transaction",
        _money("execute_webhooks_load"),
        target=0.4,
    ),
    # The same with the broker unreachable: p50 at most 1.5x the broker-up p50 (ratio >= 0.67).
    Case(
        "POST /quotes/{id}/execute (webhooks on, broker down)",
        "POST /quotes/{id}/execute (webhooks on)",
        _money("execute_webhooks_load"),
        target=0.67,
        metric="p50",
        broker_down=True,
    ),
    # A page of 20 rendered transactions; the baseline of the next case.
    Case(
        "GET /transactions (1,000 in the platform)",
        "floor: ORM read",
        _money("transactions_1k_load"),
        target=0.5,
    ),
    # p50 with a million transactions at most 1.5x its p50 with a thousand (ratio >= 0.67).
    Case(
        "GET /transactions (1,000,000 in the platform)",
        "GET /transactions (1,000 in the platform)",
        _money("transactions_1m_load"),
        target=0.67,
        metric="p50",
    ),
    # The million filtered to type=INCOMING, none of which they are: p50 at most 1.5x the unfiltered
    # list's (ratio >= 0.67), not a walk through the million.
    Case(
        "GET /transactions?type=INCOMING (1M, none)",
        "GET /transactions (1,000,000 in the platform)",
        _money("transactions_1m_incoming_load"),
        target=0.67,
        metric="p50",
    ),
]


@dataclass(frozen=True)
class Micro:
    """An in-process micro-benchmark, run before the server starts. `prepare(creds)` (Django set up) returns
    the operation to time; the runner reports µs per call and the ratio baseline µs ÷ own µs, read like a
    req/s ratio (below 1: slower than the baseline). `calls` fixes how many calls are timed, for
    operations that use something up (prepare makes that many); otherwise the runner calibrates.
    `target` is the least ratio the design asks for, `max_us` the most µs per call."""

    name: str
    baseline: str | None
    prepare: Callable[[dict], Callable[[], object]]
    calls: int | None = None
    target: float | None = None
    max_us: float | None = None


RAW_VERIFY = "P-256 verify (raw, key parsed)"
TXN_IN_PROCESS = "floor: ORM transaction (in process)"

MICROS = [
    Micro(RAW_VERIFY, None, _wallets("raw_verify")),
    Micro("stamp verify (key parse cached)", RAW_VERIFY, _wallets("stamp_verify_same_key")),
    Micro("stamp verify (a new key every call)", RAW_VERIFY, _wallets("stamp_verify_new_keys")),
    # What every stamped execute of an embedded wallet's quote pays: at most 2 verifies (ratio >= 0.5).
    # The session, once seen, is remembered in process (wallets/session_cache.py).
    Micro("wallet_stamp_verify seam (+ active session)", RAW_VERIFY, _wallets("stamp_seam"), target=0.5),
    Micro(TXN_IN_PROCESS, None, _wallets("orm_transaction")),
    # Lookup, stamp, claim, session insert, outcome: at most 4 ms (the floor was about 3.6 ms).
    Micro("OTP verify signed retry leg", TXN_IN_PROCESS, _wallets("otp_retry_leg"), calls=400, max_us=4000),
]


@dataclass(frozen=True)
class Timed:
    """Server time of one portal action, timed in process (after the HTTP cases, with the server still
    running: the portal's views run in the runner and call that server through the client).
    `prepare(creds, base_url, calls)` (Django set up) returns the action, ready to run `calls` times;
    each call performs it once and returns the seconds the server spent on each of its steps. The runner reports p50 and p99 of the
    total in ms (and each step's p50); the ratio is the baseline's p50 ÷ own p50."""

    name: str
    baseline: str | None
    prepare: Callable[[dict, str, int], Callable[[], dict[str, float]]]
    calls: int


def _portal(name: str) -> Callable[[dict, str, int], Callable[[], dict[str, float]]]:
    """A preparer from project/bench/portal.py (imported when the runner calls it, Django set up)."""

    def prepare(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
        from project.bench import portal

        return getattr(portal, name)(creds, base_url, calls)

    return prepare


CLIENT_QUOTE_GET = "client: GET /quotes/{id}"
CLIENT_OTP_LOGIN = "client: OTP login (challenge, verify + retry)"

PORTAL_TIMINGS = [
    Timed(CLIENT_QUOTE_GET, None, _portal("quote_get_client_only"), calls=300),
    Timed("portal: quote confirmation page", CLIENT_QUOTE_GET, _portal("quote_page"), calls=300),
    Timed("portal: quote confirmation, Confirm", None, _portal("quote_confirm"), calls=60),
    Timed(CLIENT_OTP_LOGIN, None, _portal("otp_login_client_only"), calls=60),
    Timed("portal: OTP login round trip", CLIENT_OTP_LOGIN, _portal("otp_login"), calls=60),
]


@dataclass(frozen=True)
class Throughput:
    """A measurement wrk cannot take: `run` does the work itself (after the HTTP cases, with the server
    stopped) and returns at least {"per_second": float}."""

    name: str
    unit: str
    run: Callable[[], dict]
    target: float | None = None  # the least per_second the design asks for


def _webhook_delivery() -> dict:
    from project.bench.webhooks import delivered_events_per_second

    return delivered_events_per_second()


THROUGHPUTS = [
    Throughput("webhooks delivered, one worker (solo)", "events/s", _webhook_delivery, target=500),
]
