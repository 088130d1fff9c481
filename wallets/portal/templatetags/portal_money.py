"""Template filters of the portal's money pages (the rules live in `wallets.portal.money`).
Currencies come from the service's answers (their `decimals`), never from the service's own tables."""

from __future__ import annotations

from typing import Any

from django import template

from wallets.portal.money import amount_text, failure_words, status_badge_tone, status_words

register = template.Library()


@register.filter
def money(amount: int | None, currency: Any) -> str:
    """`{{ quote.total_sending_amount|money:quote.sending_currency }}` → `10.00 USDC`."""
    return amount_text(amount, currency)


@register.filter
def money_of(value: Any) -> str:
    """`{{ txn.sent_amount|money_of }}` for a CurrencyAmount."""
    if value is None:
        return "—"
    return amount_text(value.amount, value.currency)


@register.filter
def countdown(seconds: int) -> str:
    """`125` → `2:05`."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


@register.filter
def status_name(status: str | None, direction: str | None = None) -> str:
    """`{{ t.status|status_name:t.type }}` → `Delivered` (`Received` for an INCOMING payment)."""
    return status_words(status, direction)


@register.filter
def status_tone(status: str | None) -> str:
    """The badge tone of a status: `{{ t.status|status_tone }}` → `success`."""
    return status_badge_tone(status)


@register.filter
def failure_sentence(reason: str | None) -> str:
    return failure_words(reason)
