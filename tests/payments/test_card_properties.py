"""Property: whatever sequence of card simulator events arrives, the ledger sums to zero per currency,
the holds reconcile with the card transactions, no available balance goes negative, and the account's
balance is what was funded, less what settled, plus what came back."""

from __future__ import annotations

import pytest
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.cards import card_create
from payments.cards.authorizations import (
    card_authorization_advice,
    card_authorize,
    card_clear,
    card_hold_mismatches,
    card_return,
    card_return_reversal,
)
from payments.errors import BadRequest, InsufficientFunds
from payments.ledger import ledger_balance_mismatches, ledger_balances, ledger_currency_totals
from payments.models import CardTransaction
from tests import factories
from tests.payments.money_support import consenting_customer, funded_account

pytestmark = [pytest.mark.django_db, pytest.mark.long]

FUNDED = 5_000

steps = st.lists(
    st.tuples(
        st.sampled_from(
            ["authorize", "credit", "financial", "clear", "advice", "return", "reverse", "freeze"]
        ),
        st.integers(min_value=0, max_value=3_000),
        st.integers(min_value=0, max_value=5),
    ),
    max_size=25,
)


def _apply(platform, card, step) -> None:
    what, amount, pick = step
    txns = list(CardTransaction.objects.filter(card=card).order_by("pk"))
    txn = txns[pick % len(txns)] if txns else None
    where = {"platform": platform, "card_id": card.pk}
    merchant = {"descriptor": "SHOP"}
    if what in ("authorize", "credit", "financial"):
        if amount:
            card_authorize(
                **where,
                amount=amount,
                currency="USD",
                merchant=merchant,
                direction="CREDIT" if what == "credit" else "DEBIT",
                single_message=what == "financial",
            )
    elif what == "freeze":
        card.status = "FROZEN" if card.status == "ACTIVE" else "ACTIVE"
        card.save(update_fields=["status"])
    elif txn is not None:
        ref = {**where, "card_transaction_id": txn.pk}
        if what == "clear":
            card_clear(**ref, amount=amount)
        elif what == "advice" and amount:
            card_authorization_advice(**ref, amount=amount)
        elif what == "return" and amount:
            card_return(**ref, amount=amount)
        elif what == "reverse":
            card_return_reversal(**ref)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_any_sequence_of_card_events_keeps_the_books(db, steps):
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform)
    account = funded_account(customer, FUNDED)
    card = card_create(
        platform=platform, cardholder_id=customer.pk, form="VIRTUAL", funding_source_ids=[account.pk]
    )
    for step in steps:
        try:
            _apply(platform, card, step)
        except (BadRequest, InsufficientFunds):
            pass  # refused: nothing moved (checked below)
        balance, held = ledger_balances(account)
        assert 0 <= held <= balance
        assert card_hold_mismatches() == []
        assert all(total == 0 for total in ledger_currency_totals().values())
        assert ledger_balance_mismatches() == []
        rows = CardTransaction.objects.filter(card=card)
        debits = rows.filter(direction="DEBIT").aggregate(s=Sum("settled_amount"), r=Sum("refunded_amount"))
        credits = rows.filter(direction="CREDIT").aggregate(s=Sum("settled_amount"))["s"] or 0
        assert balance == FUNDED - (debits["s"] or 0) + (debits["r"] or 0) + credits
