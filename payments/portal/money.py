"""Money as the portal shows and reads it: minor units ↔ text, by the currency's `decimals` as the
service reports it. Plain words for the spec's transaction statuses and failure reasons."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

TERMINAL_STATUSES = frozenset({"COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED"})

# A status in words, and the tone of its badge (css/site.css: .badge-<tone>).
STATUS_NAMES = {
    "CREATED": ("Created", "neutral"),
    "PENDING": ("Pending", "neutral"),
    "PENDING_AUTHORIZATION": ("Waiting for your approval", "warning"),
    "PROCESSING": ("In progress", "info"),
    "COMPLETED": ("Completed", "success"),
    "FAILED": ("Failed", "danger"),
    "REJECTED": ("Rejected", "danger"),
    "REFUNDED": ("Refunded", "neutral"),
    "EXPIRED": ("Expired", "neutral"),
}

FAILURE_SENTENCES = {
    "QUOTE_EXECUTION_FAILED": (
        "The payment could not be carried out. Any money taken from your wallet is returned to it."
    ),
    "PAYOUT_RETURNED": "The receiving bank sent the payment back. The money is returned to your wallet.",
    "LIMIT_EXCEEDED": "The payment is above a limit that applies to your account.",
    "ACCOUNT_CANNOT_RECEIVE": "The receiving account cannot accept this payment.",
    "ACCOUNT_INVALID": "The receiving account details are not valid, or the account is closed.",
    "COMPLIANCE_REJECTED": "The payment was stopped by a compliance check.",
    "SCA_NOT_COMPLETED": "The payment was not approved in time, so nothing was sent. Please start it again.",
}


def _code_and_decimals(currency: Any) -> tuple[str, int]:
    if currency is None:
        return "", 2
    if isinstance(currency, dict):
        return currency.get("code", ""), int(currency.get("decimals") or 0)
    return currency.code, int(currency.decimals or 0)


def amount_text(amount: int | None, currency: Any) -> str:
    """`908` EUR (2 decimals) → `9.08 EUR`."""
    if amount is None:
        return "—"
    code, decimals = _code_and_decimals(currency)
    value = Decimal(amount).scaleb(-decimals)
    return f"{value:,.{decimals}f} {code}".strip()


def minor_units(value: Decimal, decimals: int) -> int | None:
    """`Decimal("9.08")`, 2 → `908`; None when the value has more digits than the currency allows."""
    try:
        scaled = value.scaleb(decimals)
    except InvalidOperation:
        return None
    if scaled != scaled.to_integral_value():
        return None
    return int(scaled)
