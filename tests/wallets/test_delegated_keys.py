"""Delegated keys (POST/GET/DELETE /auth/delegated-keys): the three-leg signed-retry creation, its
refusals, listing, revocation, and what they mean for card authorizations funded by the wallet."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock, secret_box
from payments.client import wallet_crypto as client
from payments.models import CardTransaction
from tests.payments.card_support import authorize, issue
from tests.payments.money_support import consenting_customer, fund
from tests.wallets.conftest import Wallet
from wallets.crypto import private_key_from_bytes, public_key_hex
from wallets.delegated_keys import SEAL_PURPOSE
from wallets.models import DelegatedKey

pytestmark = pytest.mark.django_db
PATH = "/auth/delegated-keys"


def card_wallet(api) -> tuple[Wallet, dict, object]:
    """A customer's Global Account bound to a new card, funded, and a session key of that wallet."""
    customer, account = consenting_customer(api.platform)
    fund(account, 100_000)
    wallet = Wallet(api=api, customer=customer, account=account)
    card = issue(api, customer, account)
    tek, _session = wallet.otp_login()
    return wallet, card, tek


def approved(api, card: dict) -> bool:
    """Whether an authorization of 5.00 USDC on the card was approved (a card transaction holds it)."""
    answer = authorize(api, card, 500, currency="USDC")
    assert answer.status_code == 202, answer.content
    token = answer.json()["issuerTransactionToken"]
    return CardTransaction.objects.filter(issuer_transaction_token=token).exists()


def body_for(wallet: Wallet, card: dict, nickname: str = "Card payments key") -> dict:
    return {"cardId": card["id"], "internalAccountId": wallet.account_id, "nickname": nickname}


def two_legs(wallet: Wallet, body: dict, key_hex: str):
    """Legs 1 and 2: returns the second 202's challenge."""
    second = wallet.signed("post", PATH, body, key_hex)
    assert second.status_code == 202, second.content
    return second.json()


def create(wallet: Wallet, body: dict, key_hex: str):
    return wallet.signed_retry("post", PATH, body, two_legs(wallet, body, key_hex), key_hex)


def test_three_legs_create_an_active_key_whose_private_half_stays_sealed(api, caplog):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    first = api.post(PATH, body)
    assert first.status_code == 202
    assert set(first.json()) == {"payloadToSign", "requestId", "expiresAt"}
    assert api.get(PATH, {"accountId": wallet.account_id}).json()["data"] == []  # nothing consented yet
    second = wallet.signed_retry("post", PATH, body, first.json(), tek.private_key_hex)
    assert second.status_code == 202, second.content
    assert second.json()["requestId"] != first.json()["requestId"]
    [pending] = api.get(PATH, {"accountId": wallet.account_id}).json()["data"]
    assert pending["status"] == "PENDING"
    third = wallet.signed_retry("post", PATH, body, second.json(), tek.private_key_hex)
    assert third.status_code == 201, third.content
    key = third.json()
    assert set(key) == {
        "id",
        "cardId",
        "fundingSourceId",
        "accountId",
        "publicKey",
        "nickname",
        "status",
        "createdAt",
        "updatedAt",
    }
    assert (key["status"], key["cardId"], key["accountId"], key["id"]) == (
        "ACTIVE",
        card["id"],
        wallet.account_id,
        pending["id"],
    )
    assert key["fundingSourceId"].startswith("CardFundingSource:")
    assert len(key["publicKey"]) == 66 and key["publicKey"][:2] in ("02", "03")
    assert api.get(f"{PATH}/{key['id']}").json() == key
    # the sealed private key is the public key's other half, and appears in no answer or log line
    row = DelegatedKey.objects.get()
    private = secret_box.unseal(row.private_key_sealed, purpose=SEAL_PURPOSE)
    assert public_key_hex(private_key_from_bytes(private)) == key["publicKey"]
    assert private.hex() not in third.content.decode() + caplog.text
    # the Request-Ids are spent
    again = wallet.signed_retry("post", PATH, body, second.json(), tek.private_key_hex)
    assert again.status_code == 401


