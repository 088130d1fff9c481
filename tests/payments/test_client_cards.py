"""The Python client's cards: issue, list, freeze, limit, reveal, close, and the card simulators,
against a running service."""

from __future__ import annotations

import httpx
import pytest

from payments.client import BadRequest, Card, Conflict
from tests.payments.test_client import client, credentials, individual, no_broker  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_cards_through_the_client(client):  # noqa: F811
    customer = individual(client)
    (usd,) = client.internal_accounts.list(customer_id=customer.id, type="INTERNAL_FIAT", currency="USD").data
    client.sandbox.fund(usd.id, 10_000)
    card = client.cards.create(
        cardholder_id=customer.id, funding_sources=[usd.id], max_spend_per_transaction=5_000
    )
    assert isinstance(card, Card) and card.state == "ACTIVE" and len(card.last4) == 4
    with pytest.raises(BadRequest) as no_static_3ds:  # a USD card's program has no static password
        client.cards.create(cardholder_id=customer.id, funding_sources=[usd.id], three_d_secure_password="x1")
    assert no_static_3ds.value.code == "INVALID_INPUT"
    assert card.funding_sources == [usd.id] and card.max_spend_per_transaction == 5_000
    assert [c.id for c in client.cards.iterate(cardholder_id=customer.id)] == [card.id]
    assert client.cards.update(card.id, max_spend_per_transaction=None).max_spend_per_transaction is None
    assert client.cards.update(card.id, state="FROZEN").state == "FROZEN"
    assert client.cards.update(card.id, state="ACTIVE").state == "ACTIVE"

    reveal = client.cards.reveal(card.id)
    page = httpx.get(reveal.pan_embed_url)
    assert page.status_code == 200 and card.last4 in page.text.replace(" ", "")

    merchant = {"descriptor": "BLUE BOTTLE COFFEE SF"}
    token = client.sandbox.simulate_card(
        card.id, "authorization", amount=1_250, currency={"code": "USD"}, merchant=merchant
    )
    (txn,) = client.transactions.list(type="CARD").data
    # as the reference has a sandbox find it: in the list of all transactions
    (listed,) = [t for t in client.transactions.list(customer_id=customer.id).data if t.type == "CARD"]
    assert listed.id == txn.id and listed.merchant["descriptor"] == "BLUE BOTTLE COFFEE SF"
    assert listed.authorized_amount.amount == 1_250
    held = client.cards.transaction(txn.id)
    assert held.status == "AUTHORIZED" and held.issuer_transaction_token == token
    (account,) = client.internal_accounts.list(
        customer_id=customer.id, type="INTERNAL_FIAT", currency="USD"
    ).data
    assert (account.balance.amount, account.total_balance.amount) == (8_750, 10_000)
    client.sandbox.simulate_card(card.id, "clearing", card_transaction_id=txn.id, amount=1_250)
    assert client.cards.transaction(txn.id).status == "SETTLED"
    with pytest.raises(BadRequest):
        client.sandbox.simulate_card(card.id, "clearing", card_transaction_id=txn.id, amount=1)

    assert client.cards.update(card.id, state="CLOSED").state == "CLOSED"
    with pytest.raises(Conflict) as closed:
        client.cards.update(card.id, state="ACTIVE")
    assert closed.value.code == "CARD_NOT_MUTABLE"
