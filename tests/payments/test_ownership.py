"""Ownership verification of self-custody wallets through the API: challenge, verify (real wallet
signatures), the sandbox's LIVENESS page, the account's status and its webhooks, and what a wallet
still pending verification may be used for."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import override_settings

from payments import clock
from payments.models import ExternalAccount, ExternalAccountStatusChange, OwnershipChallenge, WebhookEvent
from tests.payments.money_support import consenting_customer, funded_account, quote_body, reference_validator
from tests.payments.wallet_signing import WALLET_TYPES, wallet

pytestmark = pytest.mark.django_db

PATH = "/customers/external-accounts"
PLATFORM_PATH = "/platform/external-accounts"
STATUS_UPDATED = "EXTERNAL_ACCOUNT.STATUS_UPDATED"
CHALLENGE = reference_validator("OwnershipChallenge")
ACCOUNT = reference_validator("ExternalAccount")


@pytest.fixture
def customer(api):
    return consenting_customer(api.platform)[0]


def create_wallet(api, customer, signer, *, ownership="FIRST_PARTY", path=PATH):
    body = {"currency": signer.currency, "accountInfo": signer.account_info()}
    if ownership:
        body["ownershipType"] = ownership
    if customer is not None:
        body["customerId"] = customer.public_id
    response = api.post(path, body)
    assert response.status_code == 201, response.json()
    return response.json()


def challenge(api, account, method="WALLET_SIGNATURE", path=PATH, status=201):
    response = api.post(f"{path}/{account['id']}/challenge", {"method": method})
    assert response.status_code == status, response.json()
    return response.json()


def verify(api, account, signature, path=PATH):
    return api.post(f"{path}/{account['id']}/verify", {"signature": signature})


def statuses(account) -> list[str]:
    """The statuses the account's STATUS_UPDATED webhooks announced, in order."""
    events = WebhookEvent.objects.filter(type=STATUS_UPDATED).order_by("created_at", "id")
    return [e.payload["data"]["status"] for e in events if e.payload["data"]["id"] == account["id"]]


# --- the happy paths --------------------------------------------------------------------------------


@pytest.mark.parametrize("network", sorted(WALLET_TYPES))
def test_a_wallet_signature_of_the_message_makes_the_account_active(api, customer, network):
    signer = wallet(network)
    account = create_wallet(api, customer, signer)
    assert account["status"] == "PENDING_OWNERSHIP_VERIFICATION"
    issued = challenge(api, account)
    CHALLENGE.validate(issued)
    assert issued["method"] == "WALLET_SIGNATURE" and signer.address in issued["messageToSign"]
    response = verify(api, account, signer.sign(issued["messageToSign"]))
    assert response.status_code == 200, response.json()
    ACCOUNT.validate(response.json())
    assert response.json()["status"] == "ACTIVE"
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "ACTIVE"
    assert statuses(account) == ["ACTIVE"]
    change = ExternalAccountStatusChange.objects.get(account_id=account["id"].split(":")[1])
    assert (change.from_status, change.to_status) == ("PENDING_OWNERSHIP_VERIFICATION", "ACTIVE")


def test_the_platform_twins_verify_the_platforms_own_wallets(api, customer):
    signer = wallet("SOLANA")
    own = create_wallet(api, None, signer, path=PLATFORM_PATH)
    issued = challenge(api, own, path=PLATFORM_PATH)
    response = verify(api, own, signer.sign(issued["messageToSign"]), path=PLATFORM_PATH)
    assert response.status_code == 200 and response.json()["status"] == "ACTIVE"
    customers = create_wallet(api, customer, wallet("SOLANA", seed=2))
    for action in ("challenge", "verify"):  # a customer's account is not the platform's
        response = api.post(f"{PLATFORM_PATH}/{customers['id']}/{action}", {"method": "WALLET_SIGNATURE"})
        assert response.status_code == 404


# --- failures and retries ---------------------------------------------------------------------------


def test_a_wrong_signature_leaves_the_account_unverified_until_a_new_challenge_succeeds(api, customer):
    signer = wallet("ETHEREUM")
    account = create_wallet(api, customer, signer)
    issued = challenge(api, account)
    response = verify(api, account, wallet("ETHEREUM", seed=2).sign(issued["messageToSign"]))
    assert response.status_code == 400
    assert response.json()["details"]["reason"] == "INVALID_SIGNATURE"
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "UNVERIFIED"
    # the challenge is spent: even the right signature needs a new one
    again = verify(api, account, signer.sign(issued["messageToSign"]))
    assert (again.status_code, again.json()["code"]) == (409, "CONFLICT")
    retry = challenge(api, account)
    assert retry["messageToSign"] != issued["messageToSign"]
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "PENDING_OWNERSHIP_VERIFICATION"
    assert verify(api, account, signer.sign(retry["messageToSign"])).json()["status"] == "ACTIVE"
    assert statuses(account) == ["UNVERIFIED", "PENDING_OWNERSHIP_VERIFICATION", "ACTIVE"]


