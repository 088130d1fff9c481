"""The quote state machine: every allowed move, enforced in one function under a row lock.

PENDING ──execute──▶ PROCESSING ──▶ COMPLETED ──(payout returned)──▶ FAILED
   │                     └────────▶ FAILED
   ├──expiresAt passed──▶ EXPIRED
   ├──funds that do not match (realtime funding)──▶ FAILED
   └──SCA required (payments/sca.py)──▶ PENDING_AUTHORIZATION ──last challenge authorized──▶ PROCESSING
                                           │   (realtime funding: back to PENDING, instructions issued)
                                           └──challenge lapsed──▶ FAILED (SCA_NOT_COMPLETED)

A quote follows its transaction: `payments.transactions.transaction_transition` moves both.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from payments.errors import Conflict
from payments.models import Quote, QuoteStatus
from payments.query_plans import plan_update

Status = QuoteStatus

QUOTE_TRANSITIONS: dict[str, frozenset[str]] = {
    Status.PENDING: frozenset(
        {Status.PENDING_AUTHORIZATION, Status.PROCESSING, Status.EXPIRED, Status.FAILED}
    ),
    Status.PENDING_AUTHORIZATION: frozenset(
        {Status.PENDING, Status.PROCESSING, Status.EXPIRED, Status.FAILED}
    ),
    Status.PROCESSING: frozenset({Status.COMPLETED, Status.FAILED}),
    Status.COMPLETED: frozenset({Status.FAILED}),
    Status.FAILED: frozenset(),
    Status.EXPIRED: frozenset(),
}


class IllegalQuoteTransition(Conflict):
    code = "INVALID_STATE_TRANSITION"

    def __init__(self, *, quote: Quote, from_status: str, to_status: str) -> None:
        super().__init__(
            f"A quote in status {from_status} cannot move to {to_status}",
            quoteId=quote.public_id,
            fromStatus=from_status,
            toStatus=to_status,
        )


@transaction.atomic(savepoint=False)
def quote_transition(quote: Quote, to: str, *, locked: bool = False, **changes: Any) -> Quote:
    """Move the quote to `to` along QUOTE_TRANSITIONS: the one way a quote's status changes.

    Locks the row (unless `locked=True`: the caller holds the row lock of the quote's transaction,
    which guards the quote too; see `transactions.transaction_lock`), is a no-op when
    the quote is already in `to` and raises IllegalQuoteTransition (409) for a move the table does
    not allow. `changes` are other fields written with the move. The instance passed in is updated.
    """
    to = Status(to)
    current = quote if locked else Quote.objects.select_for_update().only("status").get(pk=quote.pk)
    if current.status == to:
        quote.status = to
        return quote
    if to not in QUOTE_TRANSITIONS[current.status]:
        raise IllegalQuoteTransition(quote=quote, from_status=current.status, to_status=to)
    quote.touch()
    quote.status = to
    for name, value in changes.items():
        setattr(quote, name, value)
    plan_update(quote, ["status", "updated_at", *changes])
    return quote
