"""The quote state machine: every allowed move, enforced in one function under a row lock.

PENDING ──execute──▶ PROCESSING ──▶ COMPLETED ──(payout returned)──▶ FAILED
   │                     └────────▶ FAILED
   ├──expiresAt passed──▶ EXPIRED
   ├──funds that do not match (realtime funding)──▶ FAILED
   └──SCA required (payments/sca/)────▶ PENDING_AUTHORIZATION ──last challenge authorized──▶ PROCESSING
                                           │   (realtime funding: back to PENDING, instructions issued)
                                           └──challenge lapsed──▶ FAILED (SCA_NOT_COMPLETED)

A quote follows its transaction: `payments.transactions.transaction_transition` moves both.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from payments.models import Quote, QuoteStatus
from payments.query_plans import plan_update
from payments.state_machines import StateMachine

Status = QuoteStatus

# A quote follows its outgoing transaction, so this one table serves both
# (`payments.transactions.OUTGOING_TRANSITIONS` is built from it).
QUOTE_TRANSITIONS = StateMachine(
    "quote",
    {
        Status.PENDING: {Status.PENDING_AUTHORIZATION, Status.PROCESSING, Status.EXPIRED, Status.FAILED},
        Status.PENDING_AUTHORIZATION: {Status.PENDING, Status.PROCESSING, Status.EXPIRED, Status.FAILED},
        Status.PROCESSING: {Status.COMPLETED, Status.FAILED},
        Status.COMPLETED: {Status.FAILED},
    },
    final=(Status.FAILED, Status.EXPIRED),
    noun="A quote",
    id_detail="quoteId",
)


@transaction.atomic(savepoint=False)
def quote_transition(quote: Quote, to: str, *, locked: bool = False, **changes: Any) -> Quote:
    """Move the quote to `to` along QUOTE_TRANSITIONS: the one way a quote's status changes.

    Locks the row (unless `locked=True`: the caller holds the row lock of the quote's transaction,
    which guards the quote too; see `transactions.transaction_lock`), is a no-op when
    the quote is already in `to` and raises IllegalTransition (409) for a move the table does
    not allow. `changes` are other fields written with the move. The instance passed in is updated.
    """
    QUOTE_TRANSITIONS.move(
        quote, Status(to), locked=locked, lock_only=("status",), changes=changes, write=plan_update
    )
    return quote