def test_a_new_challenge_replaces_the_one_in_flight(api, customer):
    signer = wallet("TRON")
    account = create_wallet(api, customer, signer)
    first = challenge(api, account)
    second = challenge(api, account)
    assert verify(api, account, signer.sign(first["messageToSign"])).status_code == 400  # old message
    assert OwnershipChallenge.objects.filter(status="PENDING").count() == 0
    statuses_seen = list(OwnershipChallenge.objects.order_by("created_at").values_list("status", flat=True))
    assert statuses_seen == ["CANCELLED", "FAILED"]
    assert second["messageToSign"] != first["messageToSign"]


def test_a_signature_after_expires_at_is_refused_and_counts_as_a_failure(api, customer):
    signer = wallet("POLYGON")
    account = create_wallet(api, customer, signer)
    issued = challenge(api, account)
    expires = dt.datetime.fromisoformat(issued["expiresAt"].replace("Z", "+00:00"))
    assert dt.timedelta(minutes=14) < expires - clock.now() <= dt.timedelta(minutes=15)
    clock.advance(dt.timedelta(minutes=15, seconds=1))
    response = verify(api, account, signer.sign(issued["messageToSign"]))
    assert (response.status_code, response.json()["details"]["reason"]) == (400, "CHALLENGE_EXPIRED")
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "UNVERIFIED"


def test_the_sandbox_signature_works_in_the_sandbox_only(api, customer):
    account = create_wallet(api, customer, wallet("BASE"))
    challenge(api, account)
    assert verify(api, account, "sandbox-valid-signature").json()["status"] == "ACTIVE"
    other = create_wallet(api, customer, wallet("BASE", seed=2))
    challenge(api, other)
    with override_settings(SANDBOX=False, PRODUCTION=True):
        assert verify(api, other, "sandbox-valid-signature").status_code == 400
        response = api.post(f"{PATH}/{other['id']}/challenge", {"method": "LIVENESS"})
        assert (response.status_code, response.json()["code"]) == (501, "NOT_IMPLEMENTED")


# --- LIVENESS --------------------------------------------------------------------------------------


def _page_path(issued) -> str:
    return re.sub(r"^https?://[^/]+", "", issued["verificationLink"])


def test_liveness_completes_on_the_hosted_page(api, customer, client):
    account = create_wallet(api, customer, wallet("SPARK"))
    issued = challenge(api, account, "LIVENESS")
    CHALLENGE.validate(issued)
    assert issued["verificationLink"].startswith("http://testserver/onboarding/wallet/")
    # a LIVENESS challenge is not answered with a signature
    response = verify(api, account, "sandbox-valid-signature")
    assert response.status_code == 409 and "LIVENESS" in response.json()["message"]
    page = client.get(_page_path(issued))
    assert page.status_code == 200 and wallet("SPARK").address in page.content.decode()
    assert page["Cache-Control"].startswith("private") or "no-store" in page["Cache-Control"]
    done = client.post(_page_path(issued), {"outcome": "pass"})
    assert "Your wallet is verified" in done.content.decode()
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "ACTIVE"
    assert statuses(account) == ["ACTIVE"]
    assert client.get(_page_path(issued)).status_code == 410  # used
    assert client.get("/onboarding/wallet/not-a-real-token-at-all/").status_code == 404


def test_a_failed_liveness_check_leaves_the_account_unverified(api, customer, client):
    account = create_wallet(api, customer, wallet("ETHEREUM"))
    issued = challenge(api, account, "LIVENESS")
    client.post(_page_path(issued), {"outcome": "fail"})
    assert api.get(f"{PATH}/{account['id']}").json()["status"] == "UNVERIFIED"
    replaced = challenge(api, account, "LIVENESS")
    assert client.get(_page_path(issued)).status_code == 410  # replaced
    assert client.get(_page_path(replaced)).status_code == 200


# --- who may verify, and bad input -------------------------------------------------------------------


