"""The typed client's Strong Customer Authentication methods against a live server: factors, SCA
login, and authorizing a held quote step by step (SMS codes and a software passkey)."""

from __future__ import annotations

import datetime as dt

import pytest
from celery.app.task import Task

from payments import clock
from payments.client import (
    BadRequest,
    Conflict,
    Customer,
    Quote,
    RateLimited,
    ScaChallenge,
    ScaFactor,
    ServiceClient,
)
from payments.platforms import platform_create
from tests.payments.sca_support import (
    EU_ADDRESS,
    IP,
    ORIGIN,
    PHONE,
    SANDBOX_SCA_CODE,
    options_challenge,
    webauthn_json,
)
from tests.wallets.soft_authenticator import SoftAuthenticator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def credentials(live_server, monkeypatch) -> tuple[str, str, str]:
    # Tasks queued on commit are dropped: reads apply what is due, so no worker is needed.
    monkeypatch.setattr(Task, "apply_async", lambda self, *args, **kwargs: None)
    _, token, secret = platform_create(name="SCA client test platform")
    return f"{live_server.url}/api/2025-10-13", token.client_id, secret


@pytest.fixture
def service(credentials):
    with ServiceClient(*credentials) as client:
        yield client


CONSENT = {
    "acceptedAt": "2025-10-01T12:00:00Z",
    "ipAddress": IP,
    "termsVersion": "2025-10-01",
    "acceptanceMethod": "CHECKBOX",
}


def _customer(service: ServiceClient, n: int, *, address=EU_ADDRESS) -> Customer:
    terms = service.customers.end_user_terms()
    return service.customers.create(
        full_name="Erika Mustermann",
        email=f"erika{n}@example.com",
        phone_number=PHONE,
        birth_date="1990-01-15",
        nationality="DE",
        address=address,
        platform_customer_id=f"sca-{n}",
        end_user_terms_consent={**CONSENT, "termsVersion": terms["version"]},
    )


def _held(service: ServiceClient, customer: Customer, currency: str, **execute) -> Quote:
    (source,) = service.internal_accounts.list(
        customer_id=customer.id, currency="USD", type="INTERNAL_FIAT"
    ).data
    service.sandbox.fund(source.id, 1_000_000)
    info = (
        {
            "accountType": "EUR_ACCOUNT",
            "iban": "DE89370400440532013000",
            "beneficiary": {
                "beneficiaryType": "INDIVIDUAL",
                "fullName": "Hans Muster",
                "countryOfResidence": "DE",
            },
        }
        if currency == "EUR"
        else {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "9876543210",
            "routingNumber": "021000021",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        }
    )
    payee = service.external_accounts.create(currency=currency, account_info=info, customer_id=customer.id)
    quote = service.quotes.create(
        source={"sourceType": "ACCOUNT", "accountId": source.id},
        destination={"destinationType": "ACCOUNT", "accountId": payee.id},
        locked_currency_side="SENDING",
        locked_currency_amount=10_000,
    )
    return service.quotes.execute(quote, **execute)


def _login(service: ServiceClient, customer: Customer) -> None:
    started = service.sca.login_start(customer.id, "SMS_OTP")
    done = service.sca.login_complete(
        customer.id,
        factor="SMS_OTP",
        challenge_id=started.challenge_id,
        code=SANDBOX_SCA_CODE,
        end_user_ip_address=IP,
    )
    assert done.status == "SUCCESS"
    assert done.session_expires_at - clock.now() > dt.timedelta(days=179)


