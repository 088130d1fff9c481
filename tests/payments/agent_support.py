"""Agents for tests: a policy in the reference's shape, an agent made over the API, and its token."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.conftest import API


def policy(**changes: Any) -> dict[str, Any]:
    base = {
        "permissions": [
            "VIEW_TRANSACTIONS",
            "CREATE_TRANSFERS",
            "CREATE_QUOTES",
            "EXECUTE_QUOTES",
            "MANAGE_EXTERNAL_ACCOUNTS",
        ],
        "defaultExecutionMode": "AUTO",
        "spendingLimits": {"currency": "USD", "perTransactionLimit": 50_000, "dailyLimit": 500_000},
    }
    return {**base, **changes}


def create_agent(api, customer, **fields: Any) -> dict[str, Any]:
    body = {"name": "Payroll agent", "customerId": customer.public_id, "policy": policy(), **fields}
    response = api.post("/agents", body)
    assert response.status_code == 201, response.json()
    return response.json()


def connected_agent(api, customer, **fields: Any) -> tuple[dict[str, Any], str]:
    """An agent of `customer` whose device code was redeemed, and its access token."""
    made = create_agent(api, customer, **fields)
    response = APIClient().post(f"{API}/agents/device-codes/{made['deviceCode']['code']}/redeem")
    assert response.status_code == 200, response.json()
    return made["agent"], response.json()["accessToken"]


class AgentApi:
    """An API client holding an agent's access token, paths relative to the API base."""

    def __init__(self, token: str):
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    def __getattr__(self, method):
        if method not in ("get", "post", "patch", "delete"):
            raise AttributeError(method)

        def call(path, data=None, **kwargs):
            if data is not None and method != "get":
                kwargs.setdefault("format", "json")
            return getattr(self.client, method)(API + path, data, **kwargs)

        return call
