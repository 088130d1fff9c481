"""Test helpers for cards: an approved cardholder with a funded USD account, and issuing a card."""

from __future__ import annotations

from typing import Any

from payments.models import Customer, InternalAccount
from tests.payments.money_support import consenting_customer, funded_account


def cardholder(api, amount: int = 100_000, **fields) -> tuple[Customer, InternalAccount]:
    """An APPROVED customer of `api`'s platform and its USD account funded with `amount`."""
    customer, _wallet = consenting_customer(api.platform, **fields)
    return customer, funded_account(customer, amount)


def issue(api, customer: Customer, *accounts: InternalAccount, **body: Any) -> dict[str, Any]:
    response = api.post(
        "/cards",
        {
            "cardholderId": customer.public_id,
            "form": "VIRTUAL",
            "fundingSources": [a.public_id for a in accounts],
            **body,
        },
    )
    assert response.status_code == 201, response.json()
    return response.json()


def authorize(api, card: dict, amount: int, descriptor: str = "BLUE BOTTLE COFFEE SF", currency: str = "USD"):
    return api.post(
        f"/sandbox/cards/{card['id']}/simulate/authorization",
        {
            "amount": amount,
            "currency": {"code": currency},
            "merchant": {"descriptor": descriptor, "mcc": "5814"},
        },
    )


def available(api, account: InternalAccount) -> tuple[int, int]:
    """(balance, totalBalance) of the account as GET /customers/internal-accounts shows it."""
    page = api.get("/customers/internal-accounts", {"customerId": account.customer.public_id}).json()
    found = next(a for a in page["data"] if a["id"] == account.public_id)
    return found["balance"]["amount"], found["totalBalance"]["amount"]
