"""The security page's card keys (delegated keys): listed while not revoked, and revoked from there;
a card funded by the wallet is then declined. Test client against a live service."""

from __future__ import annotations

import pytest

from payments.cards import card_create
from payments.cards.issuing import card_funding_source_id
from payments.models import Customer, InternalAccount
from tests.wallets.portal_support import signed_up
from wallets.delegated_keys import delegated_key_active
from wallets.models import DelegatedKey

pytestmark = pytest.mark.django_db(transaction=True)


def _card_key(email: str, status: str = "ACTIVE", nickname: str = "Card payments key") -> DelegatedKey:
    customer = Customer.objects.get(email=email)
    wallet = InternalAccount.objects.get(customer=customer, type="EMBEDDED_WALLET")
    card = card_create(
        platform=customer.platform, cardholder_id=customer.pk, form="VIRTUAL", funding_source_ids=[wallet.pk]
    )
    return DelegatedKey.objects.create(
        platform=customer.platform,
        card=card,
        account=wallet,
        funding_source_id=card_funding_source_id(card.pk, wallet.pk),
        public_key="02" + "ab" * 32,
        nickname=nickname,
        status=status,
    )


def test_card_keys_are_listed_and_revoked_from_the_security_page(portal_platform):
    browser = signed_up("keys@example.com")
    assert (
        'id="card-keys" aria-labelledby="card-keys-title" hidden'
        in browser.get("/security/").content.decode()
    )
    key = _card_key("keys@example.com")
    page = browser.get("/security/").content.decode()
    assert "Card payments key" in page and f"/security/card-keys/{key.public_id}/revoke/" in page
    answer = browser.post(f"/security/card-keys/{key.public_id}/revoke/", {}, htmx=True)
    assert answer.status_code == 200 and "Revoked." in answer.content.decode()
    key.refresh_from_db()
    assert key.status == "REVOKED" and not delegated_key_active(
        card_id=key.card_id, account_id=key.account_id
    )
    assert "Card payments key" not in browser.get("/security/").content.decode()


def test_another_wallets_card_key_is_not_found(portal_platform):
    browser = signed_up("mine@example.com")
    signed_up("theirs@example.com")
    theirs = _card_key("theirs@example.com")
    assert browser.post(f"/security/card-keys/{theirs.public_id}/revoke/", {}).status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == "ACTIVE"
