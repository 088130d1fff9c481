"""Trusted beneficiaries through the API: trust and untrust with an SCA proof, the payments that then
need no per-payment challenge, and the refusals (not in an SCA region, unknown accounts, bad proofs)."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from payments.models import ExternalAccount, ScaChallenge, ScaProfile
from tests.payments.money_support import (
    consenting_customer,
    eur_external,
    funded_account,
    quote_body,
    reference_validator,
    usd_external,
)
from tests.payments.sca_support import (
    EU_ADDRESS,
    PHONE,
    SANDBOX_SCA_CODE,
    enroll_passkey,
    passkey_proof,
    sca_login,
)

pytestmark = pytest.mark.django_db

PATH = "/customers/external-accounts"
START = reference_validator("BeneficiaryTrustStart")
CONFIRM = reference_validator("BeneficiaryTrustConfirm")


@pytest.fixture
def eu(api):
    """A customer in Germany with a phone and an SCA login, a funded USD account and a payee."""
    customer, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    assert sca_login(api, customer).status_code == 200
    return customer, funded_account(customer, 1_000_000), usd_external(api.platform, customer)


def trust(api, payee, action="trust", **proof):
    started = api.post(f"{PATH}/{payee.public_id}/{action}")
    assert started.status_code == 200, started.json()
    START.validate(started.json())
    challenge = started.json().get("scaChallenge")
    body = {"code": SANDBOX_SCA_CODE} if not proof else proof
    if challenge:
        body["challengeId"] = challenge["id"]
    return started.json(), api.post(f"{PATH}/{payee.public_id}/{action}/confirm", body)


def pay(api, source, payee, amount=10_000):
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount))
    assert quote.status_code == 201, quote.json()
    response = api.post(f"/quotes/{quote.json()['id']}/execute")
    assert response.status_code == 200, response.json()
    return response.json()


# --- the happy paths --------------------------------------------------------------------------------


def test_a_trusted_beneficiary_is_paid_without_a_challenge_and_an_untrusted_one_is_not(api, eu):
    customer, source, payee = eu
    assert pay(api, source, payee)["status"] == "PENDING_AUTHORIZATION"  # before: a challenge
    started, confirmed = trust(api, payee)
    assert started["scaChallenge"]["factor"] == "SMS_OTP" and "purpose" not in started["scaChallenge"]
    assert confirmed.status_code == 200, confirmed.json()
    CONFIRM.validate(confirmed.json())
    assert confirmed.json() == {"trusted": True}
    paid = pay(api, source, payee)
    assert paid["status"] in ("PROCESSING", "COMPLETED") and "scaChallenge" not in paid
    other = usd_external(api.platform, customer, account_number="5555555555")
    assert pay(api, source, other)["status"] == "PENDING_AUTHORIZATION"  # trust is per beneficiary
    # a cross-currency payment to a trusted beneficiary needs no challenge either
    euro = eur_external(api.platform, customer)
    trust(api, euro)
    assert pay(api, source, euro)["status"] in ("PROCESSING", "COMPLETED")


def test_untrusting_brings_the_per_payment_challenge_back(api, eu):
    _, source, payee = eu
    trust(api, payee)
    started, confirmed = trust(api, payee, "untrust")
    assert "scaChallenge" in started
    assert confirmed.json() == {"trusted": False}
    assert pay(api, source, payee)["status"] == "PENDING_AUTHORIZATION"


def test_starting_what_is_already_so_issues_no_challenge(api, eu):
    _, _, payee = eu
    started = api.post(f"{PATH}/{payee.public_id}/untrust")
    assert started.status_code == 200 and started.json() == {}
    confirmed = api.post(f"{PATH}/{payee.public_id}/untrust/confirm", {"code": SANDBOX_SCA_CODE})
    assert confirmed.json() == {"trusted": False}
    trust(api, payee)
    assert api.post(f"{PATH}/{payee.public_id}/trust").json() == {}
    assert not ScaChallenge.objects.filter(kind="TRUST", status="PENDING").exists()


def test_a_passkey_confirms_a_trust_bound_to_that_change(api, eu):
    customer, _, _ = eu
    customer.phone_number = ""
    customer.save()
    authenticator = enroll_passkey(api, customer)
    payee = eur_external(api.platform, customer)
    started = api.post(f"{PATH}/{payee.public_id}/trust").json()
    challenge = started["scaChallenge"]
    assert challenge["factor"] == "PASSKEY" and challenge["availableFactors"] == ["PASSKEY"]
    options = challenge["passkeyAssertionOptions"]
    confirmed = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm",
        {"challengeId": challenge["id"], **passkey_proof(authenticator, options)},
    )
    assert confirmed.status_code == 200 and confirmed.json() == {"trusted": True}
    # the WebAuthn challenge of one change is not valid for another
    other = usd_external(api.platform, customer)
    second = api.post(f"{PATH}/{other.public_id}/trust").json()["scaChallenge"]
    replayed = api.post(
        f"{PATH}/{other.public_id}/trust/confirm",
        {"challengeId": second["id"], **passkey_proof(authenticator, options)},
    )
    assert replayed.status_code == 400 and replayed.json()["details"]["reason"] == "PASSKEY_REJECTED"


# --- refusals ---------------------------------------------------------------------------------------


def test_a_wrong_code_is_refused_counted_and_the_right_one_still_works(api, eu):
    _, _, payee = eu
    started = api.post(f"{PATH}/{payee.public_id}/trust").json()["scaChallenge"]
    wrong = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm", {"challengeId": started["id"], "code": "000000"}
    )
    assert wrong.status_code == 400 and wrong.json()["details"]["reason"] == "INVALID_CODE"
    assert ScaProfile.objects.get().failed_attempts == 1
    assert ExternalAccount.objects.get(pk=payee.pk).sca_trusted_at is None
    right = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm", {"challengeId": started["id"], "code": SANDBOX_SCA_CODE}
    )
    assert right.json() == {"trusted": True}
    assert ScaProfile.objects.get().failed_attempts == 0
    # single use: the same code again finds nothing pending
    again = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm", {"challengeId": started["id"], "code": SANDBOX_SCA_CODE}
    )
    assert again.status_code == 400 and again.json()["details"]["reason"] == "NO_CHALLENGE_PENDING"


def test_five_wrong_codes_lock_trust_changes(api, eu):
    _, _, payee = eu
    api.post(f"{PATH}/{payee.public_id}/trust")
    for _ in range(4):
        assert api.post(f"{PATH}/{payee.public_id}/trust/confirm", {"code": "000000"}).status_code == 400
    locked = api.post(f"{PATH}/{payee.public_id}/trust/confirm", {"code": "000000"})
    assert (locked.status_code, locked.json()["code"]) == (423, "ACCOUNT_LOCKED")
    assert api.post(f"{PATH}/{payee.public_id}/trust").status_code == 423


def test_an_expired_or_replaced_challenge_is_refused(api, eu):
    _, _, payee = eu
    first = api.post(f"{PATH}/{payee.public_id}/trust").json()["scaChallenge"]
    second = api.post(f"{PATH}/{payee.public_id}/trust").json()["scaChallenge"]
    stale = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm", {"challengeId": first["id"], "code": SANDBOX_SCA_CODE}
    )
    assert stale.status_code == 400 and stale.json()["details"]["reason"] == "CHALLENGE_MISMATCH"
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    late = api.post(
        f"{PATH}/{payee.public_id}/trust/confirm", {"challengeId": second["id"], "code": SANDBOX_SCA_CODE}
    )
    assert late.status_code == 400 and late.json()["details"]["reason"] == "CHALLENGE_EXPIRED"
    assert ExternalAccount.objects.get(pk=payee.pk).sca_trusted_at is None


def test_outside_an_sca_region_every_trust_endpoint_answers_409(api):
    customer, _ = consenting_customer(api.platform, phone_number=PHONE)  # lives in GB
    payee = usd_external(api.platform, customer)
    platform_payee = usd_external(api.platform, None, account_number="1234567890")
    for account in (payee, platform_payee):
        for action in ("trust", "untrust"):
            started = api.post(f"{PATH}/{account.public_id}/{action}")
            assert (started.status_code, started.json()["code"]) == (409, "CONFLICT")
            confirmed = api.post(f"{PATH}/{account.public_id}/{action}/confirm", {"code": SANDBOX_SCA_CODE})
            assert confirmed.status_code == 409
            assert api.post(f"{PATH}/{account.public_id}/{action}/confirm", {}).status_code == 409
    assert not ScaChallenge.objects.exists()


def test_unknown_and_other_platforms_accounts_are_404(api, other_api, eu):
    _, _, payee = eu
    for action, body in (("trust", None), ("trust/confirm", {"code": SANDBOX_SCA_CODE})):
        assert other_api.post(f"{PATH}/{payee.public_id}/{action}", body).status_code == 404
        unknown = f"{PATH}/ExternalAccount:00000000-0000-7000-8000-000000000000/{action}"
        assert api.post(unknown, body).status_code == 404
        assert api.post(f"{PATH}/not-an-id/{action}", body).status_code == 404
    assert other_api.post(f"{PATH}/{payee.public_id}/trust/confirm", {}).status_code == 404  # 404 before 400


def test_bad_proofs_are_400_with_every_field(api, eu):
    _, _, payee = eu
    api.post(f"{PATH}/{payee.public_id}/trust")
    for body in (
        {},
        {"code": "12"},
        {"code": SANDBOX_SCA_CODE, "passkeyAssertion": {"id": "x"}},
        {"passkeyAssertion": {"id": "x"}},
        {"code": 123456},
        {"code": SANDBOX_SCA_CODE, "challengeId": 5},
    ):
        response = api.post(f"{PATH}/{payee.public_id}/trust/confirm", body)
        assert response.status_code == 400 and response.json()["code"] == "INVALID_INPUT", body
        assert response.json()["details"]["errors"], body
    assert ScaProfile.objects.get().failed_attempts == 0  # malformed input is not a wrong proof
    assert ExternalAccount.objects.get(pk=payee.pk).sca_trusted_at is None


def test_a_trusted_beneficiary_cannot_be_deleted_until_untrusted(api, eu):
    _, _, payee = eu
    trust(api, payee)
    refused = api.delete(f"{PATH}/{payee.public_id}")
    assert (refused.status_code, refused.json()["code"]) == (409, "BENEFICIARY_TRUSTED")
    assert api.get(f"{PATH}/{payee.public_id}").json()["status"] == "ACTIVE"
    trust(api, payee, "untrust")
    assert api.delete(f"{PATH}/{payee.public_id}").status_code == 204


def test_trust_is_the_customers_own_a_payment_by_another_customer_still_needs_a_challenge(api, eu):
    _, _, payee = eu
    trust(api, payee)
    other, _ = consenting_customer(
        api.platform, address=EU_ADDRESS, phone_number=PHONE, full_name="Other Person"
    )
    assert sca_login(api, other).status_code == 200
    source = funded_account(other, 100_000)
    assert pay(api, source, payee)["status"] == "PENDING_AUTHORIZATION"
