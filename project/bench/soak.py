"""Soak: `make run` (runsystem with its embedded defaults) left running under an API load, to see that
every process stays up. Not part of CI; run it by hand:

    .venv/bin/python -m project.bench.soak            # 30 minutes (SOAK_SECONDS), 4 clients (SOAK_CLIENTS)

It starts runsystem on a free port with a fresh data directory, points the platform's webhooks at a
local receiver, and has each client loop over: create a customer, fund its account, quote and execute
a payment (which records webhook events the worker delivers), read the transaction. Beside them,
SOAK_BROWSERS (1) headless Chromium tabs (Debian's chromium, through Playwright) use the portal as a
person does, over and over: sign up, sign in with the emailed code, add test funds, send to a new US
bank account, confirm, see it delivered, sign out. Every 10 s it notes runsystem's children; at the
end it prints the requests by status, req/s, the portal rounds, the restarts runsystem logged, the
webhooks delivered, and exits 1 if any request got a 5xx, a portal round failed, a child was
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
BROWSERS = int(os.environ.get("SOAK_BROWSERS", "1"))
PAUSE = float(os.environ.get("SOAK_PAUSE_SECONDS", "0.05"))  # between a client's requests

CONSENT = {
    "acceptedAt": "2025-07-21T17:32:28Z",
    "ipAddress": "198.51.100.24",
    "termsVersion": "V1",
    "acceptanceMethod": "CHECKBOX",
}


def customer_body(n: int) -> dict:
    """A POST /customers body for an approved-looking individual (also the multi-node test's)."""
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
        customer = self._count("POST /customers", api.post("/customers", json=customer_body(n))).json()
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


class PortalLoad:
    """A person using the portal, round after round, in one headless Chromium tab."""

    def __init__(self, system, deadline: float) -> None:
        self.data_dir = system.data_dir
        self.base = f"http://localhost:{system.port}"  # passkeys and the portal's links want localhost
        self.deadline = deadline
        self.rounds: Counter[str] = Counter()
        self.failures: list[str] = []
        self.lock = threading.Lock()
        self.sequence = 0

    def browser(self) -> None:
        from playwright.sync_api import sync_playwright

        from tests.browser import CHROMIUM_ARGS, chromium_path

        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            while time.monotonic() < self.deadline:
                with self.lock:
                    self.sequence += 1
                    n = self.sequence
                context = chromium.new_context()
                context.set_default_timeout(30_000)
                page = context.new_page()
                try:
                    self._round(page, n)
                except Exception as exc:  # a failed round is the finding; keep going
                    page.screenshot(path=str(self.data_dir / f"portal-round-{n}.png"), full_page=True)
                    with self.lock:
                        self.rounds["failed"] += 1
                        self.failures.append(
                            f"round {n} at {page.url}: {type(exc).__name__}: {str(exc)[:300]}"
                        )
                else:
                    with self.lock:
                        self.rounds["completed"] += 1
                finally:
                    context.close()
            chromium.close()

    def _round(self, page, n: int) -> None:
        from playwright.sync_api import expect

        email = f"soak-person-{n}-{os.getpid()}@example.com"
        page.goto(self.base + "/signup/")
        page.fill("#id_email", email)
        page.fill("#id_full_name", f"Soak Person {n}")
        page.check("#id_terms")
        page.get_by_role("button", name="Create my wallet").click()
        page.wait_for_url("**/signup/status/")
        page.goto(self.base + "/login/")
        page.fill("#id_email", email)
        page.get_by_role("button", name="Continue", exact=True).click()
        page.wait_for_url("**/login/code/")
        page.locator(".code-box").first.click()
        page.keyboard.type("000000")
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
        page.goto(self.base + "/home/")
        page.get_by_role("button", name="Add test funds").click()
        expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")
        page.goto(self.base + "/send/")
        page.fill("#id_beneficiary_name", "John Doe")
        page.fill("#id_account_number", f"{100_000 + n}001")  # ends 001: the sandbox's plain success
        page.fill("#id_routing_number", "021000021")
        page.fill("#id_amount", "1")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url("**/quotes/Quote:*/")
        page.get_by_role("button", name="Confirm and send").click()
        page.wait_for_url("**/transactions/Transaction:*/")
        expect(page.locator("[data-status]")).to_have_text("Delivered")
        page.get_by_role("button", name="Sign out").first.click()
        page.wait_for_url(self.base + "/")


def main() -> int:
    receiver = ThreadingHTTPServer(("127.0.0.1", free_port()), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    data_dir = Path(tempfile.mkdtemp(prefix="soak-"))
    print(f"soak: {SECONDS} s, {CLIENTS} clients, {BROWSERS} browsers, data in {data_dir}", flush=True)
    # One address makes every sign-up and sign-in here: lift the portal's per-address limits.
    for name in ("SIGNUPS_PER_HOUR", "SIGNINS_PER_10_MINUTES", "CODE_ENTRIES_PER_10_MINUTES"):
        os.environ[f"PORTAL_{name}"] = "1000000"
    with running_system(data_dir) as system:
        with system.client() as api:
            webhook = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
            api.patch("/config", json={"webhookEndpoint": webhook}).raise_for_status()
        first_children = system.children()
        started = time.monotonic()
        load = Load(system, started + SECONDS)
        portal = PortalLoad(system, started + SECONDS)
        threads = [threading.Thread(target=load.client) for _ in range(CLIENTS)]
        threads += [threading.Thread(target=portal.browser) for _ in range(BROWSERS)]
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
        "portal_rounds": dict(portal.rounds),
        "portal_failures": portal.failures[:10],
        "server_errors": server_errors,
        "webhooks_delivered": _Receiver.received,
        "child_changes": changes,
        "runsystem_restart_lines": restarts,
        "all_processes_up_at_end": alive,
    }
    print(json.dumps(report, indent=2), flush=True)
    healthy = not (changes or restarts or server_errors or load.errors or portal.rounds["failed"])
    return 0 if alive and healthy else 1


if __name__ == "__main__":
    sys.exit(main())
