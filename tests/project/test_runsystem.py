"""`make run` (runsystem) as a person meets it: the embedded defaults under parallel writers."""

from __future__ import annotations

import threading
import time
from collections import Counter

import httpx
import pytest

from project.bench.live_system import running_system
from tests.payments.kyc_support import individual


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    with running_system(tmp_path_factory.mktemp("runsystem")) as running:
        yield running


def _usd_account(api: httpx.Client, customer_id: str) -> dict:
    accounts = api.get("/customers/internal-accounts", params={"customerId": customer_id}).json()["data"]
    return next(a for a in accounts if a["balance"]["currency"]["code"] == "USD")


def test_sixteen_parallel_writers_on_sqlite_get_no_server_error_and_every_credit_counts(system):
    with system.client() as api:
        customer = api.post("/customers", json=individual("Fund Target")).json()["id"]
        account = _usd_account(api, customer)["id"]
    statuses: Counter[int] = Counter()
    funded = Counter()
    lock = threading.Lock()
    stop_at = time.monotonic() + 6

    def writer(n: int) -> None:
        with system.client() as api:
            i = 0
            while time.monotonic() < stop_at:
                if i % 2:
                    response = api.post(f"/sandbox/internal-accounts/{account}/fund", json={"amount": 1})
                else:
                    response = api.post("/customers", json=individual(f"Writer {n} {i} Smith"))
                with lock:
                    statuses[response.status_code] += 1
                    funded["cents"] += int(i % 2 == 1 and response.is_success)
                i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(statuses.values()) >= 32, statuses
    assert set(statuses) <= {200, 201}, statuses  # no 5xx ("database is locked"), no refusals
    with system.client() as api:
        balance = _usd_account(api, customer)["balance"]["amount"]
    assert balance == funded["cents"]
