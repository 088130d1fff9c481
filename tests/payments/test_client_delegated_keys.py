"""The Python client's delegated keys: the three legs in one call, list, get, revoke, against a
running service."""

from __future__ import annotations

import pytest

from payments.client import BadRequest, Conflict, DelegatedKey
from tests.payments.test_client import client, credentials, individual, no_broker, otp_login  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_delegated_keys_through_the_client(client):  # noqa: F811
    customer = individual(client)
    (wallet,) = client.internal_accounts.list(customer_id=customer.id, type="EMBEDDED_WALLET").data
    card = client.cards.create(cardholder_id=customer.id, funding_sources=[wallet.id])
    _session, signer = otp_login(client, wallet.id)
    key = client.delegated_keys.create(card.id, wallet.id, "Card payments key", signer)
    assert isinstance(key, DelegatedKey) and key.status == "ACTIVE" and key.card_id == card.id
    assert [k.id for k in client.delegated_keys.list(account_id=wallet.id)] == [key.id]
    assert client.delegated_keys.list(funding_source_id=key.funding_source_id)[0].public_key == key.public_key
    with pytest.raises(Conflict):
        client.delegated_keys.create(card.id, wallet.id, "Another", signer)
    client.delegated_keys.revoke(key.id)
    assert client.delegated_keys.get(key.id).status == "REVOKED"
    with pytest.raises(BadRequest):
        client.delegated_keys.revoke(key.id)