def test_verification_applies_only_to_first_party_self_custody_wallets_not_yet_verified(api, customer):
    third_party = create_wallet(api, customer, wallet("ETHEREUM"), ownership="THIRD_PARTY")
    custodial_signer = wallet("ETHEREUM", seed=3)
    custodial = api.post(
        PATH,
        {
            "customerId": customer.public_id,
            "currency": "USDC",
            "ownershipType": "FIRST_PARTY",
            "accountInfo": {**custodial_signer.account_info(), "vaspName": "Coinbase"},
        },
    ).json()
    bank = api.post(
        PATH,
        {
            "customerId": customer.public_id,
            "currency": "USD",
            "accountInfo": {
                "accountType": "USD_ACCOUNT",
                "accountNumber": "12345678901",
                "routingNumber": "021000021",
                "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "John Doe"},
            },
        },
    ).json()
    for account in (third_party, custodial, bank):
        assert account["status"] == "ACTIVE"
        response = api.post(f"{PATH}/{account['id']}/challenge", {"method": "WALLET_SIGNATURE"})
        assert (response.status_code, response.json()["code"]) == (409, "CONFLICT"), account
    verified = create_wallet(api, customer, wallet("SOLANA"))
    challenge(api, verified)
    verify(api, verified, "sandbox-valid-signature")
    response = api.post(f"{PATH}/{verified['id']}/challenge", {"method": "WALLET_SIGNATURE"})
    assert response.status_code == 409 and "already verified" in response.json()["message"]
    nothing_outstanding = create_wallet(api, customer, wallet("SOLANA", seed=2))
    assert verify(api, nothing_outstanding, "sandbox-valid-signature").status_code == 409
    assert (
        not WebhookEvent.objects.filter(type=STATUS_UPDATED).exclude(body__contains=verified["id"]).exists()
    )


def test_unknown_deleted_and_other_platforms_accounts_are_404(api, other_api, customer):
    account = create_wallet(api, customer, wallet("ETHEREUM"))
    for action, body in (("challenge", {"method": "WALLET_SIGNATURE"}), ("verify", {"signature": "x"})):
        assert other_api.post(f"{PATH}/{account['id']}/{action}", body).status_code == 404
        unknown = f"{PATH}/ExternalAccount:00000000-0000-7000-8000-000000000000/{action}"
        assert api.post(unknown, body).json()["code"] == "NOT_FOUND"
        assert (
            api.post(f"{PATH}/Quote:00000000-0000-7000-8000-000000000000/{action}", body).status_code == 404
        )
    assert api.delete(f"{PATH}/{account['id']}").status_code == 204
    assert api.post(f"{PATH}/{account['id']}/challenge", {"method": "WALLET_SIGNATURE"}).status_code == 404


def test_bad_input_is_400_and_changes_nothing(api, customer):
    account = create_wallet(api, customer, wallet("ETHEREUM"))
    for body in ({}, {"method": "SELFIE"}, {"method": 1}):
        response = api.post(f"{PATH}/{account['id']}/challenge", body)
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "method"
    challenge(api, account)
    for body in (
        {},
        {"signature": 12},
        {"signature": "x" * 1025},
        {"signature": "x", "signatureScheme": "p2pkh"},
    ):
        response = api.post(f"{PATH}/{account['id']}/verify", body)
        assert response.status_code == 400 and "errors" in response.json()["details"], body
    assert ExternalAccount.objects.get().status == "PENDING_OWNERSHIP_VERIFICATION"
    assert OwnershipChallenge.objects.get().status == "PENDING"


# --- transfers while ownership is pending -------------------------------------------------------------


def test_a_wallet_pending_verification_takes_small_transfers_only(api, customer):
    signer = wallet("ETHEREUM")
    account = create_wallet(api, customer, signer)
    source = funded_account(customer, 10_000_000)
    small = api.post("/quotes", quote_body(source.public_id, account["id"], 10_000))  # USD 100
    assert small.status_code == 201, small.json()
    large = api.post("/quotes", quote_body(source.public_id, account["id"], 200_000))  # USD 2,000
    assert large.status_code == 400
    assert large.json()["code"] == "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED"
    assert large.json()["details"]["field"] == "destination.accountId"
    issued = challenge(api, account)
    assert verify(api, account, signer.sign(issued["messageToSign"])).status_code == 200
    assert api.post("/quotes", quote_body(source.public_id, account["id"], 200_000)).status_code == 201


def test_an_unverified_wallet_takes_no_transfer_even_from_an_earlier_quote(api, customer):
    account = create_wallet(api, customer, wallet("ETHEREUM"))
    source = funded_account(customer, 10_000_000)
    quote = api.post("/quotes", quote_body(source.public_id, account["id"], 10_000)).json()
    challenge(api, account)
    assert verify(api, account, "0x" + "00" * 65).status_code == 400
    refused = api.post(f"/quotes/{quote['id']}/execute")
    assert (refused.status_code, refused.json()["code"]) == (400, "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
    new = api.post("/quotes", quote_body(source.public_id, account["id"], 10_000))
    assert new.status_code == 400 and "UNVERIFIED" in new.json()["details"]["errors"][0]["message"]
