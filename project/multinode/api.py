"""API helpers: a platform's HTTP clients of one node or of the load balancer."""

from __future__ import annotations

import secrets
import threading

import httpx

from project.bench.soak import customer_body
from project.multinode.config import API, BALANCER, UMA_SUCCESS, WEB_PORTS


class Api:
    def __init__(self, client_id: str, secret: str) -> None:
        self.auth = (client_id, secret)
        self.local = threading.local()

    def client(self, base: str) -> httpx.Client:
        clients = self.local.__dict__.setdefault("clients", {})
        if base not in clients:
            clients[base] = httpx.Client(base_url=base + API, auth=self.auth, timeout=30)
        return clients[base]

    def funded_account(self, base: str, amount: int) -> str:
        api = self.client(base)
        customer = api.post("/customers", json=customer_body(secrets.randbelow(10**12)))
        customer.raise_for_status()
        accounts = api.get("/customers/internal-accounts", params={"customerId": customer.json()["id"]})
        account = next(a for a in accounts.json()["data"] if a["balance"]["currency"]["code"] == "USD")["id"]
        api.post(f"/sandbox/internal-accounts/{account}/fund", json={"amount": amount}).raise_for_status()
        return account

    def quote(self, base: str, account: str, amount: int) -> httpx.Response:
        return self.client(base).post(
            "/quotes",
            json={
                "source": {"sourceType": "ACCOUNT", "accountId": account},
                "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": UMA_SUCCESS},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": amount,
            },
        )

    def execute(self, base: str, quote_id: str, key: str) -> httpx.Response:
        return self.client(base).post(f"/quotes/{quote_id}/execute", headers={"Idempotency-Key": key})


def _node(i: int) -> str:
    return f"http://127.0.0.1:{WEB_PORTS[i % len(WEB_PORTS)]}"


BALANCED = f"http://127.0.0.1:{BALANCER}"
