"""Template filters of the portal's money pages. Currencies come from the service's answers (their
`decimals`), never from the service's own tables."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

from payments.portal.money import FAILURE_SENTENCES, STATUS_NAMES, amount_text

register = template.Library()


@register.filter
def money(amount: int | None, currency: Any) -> str:
    """`{{ quote.total_sending_amount|money:quote.sending_currency }}` → `10.000000 USDC`."""
    return amount_text(amount, currency)


@register.filter
def money_of(value: Any) -> str:
    """`{{ txn.sent_amount|money_of }}` for a CurrencyAmount."""
    if value is None:
        return "—"
    return amount_text(value.amount, value.currency)


@register.filter
def rate(value: Decimal | None) -> str:
    return "—" if value is None else f"{value.normalize():f}"


@register.filter
def status_name(status: str | None) -> str:
    """`PENDING_AUTHORIZATION` → `Waiting for your approval`; an unknown status (the set is open) as
    words: `ON_HOLD` → `On hold`."""
    if not status:
        return "Unknown"
    known = STATUS_NAMES.get(status)
    return known[0] if known else status.replace("_", " ").capitalize()


@register.filter
def status_tone(status: str | None) -> str:
    """The badge tone of a status: `{{ t.status|status_tone }}` → `success`."""
    known = STATUS_NAMES.get(status or "")
    return known[1] if known else "neutral"


@register.filter
def failure_sentence(reason: str | None) -> str:
    if not reason:
        return "The payment failed."
    return FAILURE_SENTENCES.get(reason, "The payment failed.")