def test_missing_wrong_and_foreign_stamps_are_refused_and_change_nothing(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    challenge = api.post(PATH, body).json()
    missing = api.post(PATH, body, HTTP_REQUEST_ID=challenge["requestId"])
    assert (missing.status_code, missing.json()["code"]) == (401, "WALLET_SIGNATURE_MISSING")
    stranger = client.generate_key_pair()
    wrong = wallet.signed_retry("post", PATH, body, challenge, stranger.private_key_hex)
    assert (wrong.status_code, wrong.json()["code"]) == (401, "WALLET_SIGNATURE_INVALID")
    # a verified session of another customer's wallet on the same platform
    _other, _card, other_tek = card_wallet(api)
    foreign = wallet.signed_retry("post", PATH, body, challenge, other_tek.private_key_hex)
    assert (foreign.status_code, foreign.json()["code"]) == (401, "WALLET_SIGNATURE_INVALID")
    changed = wallet.signed_retry("post", PATH, {**body, "nickname": "other"}, challenge, tek.private_key_hex)
    assert (changed.status_code, changed.json()["code"]) == (401, "WALLET_SIGNATURE_BODY_MISMATCH")
    assert api.get(PATH, {"accountId": wallet.account_id}).json()["data"] == []
    # the same challenge still completes when stamped properly
    assert wallet.signed_retry("post", PATH, body, challenge, tek.private_key_hex).status_code == 202


def test_the_body_must_stay_the_same_on_the_third_leg(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    second = two_legs(wallet, body, tek.private_key_hex)
    changed = wallet.signed_retry("post", PATH, {**body, "nickname": "x"}, second, tek.private_key_hex)
    assert (changed.status_code, changed.json()["code"]) == (401, "WALLET_SIGNATURE_BODY_MISMATCH")
    assert wallet.signed_retry("post", PATH, body, second, tek.private_key_hex).status_code == 201


def test_abandoned_flow_stays_pending_and_blocks_nothing_but_a_second_active_key_is_409(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    two_legs(wallet, body, tek.private_key_hex)  # abandoned after the second leg
    created = create(wallet, body, tek.private_key_hex)
    assert created.status_code == 201, created.content
    statuses = sorted(k["status"] for k in api.get(PATH, {"accountId": wallet.account_id}).json()["data"])
    assert statuses == ["ACTIVE", "PENDING"]
    refused = api.post(PATH, body)  # checked on the first leg ...
    assert (refused.status_code, refused.json()["code"]) == (409, "CONFLICT")
    assert DelegatedKey.objects.filter(status="ACTIVE").count() == 1


def test_a_flow_racing_past_the_first_leg_gets_409_on_activation(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    late = two_legs(wallet, body, tek.private_key_hex)
    assert create(wallet, body, tek.private_key_hex).status_code == 201
    refused = wallet.signed_retry("post", PATH, body, late, tek.private_key_hex)  # ... and on the last
    assert (refused.status_code, refused.json()["code"]) == (409, "CONFLICT")
    assert DelegatedKey.objects.filter(status="ACTIVE").count() == 1


def test_revoke_then_a_card_authorization_on_that_source_is_declined(api):
    wallet, card, tek = card_wallet(api)
    # no delegated key yet: the wallet cannot fund the card
    assert not approved(api, card)
    key = create(wallet, body_for(wallet, card), tek.private_key_hex).json()
    assert approved(api, card)
    assert api.delete(f"{PATH}/{key['id']}").status_code == 204
    assert api.get(f"{PATH}/{key['id']}").json()["status"] == "REVOKED"
    assert DelegatedKey.objects.get().private_key_sealed == ""
    assert not approved(api, card)
    again = api.delete(f"{PATH}/{key['id']}")
    assert again.status_code == 400
    # a new key may be created once the old one is revoked
    assert create(wallet, body_for(wallet, card), tek.private_key_hex).status_code == 201


def test_list_filters_and_another_platforms_keys_are_not_found(api, other_api):
    wallet, card, tek = card_wallet(api)
    key = create(wallet, body_for(wallet, card), tek.private_key_hex).json()
    other_wallet, other_card, other_tek = card_wallet(api)
    create(other_wallet, body_for(other_wallet, other_card), other_tek.private_key_hex)

    def listed(**query):
        response = api.get(PATH, query)
        assert response.status_code == 200, response.content
        return [k["id"] for k in response.json()["data"]]

    assert listed(accountId=wallet.account_id) == [key["id"]]
    assert listed(fundingSourceId=key["fundingSourceId"]) == [key["id"]]
    assert listed(accountId=wallet.account_id, fundingSourceId=key["fundingSourceId"]) == [key["id"]]
    assert listed(accountId=other_wallet.account_id, fundingSourceId=key["fundingSourceId"]) == []
    assert api.get(PATH).status_code == 400
    assert api.get(PATH, {"accountId": "nope"}).status_code == 400
    # another platform sees none of it
    assert other_api.get(f"{PATH}/{key['id']}").status_code == 404
    assert other_api.delete(f"{PATH}/{key['id']}").status_code == 404
    assert other_api.get(PATH, {"accountId": wallet.account_id}).json()["data"] == []
    assert other_api.post(PATH, body_for(wallet, card)).status_code == 404
    assert api.get(f"{PATH}/DelegatedKey:019542f5-b3e7-1d02-0000-000000000021").status_code == 404


def test_create_refusals(api):
    wallet, card, _tek = card_wallet(api)
    _other, other_card, _ = card_wallet(api)
    # the wallet is not bound to that card
    assert api.post(PATH, body_for(wallet, other_card)).status_code == 404
    assert (
        api.post(
            PATH, {**body_for(wallet, card), "cardId": "Card:019542f5-b3e7-1d02-0000-000000000010"}
        ).status_code
        == 404
    )
    for bad in ({"nickname": ""}, {"nickname": "x" * 257}, {"cardId": "nope"}, {"internalAccountId": 7}):
        answer = api.post(PATH, {**body_for(wallet, card), **bad})
        assert (answer.status_code, answer.json()["code"]) == (400, "INVALID_INPUT"), bad
    assert not DelegatedKey.objects.exists()


def test_a_slow_wallet_settles_each_leg_and_a_list_read_collects_the_pending_key(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    slow = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}
    first = api.post(PATH, body).json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(first["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": first["requestId"],
    }
    processing = api.post(PATH, body, **headers, **slow)
    assert (processing.status_code, processing.json()["status"]) == (200, "PROCESSING")
    assert api.get(PATH, {"accountId": wallet.account_id}).json()["data"] == []
    clock.advance(dt.timedelta(seconds=6))
    [pending] = api.get(PATH, {"accountId": wallet.account_id}).json()["data"]  # the read settled it
    assert pending["status"] == "PENDING"
    second = api.post(PATH, body, **headers)  # the identical re-send collects the second challenge
    assert second.status_code == 202, second.content
    third = wallet.signed_retry("post", PATH, body, second.json(), tek.private_key_hex)
    assert (third.status_code, third.json()["status"]) == (201, "ACTIVE")
