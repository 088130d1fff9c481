"""Strong Customer Authentication through the API: who needs it, SCA login, factors, and quotes held
at PENDING_AUTHORIZATION until every challenge of their sequence is authorized."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from payments.accounts import account_balance
from payments.models import Quote, ScaChallenge, Transaction, WebhookEvent
from tests import factories
from tests.payments.money_support import (
    consenting_customer,
    eur_external,
    funded_account,
    key,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)
from tests.payments.sca_support import (
    EU_ADDRESS,
    IP,
    ORIGIN,
    PHONE,
    SANDBOX_SCA_CODE,
    enroll_passkey,
    passkey_proof,
    sca_login,
    sca_path,
)

pytestmark = pytest.mark.django_db

QUOTE = reference_validator("Quote")
CHALLENGE = reference_validator("ScaChallenge")


@pytest.fixture
def eu(api):
    """An approved, consenting customer living in Germany with a phone, and a funded USD account."""
    customer, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    return customer, funded_account(customer, 1_000_000)


@pytest.fixture
def logged_in(api, eu):
    customer, source = eu
    response = sca_login(api, customer)
    assert response.status_code == 200, response.json()
    return customer, source


def _held(api, source, payee, amount=10_000, **headers):
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount))
    assert quote.status_code == 201, quote.json()
    response = api.post(f"/quotes/{quote.json()['id']}/execute", **headers)
    assert response.status_code == 200, response.json()
    return response.json()


def _authorize(api, quote, **proof):
    return api.post(f"/quotes/{quote['id']}/authorize", proof or {"code": SANDBOX_SCA_CODE})


def _transaction(quote) -> Transaction:
    return Transaction.objects.get(pk=quote["transactionId"].split(":", 1)[1])


# --- who is in an SCA region --------------------------------------------------------------------------


def test_outside_the_eea_there_is_no_challenge_and_every_sca_endpoint_answers_409(api):
    customer, _ = consenting_customer(api.platform, phone_number=PHONE)  # lives in GB
    source = funded_account(customer, 100_000)
    quote = _held(api, source, usd_external(api.platform, customer))
    assert quote["status"] in ("PROCESSING", "COMPLETED") and "scaChallenge" not in quote
    calls = [
        ("get", "/sca/factors", None),
        ("post", "/sca/factors", {"type": "PASSKEY"}),
        ("post", "/sca/factors/confirm", {"type": "PASSKEY", "origin": ORIGIN, "credential": {}}),
        ("delete", "/sca/factors/abc", None),
        ("post", "/sca/login/start", {"factor": "SMS_OTP"}),
        ("post", "/sca/login/complete", {"factor": "SMS_OTP", "code": "123456", "endUserIpAddress": IP}),
        ("post", "/sca/record-event", {"eventType": "FAILED_LOGIN_ATTEMPT"}),
        ("post", "/sca/factors/reset", {"factor": "SMS_OTP"}),
        ("get", "/sca/factors/reset/ScaFactorReset:00000000-0000-7000-8000-000000000000", None),
        ("post", "/sca/factors/reset/ScaFactorReset:00000000-0000-7000-8000-000000000000/complete", {}),
    ]
    for method, path, body in calls:
        response = getattr(api, method)(sca_path(path, customer), body)
        assert (response.status_code, response.json()["code"]) == (409, "CONFLICT"), (path, response.json())
    for path in ("authorize", "authorize/resend"):
        response = api.post(f"/quotes/{quote['id']}/{path}", {})
        assert (response.status_code, response.json()["code"]) == (409, "CONFLICT")
    assert not ScaChallenge.objects.exists()


def test_a_business_in_the_eea_is_in_an_sca_region(api):
    business = factories.CustomerFactory(
        platform=api.platform,
        customer_type="BUSINESS",
        full_name="",
        business_info={"legalName": "Acme AS", "country": "NO"},
        address={**EU_ADDRESS, "country": "NO"},  # Norway: EEA, not EU
    )
    assert api.get(sca_path("/sca/factors", business)).status_code == 200


def test_unknown_customers_and_missing_customer_ids(api):
    assert api.get("/sca/factors").json()["details"]["errors"][0]["field"] == "customerId"
    response = api.get(sca_path("/sca/factors", "Customer:00000000-0000-7000-8000-000000000000"))
    assert (response.status_code, response.json()["code"]) == (404, "USER_NOT_FOUND")


# --- factors and login --------------------------------------------------------------------------------


def test_sms_is_a_factor_once_the_customer_has_a_phone(api, eu):
    customer, _ = eu
    assert api.get(sca_path("/sca/factors", customer)).json() == {"factors": [{"factor": "SMS_OTP"}]}
    customer.phone_number = ""
    customer.save()
    assert api.get(sca_path("/sca/factors", customer)).json() == {"factors": []}
    response = api.post(sca_path("/sca/login/start", customer), {"factor": "SMS_OTP"})
    assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "factor"


def test_one_passkey_per_customer_enrolled_with_real_webauthn(api, eu):
    customer, _ = eu
    authenticator = enroll_passkey(api, customer)
    factors = api.get(sca_path("/sca/factors", customer)).json()["factors"]
    assert factors == [
        {"factor": "SMS_OTP"},
        {"factor": "PASSKEY", "credentialId": authenticator.credential_id, "name": "Laptop"},
    ]
    again = api.post(sca_path("/sca/factors", customer), {"type": "PASSKEY"})
    assert (again.status_code, again.json()["code"]) == (409, "PASSKEY_ALREADY_ENROLLED")

    deleted = api.delete(sca_path(f"/sca/factors/{authenticator.credential_id}", customer))
    assert deleted.status_code == 204
    assert api.delete(sca_path(f"/sca/factors/{authenticator.credential_id}", customer)).status_code == 404
    enroll_passkey(api, customer)  # room for a new one


def test_an_enrollment_must_be_produced_for_its_challenge_and_origin(api, eu):
    from tests.wallets.soft_authenticator import SoftAuthenticator

    customer, _ = eu
    authenticator = SoftAuthenticator("localhost", ORIGIN)
    started = api.post(sca_path("/sca/factors", customer), {"type": "PASSKEY"}).json()
    assert started["relyingPartyId"] == "localhost" and ORIGIN in started["allowedOrigins"]
    stranger = authenticator.register("c29tZSBvdGhlciBjaGFsbGVuZ2U")
    response = api.post(
        sca_path("/sca/factors/confirm", customer),
        {"type": "PASSKEY", "origin": ORIGIN, "credential": stranger},
    )
    assert (response.status_code, response.json()["details"]["reason"]) == (400, "PASSKEY_REJECTED")
    good = authenticator.register(started["options"]["challenge"])
    response = api.post(
        sca_path("/sca/factors/confirm", customer),
        {"type": "PASSKEY", "origin": "https://evil.example", "credential": good},
    )
    assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "origin"
    response = api.post(
        sca_path("/sca/factors/confirm", customer), {"type": "PASSKEY", "origin": ORIGIN, "credential": good}
    )
    assert response.status_code == 200, response.json()  # the flat wire form is taken too


def test_sms_login_opens_a_180_day_session(api, eu):
    customer, _ = eu
    response = sca_login(api, customer)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "SUCCESS"
    expires = dt.datetime.fromisoformat(body["sessionExpiresAt"])
    assert abs(expires - (clock.now() + dt.timedelta(days=180))) < dt.timedelta(seconds=5)


def test_login_codes_are_single_use_and_wrong_ones_lock_after_five(api, eu):
    customer, _ = eu
    started = api.post(sca_path("/sca/login/start", customer), {"factor": "SMS_OTP"}).json()
    assert started["factor"] == "SMS_OTP" and started["challengeId"].startswith("ScaChallenge:")
    complete = sca_path("/sca/login/complete", customer)
    body = {"factor": "SMS_OTP", "challengeId": started["challengeId"], "endUserIpAddress": IP}
    for left in (4, 3, 2, 1):
        response = api.post(complete, {**body, "code": "654321"})
        assert response.status_code == 400
        assert response.json()["details"] == {"reason": "INVALID_CODE", "attemptsLeft": left}
    locked = api.post(complete, {**body, "code": "654321"})
    assert (locked.status_code, locked.json()["code"]) == (423, "ACCOUNT_LOCKED")
    assert locked.json()["details"]["failedAttempts"] == 5
    # Even the right code waits for the lock to end.
    assert api.post(complete, {**body, "code": SANDBOX_SCA_CODE}).status_code == 423
    clock.advance(dt.timedelta(minutes=15, seconds=1))
    assert sca_login(api, customer).status_code == 200
    reused = api.post(complete, {**body, "code": SANDBOX_SCA_CODE})
    assert (reused.status_code, reused.json()["details"]["reason"]) == (400, "NO_LOGIN_PENDING")


def test_a_passkey_login(api, eu):
    customer, _ = eu
    authenticator = enroll_passkey(api, customer)
    started = api.post(sca_path("/sca/login/start", customer), {"factor": "PASSKEY"}).json()
    assert started["relyingPartyId"] == "localhost" and "challengeId" not in started
    proof = passkey_proof(authenticator, started["passkeyOptions"])
    complete = sca_path("/sca/login/complete", customer)
    response = api.post(complete, {"factor": "PASSKEY", "endUserIpAddress": IP, **proof})
    assert response.status_code == 200 and response.json()["status"] == "SUCCESS"
    replayed = api.post(complete, {"factor": "PASSKEY", "endUserIpAddress": IP, **proof})
    assert replayed.status_code == 400  # nothing pending any more


# --- quotes held for authorization --------------------------------------------------------------------


def test_a_cross_currency_send_needs_two_authorizations_in_order(api, logged_in):
    customer, source = logged_in
    balance = account_balance(source)
    quote = _held(api, source, eur_external(api.platform, customer))
    QUOTE.validate(on_the_wire(quote))
    first = quote["scaChallenge"]
    CHALLENGE.validate(first)
    assert quote["status"] == "PENDING_AUTHORIZATION"
    assert first["factor"] == "SMS_OTP" and first["availableFactors"] == ["SMS_OTP"]
    assert first["purpose"] == "CURRENCY_CONVERSION" and "passkeyAssertionOptions" not in first
    assert api.get(f"/transactions/{quote['transactionId']}").json()["status"] == "PENDING_AUTHORIZATION"
    assert account_balance(source) == balance  # nothing moves before authorization
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.PENDING_AUTHORIZATION").count() == 1

    after_first = _authorize(api, quote)
    assert after_first.status_code == 200, after_first.json()
    second = after_first.json()["scaChallenge"]
    assert after_first.json()["status"] == "PENDING_AUTHORIZATION"
    assert second["purpose"] == "PAYOUT" and second["id"] != first["id"]
    assert account_balance(source) == balance

    released = _authorize(api, quote)
    assert released.status_code == 200, released.json()
    assert released.json()["status"] in ("PROCESSING", "COMPLETED") and "scaChallenge" not in released.json()
    assert account_balance(source) == balance - quote["totalSendingAmount"]
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
    again = _authorize(api, quote)
    assert (again.status_code, again.json()["code"]) == (409, "CONFLICT")


def test_a_same_currency_send_needs_one_authorization_without_a_purpose(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    assert "purpose" not in quote["scaChallenge"]
    released = _authorize(api, quote)
    assert released.json()["status"] in ("PROCESSING", "COMPLETED")


def test_executing_again_is_a_409_unless_it_is_the_same_idempotent_request(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer), HTTP_IDEMPOTENCY_KEY=key("k-1"))
    path = f"/quotes/{quote['id']}/execute"
    repeat = api.post(path, HTTP_IDEMPOTENCY_KEY=key("k-1"))
    assert repeat.status_code == 200 and repeat.json()["scaChallenge"]["id"] == quote["scaChallenge"]["id"]
    other = api.post(path, HTTP_IDEMPOTENCY_KEY=key("k-2"))
    assert (other.status_code, other.json()["code"]) == (409, "CONFLICT")
    assert api.post(path).status_code == 409
    assert ScaChallenge.objects.count() == 2  # the login's and the quote's: no second challenge


def test_a_wrong_code_is_refused_and_the_right_one_still_works(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    wrong = _authorize(api, quote, code="000000")
    assert (wrong.status_code, wrong.json()["code"]) == (400, "INVALID_INPUT")
    assert wrong.json()["details"]["reason"] == "INVALID_CODE"
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING_AUTHORIZATION"
    assert _authorize(api, quote).status_code == 200


def test_five_wrong_codes_lock_authorization(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    for _ in range(4):
        assert _authorize(api, quote, code="000001").status_code == 400
    locked = _authorize(api, quote, code="000001")
    assert (locked.status_code, locked.json()["code"]) == (423, "ACCOUNT_LOCKED")
    assert _authorize(api, quote).status_code == 423


def test_the_proof_must_be_exactly_one_of_code_and_passkey(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    for body in ({}, {"code": "123456", "passkeyAssertion": {}, "origin": ORIGIN}, {"code": "12"}):
        assert api.post(f"/quotes/{quote['id']}/authorize", body).status_code == 400, body
    response = _authorize(api, quote, passkeyAssertion={"id": "x"}, origin=ORIGIN)
    assert response.json()["details"]["errors"][0]["field"] == "code"  # an SMS challenge takes a code


def test_authorizing_needs_an_sca_login_session(api, eu):
    customer, source = eu
    quote = _held(api, source, usd_external(api.platform, customer))
    response = _authorize(api, quote)
    assert (response.status_code, response.json()["code"]) == (409, "SCA_SESSION_REQUIRED")
    assert sca_login(api, customer).status_code == 200
    clock.advance(dt.timedelta(minutes=4))
    assert _authorize(api, quote).status_code == 200

    clock.advance(dt.timedelta(days=180))  # the session has run out
    later = _held(api, source, usd_external(api.platform, customer))
    response = _authorize(api, later)
    assert (response.status_code, response.json()["code"]) == (409, "SCA_SESSION_REQUIRED")


def test_an_expired_challenge_fails_the_transfer_and_is_refused_clearly(api, logged_in):
    customer, source = logged_in
    balance = account_balance(source)
    quote = _held(api, source, eur_external(api.platform, customer))
    expires = dt.datetime.fromisoformat(quote["scaChallenge"]["expiresAt"])
    assert expires - clock.now() <= dt.timedelta(minutes=5)
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    response = _authorize(api, quote)
    assert response.status_code == 400
    assert response.json()["details"]["reason"] == "CHALLENGE_EXPIRED"
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert (txn["status"], txn["failureReason"]) == ("FAILED", "SCA_NOT_COMPLETED")
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "FAILED"
    assert account_balance(source) == balance
    assert set(ScaChallenge.objects.filter(kind="PAYMENT").values_list("status", flat=True)) == {"EXPIRED"}


def test_a_lapsed_challenge_fails_the_transfer_on_a_read_too(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    clock.advance(dt.timedelta(minutes=6))
    read = api.get(f"/quotes/{quote['id']}").json()
    assert read["status"] == "FAILED" and "scaChallenge" not in read
    assert _transaction(quote).failure_reason == "SCA_NOT_COMPLETED"


def test_each_step_gets_its_own_deadline(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, eur_external(api.platform, customer))
    clock.advance(dt.timedelta(minutes=4))
    second = _authorize(api, quote).json()["scaChallenge"]
    remaining = dt.datetime.fromisoformat(second["expiresAt"]) - clock.now()
    assert dt.timedelta(minutes=4, seconds=59) < remaining <= dt.timedelta(minutes=5)
    clock.advance(dt.timedelta(minutes=4))
    assert _authorize(api, quote).json()["status"] in ("PROCESSING", "COMPLETED")


def test_passkey_challenges_are_authorized_with_real_assertions(api, eu):
    customer, source = eu
    authenticator = enroll_passkey(api, customer)
    assert sca_login(api, customer).status_code == 200
    quote = api.post(
        "/quotes", quote_body(source.public_id, eur_external(api.platform, customer).public_id, 5_000)
    )
    held = api.post(f"/quotes/{quote.json()['id']}/execute", {"scaFactor": "PASSKEY"}).json()
    challenge = held["scaChallenge"]
    assert challenge["factor"] == "PASSKEY" and challenge["availableFactors"] == ["SMS_OTP", "PASSKEY"]
    options = challenge["passkeyAssertionOptions"]
    assert options["rpId"] == "localhost"
    assert options["allowCredentials"] == [{"type": "public-key", "id": authenticator.credential_id}]

    proof = passkey_proof(authenticator, options)
    assert _authorize(api, held, **{**proof, "origin": "https://evil.example"}).status_code == 400
    sms = _authorize(api, held, code=SANDBOX_SCA_CODE)
    assert sms.json()["details"]["errors"][0]["field"] == "passkeyAssertion"

    second = _authorize(api, held, **proof)
    assert second.status_code == 200, second.json()
    assert second.json()["scaChallenge"]["purpose"] == "PAYOUT"
    replay = _authorize(api, held, **proof)  # signed over the first challenge
    assert (replay.status_code, replay.json()["details"]["reason"]) == (400, "PASSKEY_REJECTED")
    options = second.json()["scaChallenge"]["passkeyAssertionOptions"]
    released = _authorize(api, held, **passkey_proof(authenticator, options))
    assert released.status_code == 200 and released.json()["status"] in ("PROCESSING", "COMPLETED")


def test_a_payment_challenge_is_bound_to_the_payment(api, eu):
    customer, source = eu
    enroll_passkey(api, customer)
    payee = usd_external(api.platform, customer)
    texts = set()
    for amount in (1_000, 2_000):
        quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount)).json()
        held = api.post(f"/quotes/{quote['id']}/execute", {"scaFactor": "PASSKEY"}).json()
        texts.add(held["scaChallenge"]["passkeyAssertionOptions"]["challenge"])
    assert len(texts) == 2


def test_unavailable_factors_are_refused_before_anything_changes(api, eu):
    customer, source = eu
    quote = api.post(
        "/quotes", quote_body(source.public_id, usd_external(api.platform, customer).public_id, 1_000)
    )
    path = f"/quotes/{quote.json()['id']}/execute"
    for factor in ("PASSKEY", "TOTP"):
        response = api.post(path, {"scaFactor": factor})
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "scaFactor"
    customer.phone_number = ""
    customer.save()
    response = api.post(path)
    assert (response.status_code, response.json()["code"]) == (409, "CONFLICT")
    assert api.get(f"/quotes/{quote.json()['id']}").json()["status"] == "PENDING"


def test_resend_reissues_the_sms_code_with_a_cool_down(api, logged_in):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    resend = f"/quotes/{quote['id']}/authorize/resend"
    early = api.post(resend)
    assert (early.status_code, early.json()["code"]) == (429, "RATE_LIMITED")
    assert early["Retry-After"] == "30"
    clock.advance(dt.timedelta(seconds=30))
    assert api.post(resend).status_code == 204
    assert api.get(f"/quotes/{quote['id']}").json()["scaChallenge"]["id"] == quote["scaChallenge"]["id"]
    assert _authorize(api, quote).status_code == 200
    assert api.post(resend).status_code == 409  # nothing pending


def test_resend_has_nothing_to_send_for_a_passkey_challenge(api, eu):
    customer, source = eu
    enroll_passkey(api, customer)
    quote = api.post(
        "/quotes", quote_body(source.public_id, usd_external(api.platform, customer).public_id, 1_000)
    )
    api.post(f"/quotes/{quote.json()['id']}/execute", {"scaFactor": "PASSKEY"})
    response = api.post(f"/quotes/{quote.json()['id']}/authorize/resend")
    assert (response.status_code, response.json()["code"]) == (409, "CONFLICT")


def test_deleting_the_passkey_fails_the_transfers_waiting_for_it_at_once(api, eu):
    customer, source = eu
    authenticator = enroll_passkey(api, customer)
    balance = account_balance(source)
    payee = usd_external(api.platform, customer)
    held = []
    for factor in ("PASSKEY", "SMS_OTP"):
        quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
        held.append(api.post(f"/quotes/{quote['id']}/execute", {"scaFactor": factor}).json())
    assert api.delete(sca_path(f"/sca/factors/{authenticator.credential_id}", customer)).status_code == 204

    by_passkey, by_sms = (api.get(f"/quotes/{quote['id']}").json() for quote in held)
    assert by_passkey["status"] == "FAILED" and "scaChallenge" not in by_passkey
    txn = api.get(f"/transactions/{held[0]['transactionId']}").json()
    assert (txn["status"], txn["failureReason"]) == ("FAILED", "SCA_NOT_COMPLETED")
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.FAILED").count() == 1
    assert by_sms["status"] == "PENDING_AUTHORIZATION"  # its SMS challenge still stands
    assert account_balance(source) == balance
    response = _authorize(
        api, held[0], **passkey_proof(authenticator, held[0]["scaChallenge"]["passkeyAssertionOptions"])
    )
    assert (response.status_code, response.json()["details"]["reason"]) == (400, "CHALLENGE_CANCELLED")
    assert "passkey" in response.json()["message"]


# --- realtime funding ---------------------------------------------------------------------------------


def _realtime(api, customer, currency="EUR"):
    return api.post(
        "/quotes",
        {
            "source": {
                "sourceType": "REALTIME_FUNDING",
                "currency": currency,
                "customerId": customer.public_id,
            },
            "destination": {
                "destinationType": "ACCOUNT",
                "accountId": usd_external(api.platform, customer).public_id,
            },
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
        },
    )


def test_realtime_funding_withholds_instructions_until_authorized(api, logged_in):
    customer, _ = logged_in
    created = _realtime(api, customer)
    assert created.status_code == 202, created.json()
    quote = created.json()
    QUOTE.validate(on_the_wire(quote))
    assert quote["status"] == "PENDING_AUTHORIZATION" and "paymentInstructions" not in quote
    assert quote["scaChallenge"]["purpose"] == "CURRENCY_CONVERSION"
    assert dt.datetime.fromisoformat(quote["scaChallenge"]["expiresAt"]) <= dt.datetime.fromisoformat(
        quote["expiresAt"]
    )
    paid_early = api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "EUR"})
    assert paid_early.status_code == 409

    assert _authorize(api, quote).json()["status"] == "PENDING_AUTHORIZATION"
    issued = _authorize(api, quote).json()
    assert issued["status"] == "PENDING" and "scaChallenge" not in issued
    (instruction,) = issued["paymentInstructions"]
    assert instruction["accountOrWalletInfo"]["accountType"] == "EUR_ACCOUNT"
    paid = api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "EUR"})
    assert paid.status_code == 200 and paid.json()["status"] == "PROCESSING"
    # created PENDING, held for SCA, released to wait for the payer's money again, then paid
    assert [e.type for e in WebhookEvent.objects.filter(type__startswith="OUTGOING_PAYMENT.").order_by("pk")][
        :4
    ] == [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
    ]


def test_an_unauthorized_realtime_quote_fails_with_its_deadline(api, logged_in):
    customer, _ = logged_in
    quote = _realtime(api, customer).json()
    clock.advance(dt.timedelta(minutes=10))
    read = api.get(f"/quotes/{quote['id']}").json()
    assert read["status"] == "FAILED" and "paymentInstructions" not in read


# --- production ---------------------------------------------------------------------------------------


def test_production_sends_random_codes_that_name_the_payment(
    api, logged_in, settings, django_capture_on_commit_callbacks
):
    from wallets.sms import LocmemSmsBackend

    customer, source = logged_in
    settings.SANDBOX, settings.PRODUCTION = False, True
    settings.SMS_BACKEND = "wallets.sms.LocmemSmsBackend"
    LocmemSmsBackend.outbox.clear()
    payee = eur_external(api.platform, customer)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 12_345)).json()
    with django_capture_on_commit_callbacks(execute=True):
        held = api.post(f"/quotes/{quote['id']}/execute").json()
    (sms,) = LocmemSmsBackend.outbox
    assert sms.to == PHONE
    assert "the currency conversion: 123.45 USD to Hans Muster ··3000" in sms.message
    code = sms.message.split(" ")[0]
    assert len(code) == 6 and code.isdigit()
    assert code not in str(list(ScaChallenge.objects.values()))  # only a digest is kept
    if code != SANDBOX_SCA_CODE:
        assert _authorize(api, held, code=SANDBOX_SCA_CODE).status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        second = _authorize(api, held, code=code)
    assert second.json()["scaChallenge"]["purpose"] == "PAYOUT"
    assert "the payout" in LocmemSmsBackend.outbox[-1].message


def test_quote_rows_know_nothing_of_sca_outside_the_region(api):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 100_000)
    quote = _held(api, source, usd_external(api.platform, customer))
    assert Quote.objects.get(pk=quote["id"].split(":", 1)[1]).status != "PENDING_AUTHORIZATION"


def test_the_execute_hook_reads_nothing_more_for_anyone(api, eu, django_assert_num_queries):
    from payments.sca import sca_required

    customer, source = eu
    quote = api.post(
        "/quotes", quote_body(source.public_id, usd_external(api.platform, customer).public_id, 1_000)
    )
    # execute locks the quote with its customer and payee (trusted beneficiaries are exempt)
    loaded = Quote.objects.select_related("customer", "destination_external_account").get(
        pk=quote.json()["id"].split(":", 1)[1]
    )
    with django_assert_num_queries(0):
        assert sca_required(loaded)
        loaded.customer.address = {**EU_ADDRESS, "country": "US"}
        assert not sca_required(loaded)


def test_operators_see_profiles_passkeys_and_challenges_in_the_admin(api, logged_in, admin_client):
    customer, source = logged_in
    quote = _held(api, source, usd_external(api.platform, customer))
    challenge = ScaChallenge.objects.get(quote_id=quote["id"].split(":", 1)[1])
    listing = admin_client.get("/admin/payments/scachallenge/?status=PENDING").content.decode()
    assert challenge.public_id in listing and "PAYMENT" in listing
    page = admin_client.get(f"/admin/payments/scachallenge/{challenge.pk}/change/")
    assert page.status_code == 200 and challenge.code_digest not in page.content.decode()
    profile = admin_client.get("/admin/payments/scaprofile/").content.decode()
    assert customer.platform_customer_id in profile and "Sms Otp" in profile  # the login session's factor
    assert admin_client.get("/admin/payments/scapasskey/").status_code == 200
