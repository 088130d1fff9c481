"""Soak: `make run` (runsystem with its embedded defaults) left running under an API load, to see that
every process stays up. Not part of CI; run it by hand:

    .venv/bin/python -m project.bench.soak            # 30 minutes (SOAK_SECONDS), 4 clients (SOAK_CLIENTS)

It starts runsystem on a free port with a fresh data directory, points the platform's webhooks at a
local receiver, and has each client loop over: create a customer, fund its account, quote and execute
a payment (which records webhook events the worker delivers), read the transaction. Every 10 s it
notes runsystem's children; at the end it prints the requests by status, req/s, the restarts
runsystem logged, the webhooks delivered, and exits 1 if any request got a 5xx, a child was
restarted, or a process is gone.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from project.bench.live_system import free_port, running_system

SECONDS = int(os.environ.get("SOAK_SECONDS", "1800"))
CLIENTS = int(os.environ.get("SOAK_CLIENTS", "4"))
PAUSE = float(os.environ.get("SOAK_PAUSE_SECONDS", "0.05"))  # between a client's requests

CONSENT = {
    "acceptedAt": "2025-07-21T17:32:28Z",
    "ipAddress": "198.51.100.24",
    "termsVersion": "V1",
    "acceptanceMethod": "CHECKBOX",
}


def _customer(n: int) -> dict:
    return {
        "customerType": "INDIVIDUAL",
        "fullName": f"Soak Person {n} Smith",
        "birthDate": "1990-01-15",
        "nationality": "US",
        "address": {
            "line1": "1 Main Street",
            "city": "San Francisco",
            "state": "CA",
            "postalCode": "94105",
            "country": "US",
        },
        "email": f"soak{n}@example.com",
        "endUserTermsConsent": CONSENT,
    }


class _Receiver(BaseHTTPRequestHandler):
    received = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with _Receiver.lock:
            _Receiver.received += 1
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


class Load:
    def __init__(self, system, deadline: float) -> None:
        self.system, self.deadline = system, deadline
        self.statuses: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.sequence = 0

    def _count(self, name: str, response: httpx.Response) -> httpx.Response:
        with self.lock:
            self.statuses[f"{name} {response.status_code}"] += 1
        return response

    def client(self) -> None:
        with self.system.client() as api:
            while time.monotonic() < self.deadline:
                with self.lock:
                    self.sequence += 1
                    n = self.sequence
                try:
                    self._round(api, n)
                except (httpx.HTTPError, KeyError, StopIteration, ValueError) as exc:
                    with self.lock:
                        self.errors[type(exc).__name__] += 1
                time.sleep(PAUSE)

    def _round(self, api: httpx.Client, n: int) -> None:
        customer = self._count("POST /customers", api.post("/customers", json=_customer(n))).json()
        accounts = self._count(
            "GET /customers/internal-accounts",
            api.get("/customers/internal-accounts", params={"customerId": customer["id"]}),
        ).json()["data"]
        account = next(a for a in accounts if a["balance"]["currency"]["code"] == "USD")["id"]
        self._count(
            "POST fund", api.post(f"/sandbox/internal-accounts/{account}/fund", json={"amount": 10_000})
        )
        quote = self._count(
            "POST /quotes",
            api.post(
                "/quotes",
                json={
                    "source": {"sourceType": "ACCOUNT", "accountId": account},
                    "destination": {
                        "destinationType": "UMA_ADDRESS",
                        "umaAddress": "$success.usd@sandbox.uma.example",
                    },
                    "lockedCurrencySide": "SENDING",
                    "lockedCurrencyAmount": 1_000,
                },
            ),
        ).json()
        self._count("POST execute", api.post(f"/quotes/{quote['id']}/execute"))
        self._count("GET /transactions/{id}", api.get(f"/transactions/{quote['transactionId']}"))


def main() -> int:
    receiver = ThreadingHTTPServer(("127.0.0.1", free_port()), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    data_dir = Path(tempfile.mkdtemp(prefix="soak-"))
    print(f"soak: {SECONDS} s, {CLIENTS} clients, data in {data_dir}", flush=True)
    with running_system(data_dir) as system:
        with system.client() as api:
            webhook = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
            api.patch("/config", json={"webhookEndpoint": webhook}).raise_for_status()
        first_children = system.children()
        started = time.monotonic()
        load = Load(system, started + SECONDS)
        threads = [threading.Thread(target=load.client) for _ in range(CLIENTS)]
        for thread in threads:
            thread.start()
        changes = []
        while any(thread.is_alive() for thread in threads):
            time.sleep(10)
            if system.process.poll() is not None:
                changes.append("runsystem itself exited")
                break
            children = system.children()
            if children != first_children:
                changes.append(
                    f"at {time.monotonic() - started:.0f} s children {first_children} -> {children}"
                )
                first_children = children
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        time.sleep(5)  # the last webhooks
        alive = system.process.poll() is None and len(system.children()) == 2
        restarts = [line for line in system.output().splitlines() if line.startswith("runsystem:")]
    receiver.shutdown()
    total = sum(load.statuses.values())
    server_errors = sum(count for key, count in load.statuses.items() if int(key.rsplit(" ", 1)[1]) >= 500)
    report = {
        "seconds": round(elapsed),
        "clients": CLIENTS,
        "requests": total,
        "requests_per_second": round(total / elapsed, 1),
        "by_status": dict(sorted(load.statuses.items())),
        "client_errors": dict(load.errors),
        "server_errors": server_errors,
        "webhooks_delivered": _Receiver.received,
        "child_changes": changes,
        "runsystem_restart_lines": restarts,
        "all_processes_up_at_end": alive,
    }
    print(json.dumps(report, indent=2), flush=True)
    return 0 if alive and not changes and not restarts and not server_errors and not load.errors else 1


if __name__ == "__main__":
    sys.exit(main())