def test_sms_login_then_each_step_of_a_cross_currency_send(service, credentials):
    customer = _customer(service, 1)
    assert service.sca.factors(customer.id) == [ScaFactor(factor="SMS_OTP", raw={"factor": "SMS_OTP"})]
    quote = _held(service, customer, "EUR")
    assert quote.status == "PENDING_AUTHORIZATION"
    assert isinstance(quote.sca_challenge, ScaChallenge) and quote.sca_challenge.factor == "SMS_OTP"
    assert quote.sca_challenge.purpose == "CURRENCY_CONVERSION"

    with pytest.raises(Conflict) as no_session:
        service.quotes.authorize(quote, code=SANDBOX_SCA_CODE)
    assert no_session.value.code == "SCA_SESSION_REQUIRED"
    _login(service, customer)

    with pytest.raises(BadRequest) as wrong:
        service.quotes.authorize(quote, code="000000")
    assert wrong.value.details["reason"] == "INVALID_CODE"

    base_url, client_id, secret = credentials
    with ServiceClient(base_url, client_id, secret, rate_limit_retries=0) as impatient:
        with pytest.raises(RateLimited) as cooling:
            impatient.quotes.resend_authorization_code(quote)
        assert 0 < cooling.value.retry_after <= 30

    purposes, ids = [], set()
    while quote.status == "PENDING_AUTHORIZATION":
        purposes.append(quote.sca_challenge.purpose)
        ids.add(quote.sca_challenge.id)
        quote = service.quotes.authorize(quote, code=SANDBOX_SCA_CODE, end_user_ip_address=IP)
    assert purposes == ["CURRENCY_CONVERSION", "PAYOUT"] and len(ids) == 2
    assert quote.status in ("PROCESSING", "COMPLETED") and quote.sca_challenge is None
    assert service.transactions.get(quote.transaction_id).status == "COMPLETED"


def test_passkey_enrollment_login_and_authorization(service):
    customer = _customer(service, 2)
    authenticator = SoftAuthenticator("localhost", ORIGIN)
    started = service.sca.start_passkey_enrollment(customer.id)
    assert started.relying_party_id == "localhost" and ORIGIN in started.allowed_origins
    attestation = webauthn_json(authenticator.register(started.options["challenge"]))
    factor = service.sca.confirm_passkey_enrollment(
        customer.id, credential=attestation, origin=ORIGIN, name="Phone"
    )
    assert (factor.factor, factor.name) == ("PASSKEY", "Phone") and factor.credential_id
    with pytest.raises(Conflict) as twice:
        service.sca.start_passkey_enrollment(customer.id)
    assert twice.value.code == "PASSKEY_ALREADY_ENROLLED"

    login = service.sca.login_start(customer.id, "PASSKEY")
    assertion = authenticator.assert_(options_challenge(login.passkey_options), factor.credential_id)
    done = service.sca.login_complete(
        customer.id,
        factor="PASSKEY",
        passkey_assertion=webauthn_json(assertion),
        origin=ORIGIN,
        end_user_ip_address=IP,
    )
    assert done.status == "SUCCESS"

    quote = _held(service, customer, "USD", sca_factor="PASSKEY")
    challenge = quote.sca_challenge
    assert challenge.factor == "PASSKEY" and challenge.purpose is None
    assert challenge.available_factors == ["SMS_OTP", "PASSKEY"]
    assertion = authenticator.assert_(
        options_challenge(challenge.passkey_assertion_options), factor.credential_id
    )
    released = service.quotes.authorize(quote, passkey_assertion=webauthn_json(assertion), origin=ORIGIN)
    assert released.status in ("PROCESSING", "COMPLETED")

    service.sca.delete_factor(customer.id, factor.credential_id)
    assert [f.factor for f in service.sca.factors(customer.id)] == ["SMS_OTP"]


def test_outside_an_sca_region_the_sca_methods_raise_conflict(service):
    customer = _customer(service, 3, address={**EU_ADDRESS, "country": "CH"})  # Switzerland: not EEA
    quote = _held(service, customer, "USD")
    assert quote.status != "PENDING_AUTHORIZATION" and quote.sca_challenge is None
    for call in (
        lambda: service.sca.factors(customer.id),
        lambda: service.sca.login_start(customer.id),
        lambda: service.quotes.authorize(quote, code=SANDBOX_SCA_CODE),
    ):
        with pytest.raises(Conflict) as refused:
            call()
        assert refused.value.code == "CONFLICT"


