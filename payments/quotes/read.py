"""Reading a quote, with its transaction's due steps applied."""

from __future__ import annotations

from uuid import UUID

from payments import clock
from payments.errors import ResourceNotFound
from payments.models import Platform, Quote
from payments.query_plans import plan_first
from payments.transactions import transaction_advance


def _quote_rows(platform_id: UUID, quote_id: UUID):
    return Quote.objects.select_related("transaction").filter(platform_id=platform_id, pk=quote_id)[:1]


def quote_get(*, platform: Platform, quote_id: UUID) -> Quote:
    """The platform's quote, with its transaction's due steps applied (expiry included)."""
    quote = plan_first("quote-get", _quote_rows, platform.pk, quote_id)
    if quote is None:
        raise ResourceNotFound("Quote")
    txn = quote.transaction
    if txn.next_step_at is not None and txn.next_step_at <= clock.now():
        transaction_advance(transaction_id=txn.pk)
        quote = Quote.objects.select_related("transaction").get(pk=quote.pk)
    return quote
