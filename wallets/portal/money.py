"""Money as the portal shows and reads it: minor units ↔ text, by the currency's `decimals` as the
service reports it (formatted with Babel for the active language), rates as people read them, a
quote's or payment's fees item by item, and plain words for the spec's statuses and failure reasons."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from babel.numbers import format_currency, format_decimal, get_currency_precision
from django.utils.translation import get_language, to_locale

TERMINAL_STATUSES = frozenset({"COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED"})

# A status in words, and the tone of its badge (css/site.css: .badge-<tone>). INCOMING payments
# read some of them differently (`INCOMING_NAMES`).
STATUS_NAMES = {
    "CREATED": ("Started", "neutral"),
    "PENDING": ("Not sent yet", "neutral"),
    "PENDING_AUTHORIZATION": ("Waiting for your approval", "warning"),
    "PROCESSING": ("On its way", "info"),
    "COMPLETED": ("Delivered", "success"),
    "FAILED": ("Failed", "danger"),
    "REJECTED": ("Stopped", "danger"),
    "REFUNDED": ("Refunded", "neutral"),
    "EXPIRED": ("Not sent", "neutral"),
}
INCOMING_NAMES = {"COMPLETED": "Received", "PROCESSING": "Arriving"}

FAILURE_SENTENCES = {
    "QUOTE_EXECUTION_FAILED": (
        "The payment could not be carried out. Any money taken from your wallet is returned to it."
    ),
    "QUOTE_EXPIRED": "The quote expired before the payment was confirmed, so nothing was sent.",
    "QUOTE_RATE_UNAVAILABLE": "No exchange rate was available for this payment, so nothing was sent.",
    "FUNDING_AMOUNT_MISMATCH": "The amount paid in did not match the quote, so it was returned.",
    "PAYOUT_RETURNED": "The receiving bank sent the payment back. The money is returned to your wallet.",
    "LIMIT_EXCEEDED": "The payment is above a limit that applies to your account.",
    "ACCOUNT_CANNOT_RECEIVE": (
        "The receiving account cannot accept this payment. The money is returned to your wallet; "
        "check the account with the receiver or send to another one."
    ),
    "ACCOUNT_INVALID": "The receiving account details are not valid, or the account is closed.",
    "COMPLIANCE_REJECTED": "The payment was stopped by a compliance check.",
    "SCA_NOT_COMPLETED": "The payment was not approved in time, so nothing was sent. Please start it again.",
    "LIGHTNING_PAYMENT_FAILED": "The payment could not be delivered to the receiver's wallet.",
    "COUNTERPARTY_POST_TX_FAILED": "The receiver's bank or provider could not complete the payment.",
    # incoming
    "LNURLP_FAILED": "The sender's provider could not reach us, so the payment did not arrive.",
    "PAY_REQUEST_FAILED": "The sender's provider could not complete the payment.",
    "PAYMENT_APPROVAL_WEBHOOK_ERROR": "The payment could not be approved in time, so it did not arrive.",
    "PAYMENT_APPROVAL_TIMED_OUT": "The payment could not be approved in time, so it did not arrive.",
    "OFFRAMP_FAILED": "The payment could not be converted into your currency.",
    "MISSING_MANDATORY_PAYEE_DATA": "Details about you that the sender needed were missing.",
    "COLLECTION_FAILED": "The incoming money could not be collected; it goes back to the sender.",
}
FAILED_IN_GENERAL = "The payment failed."


# --- amounts -------------------------------------------------------------------------------------


def _code_and_decimals(currency: Any) -> tuple[str, int]:
    if currency is None:
        return "", 2
    if isinstance(currency, dict):
        return currency.get("code", ""), int(currency.get("decimals") or 0)
    return currency.code, int(currency.decimals or 0)


def _locale() -> str:
    return to_locale(get_language() or "en-us")


def amount_text(amount: int | None, currency: Any) -> str:
    """`908` EUR (2 decimals) → `9.08 EUR`; `10000000` USDC (6) → `10.00 USDC`, `184000` → `0.184 USDC`.

    All the currency's decimals are kept when they matter; trailing zeros go down to the usual number
    of decimals of the currency (Babel's; 2 for one it does not know, such as USDC or BTC)."""
    if amount is None:
        return "—"
    code, decimals = _code_and_decimals(currency)
    value = Decimal(amount).scaleb(-decimals)
    if not code:
        return format_decimal(value, locale=_locale(), decimal_quantization=False)
    shown = min(decimals, get_currency_precision(code))
    fraction = "." + "0" * shown + "#" * (decimals - shown) if decimals else ""
    return format_currency(
        value, code, format=f"#,##0{fraction}\xa0¤¤", locale=_locale(), currency_digits=False
    )


def minor_units(value: Decimal, decimals: int) -> int | None:
    """`Decimal("9.08")`, 2 → `908`; None when the value has more digits than the currency allows."""
    try:
        scaled = value.scaleb(decimals)
    except InvalidOperation:
        return None
    if scaled != scaled.to_integral_value():
        return None
    return int(scaled)


# --- rates ---------------------------------------------------------------------------------------

_RATE_DIGITS = 4  # significant digits of a rate below 1; decimals of one above


def rate_text(exchange_rate: Decimal | None, sending: Any, receiving: Any) -> str:
    """The service's rate (sending units per receiving unit) as people read it, per unit sent:
    `1.08` USDC→EUR → `1 USDC = 0.9259 EUR`. One currency: ``."""
    sending_code, _ = _code_and_decimals(sending)
    receiving_code, _ = _code_and_decimals(receiving)
    if not exchange_rate or sending_code == receiving_code:
        return ""
    per_unit = Decimal(1) / Decimal(exchange_rate)
    if per_unit >= 1:
        shown = per_unit.quantize(Decimal(1).scaleb(-_RATE_DIGITS), ROUND_HALF_EVEN)
    else:
        exponent = per_unit.adjusted() - _RATE_DIGITS + 1
        shown = per_unit.quantize(Decimal(1).scaleb(exponent), ROUND_HALF_EVEN)
    number = format_decimal(shown.normalize(), locale=_locale(), decimal_quantization=False)
    return f"1\xa0{sending_code} = {number}\xa0{receiving_code}"


# --- fees, item by item --------------------------------------------------------------------------


@dataclass(frozen=True)
class FeeLine:
    label: str
    amount: int


def fee_lines(total: int | None, platform: int | None, rate_details: dict[str, Any] | None) -> list[FeeLine]:
    """The fees included in what is sent, in the sending currency, adding up to `total`: the
    service's fixed and percentage fees and the receiving side's fee (from `rateDetails`, the rest
    of the total), and the platform's. Without `rateDetails`, one line. Zero lines are left out."""
    if not total:
        return []
    details = rate_details or {}
    fixed, variable = details.get("serviceApiFixedFee"), details.get("serviceApiVariableFeeAmount")
    platform = platform or 0
    if not isinstance(fixed, int) or not isinstance(variable, int):
        return [FeeLine("Fees", total)]
    rate = details.get("serviceApiVariableFeeRate")
    percent = f" ({format_decimal(Decimal(str(rate)) * 100, locale=_locale())}%)" if rate else ""
    lines = [
        FeeLine("Transfer fee", fixed),
        FeeLine(f"Fee on the amount{percent}", variable),
        FeeLine("Receiving side's fee", total - fixed - variable - platform),
        FeeLine("Wallet provider's fee", platform),
    ]
    if any(line.amount < 0 for line in lines):  # not the shape we know: do not guess
        return [FeeLine("Fees", total)]
    return [line for line in lines if line.amount]


# --- statuses and failures -----------------------------------------------------------------------


def status_words(status: str | None, direction: str | None = None) -> str:
    """`PENDING_AUTHORIZATION` → `Waiting for your approval`; an unknown status (the set is open)
    as words: `ON_HOLD` → `On hold`."""
    if not status:
        return "Unknown"
    if direction == "INCOMING" and status in INCOMING_NAMES:
        return INCOMING_NAMES[status]
    known = STATUS_NAMES.get(status)
    return known[0] if known else status.replace("_", " ").capitalize()


def status_badge_tone(status: str | None) -> str:
    known = STATUS_NAMES.get(status or "")
    return known[1] if known else "neutral"


def failure_words(reason: str | None) -> str:
    return FAILURE_SENTENCES.get(reason or "", FAILED_IN_GENERAL)