def test_totp_enrollment_login_with_a_recovery_code_and_a_factor_reset(service):
    import pyotp

    from payments.client import FactorReset, Locked, TotpEnrollment

    customer = _customer(service, 4)
    started = service.sca.start_totp_enrollment(customer.id)
    assert isinstance(started, TotpEnrollment) and started.totp_uri.startswith("otpauth://totp/")
    codes = service.sca.confirm_totp_enrollment(
        customer.id, secret=started.secret, code=pyotp.TOTP(started.secret_base32_encoded).at(clock.now())
    )
    assert len(codes) == 10
    assert [f.factor for f in service.sca.factors(customer.id)] == ["SMS_OTP", "TOTP"]
    assert service.sca.login_start(customer.id, "TOTP").challenge_id is None
    done = service.sca.login_complete(customer.id, factor="TOTP", code=codes[0], end_user_ip_address=IP)
    assert done.status == "SUCCESS"

    reset = service.sca.start_factor_reset(customer.id, "TOTP")
    assert reset.reset_id.startswith("ScaFactorReset:") and reset.expires_at is not None
    with pytest.raises(BadRequest) as early:
        service.sca.complete_factor_reset(customer.id, reset.reset_id)
    assert early.value.details["reason"] == "RESET_NOT_READY"
    clock.advance(dt.timedelta(seconds=10))
    status = service.sca.factor_reset(customer.id, reset.reset_id)
    assert isinstance(status, FactorReset) and status.status == "LIVENESS_PASSED" and not status.terminal
    service.sca.complete_factor_reset(customer.id, reset.reset_id)
    status = service.sca.factor_reset(customer.id, reset.reset_id)
    assert (status.status, status.enrollment_status, status.terminal) == ("COMPLETED", "PENDING", True)
    assert [f.factor for f in service.sca.factors(customer.id)] == ["SMS_OTP"]

    for count in range(1, 6):
        state = service.sca.record_event(customer.id, "FAILED_LOGIN_ATTEMPT")
        assert state.failed_attempts == count
    assert state.locked_until is not None and not state.suspended
    with pytest.raises(Locked):
        service.sca.record_event(customer.id, "FAILED_LOGIN_ATTEMPT")
    cleared = service.sca.record_event(customer.id, "RESET_PASSWORD_COMPLETED")
    assert (cleared.failed_attempts, cleared.locked_until) == (0, None)


def test_trusting_a_beneficiary_spares_its_payments_the_challenge(service):
    customer = _customer(service, 7)
    _login(service, customer)
    held = _held(service, customer, "USD")
    assert held.status == "PENDING_AUTHORIZATION"
    payee_id = held.destination["accountId"]
    started = service.sca.trust_start(payee_id)
    assert started.sca_challenge is not None and started.sca_challenge.factor == "SMS_OTP"
    with pytest.raises(BadRequest):
        service.sca.trust_confirm(payee_id, challenge_id=started.sca_challenge.id, code="000000")
    assert service.sca.trust_confirm(payee_id, challenge_id=started.sca_challenge.id, code=SANDBOX_SCA_CODE)
    assert service.sca.trust_start(payee_id).sca_challenge is None  # already trusted
    with pytest.raises(Conflict) as refused:
        service.external_accounts.delete(payee_id)
    assert refused.value.code == "BENEFICIARY_TRUSTED"
    (source,) = service.internal_accounts.list(
        customer_id=customer.id, currency="USD", type="INTERNAL_FIAT"
    ).data
    quote = service.quotes.create(
        source={"sourceType": "ACCOUNT", "accountId": source.id},
        destination={"destinationType": "ACCOUNT", "accountId": payee_id},
        locked_currency_side="SENDING",
        locked_currency_amount=10_000,
    )
    assert service.quotes.execute(quote).status in ("PROCESSING", "COMPLETED")
    untrust = service.sca.trust_start(payee_id, trusted=False)
    assert not service.sca.trust_confirm(
        payee_id, trusted=False, challenge_id=untrust.sca_challenge.id, code=SANDBOX_SCA_CODE
    )
