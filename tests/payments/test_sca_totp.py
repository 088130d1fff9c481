"""TOTP factors through the API: enrollment (otpauth URI, secret, recovery codes), SCA login with app
codes (±1 step of drift, no replay) and recovery codes (each once), in sandbox and production."""

from __future__ import annotations

import base64
import datetime as dt
import re
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest

from payments import clock
from payments.models import ScaChallenge, ScaTotp
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    quote_body,
    reference_validator,
    usd_external,
)
from tests.payments.sca_support import (
    EU_ADDRESS,
    IP,
    PHONE,
    SANDBOX_SCA_CODE,
    enroll_totp,
    mid_step,
    sca_path,
    totp_login,
)

pytestmark = pytest.mark.django_db

STEP = dt.timedelta(seconds=30)


@pytest.fixture
def eu(api):
    customer, _ = consenting_customer(
        api.platform, address=EU_ADDRESS, phone_number=PHONE, email="erika@example.com"
    )
    return customer


@pytest.fixture
def production(settings):
    settings.SANDBOX, settings.PRODUCTION = False, True


def _code(secret: str, steps: int = 0) -> str:
    """The app's code for the step `steps` away from now."""
    return pyotp.TOTP(secret).at(clock.now() + steps * STEP)


def _confirm(api, customer, **body):
    return api.post(sca_path("/sca/factors/confirm", customer), {"type": "TOTP", **body})


# --- enrollment -----------------------------------------------------------------------------------


def test_enrollment_answers_the_secret_and_an_otpauth_uri_then_recovery_codes(api, eu):
    started = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"})
    assert started.status_code == 200
    body = started.json()
    reference_validator("ScaFactorEnrollStartOneOf").validate(body)
    assert body["type"] == "TOTP"
    assert base64.b32decode(body["secretBase32Encoded"]).hex() == body["secret"]
    uri = urlsplit(body["totpUri"])
    assert (uri.scheme, uri.netloc) == ("otpauth", "totp")
    query = parse_qs(uri.query)
    assert query["secret"] == [body["secretBase32Encoded"]] and query["issuer"] == [api.platform.name]
    assert "erika%40example.com" in uri.path or "erika@example.com" in uri.path
    assert body["secretBase32Encoded"] not in str(list(ScaChallenge.objects.values()))  # sealed at rest

    confirmed = _confirm(api, eu, secret=body["secret"], code=SANDBOX_SCA_CODE)
    assert confirmed.status_code == 200, confirmed.json()
    reference_validator("ScaFactorConfirmResponseOneOf").validate(confirmed.json())
    codes = confirmed.json()["recoveryCodes"]
    assert len(set(codes)) == 10 and all(
        re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}", c) for c in codes
    )
    stored = str(list(ScaTotp.objects.values()))
    assert not any(c in stored or c.replace("-", "") in stored for c in codes)  # digests only
    assert body["secretBase32Encoded"] not in stored
    assert api.get(sca_path("/sca/factors", eu)).json()["factors"] == [
        {"factor": "SMS_OTP"},
        {"factor": "TOTP"},
    ]

    again = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"})
    assert (again.status_code, again.json()["code"]) == (409, "CONFLICT")


def test_the_base32_secret_is_taken_on_confirm_and_the_real_code_in_sandbox(api, eu):
    started = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"}).json()
    secret = started["secretBase32Encoded"]
    confirmed = _confirm(api, eu, secret=secret, code=_code(secret))
    assert confirmed.status_code == 200, confirmed.json()


def test_confirm_refuses_what_does_not_fit_the_pending_enrollment(api, eu):
    nothing = _confirm(api, eu, secret="ab" * 20, code=SANDBOX_SCA_CODE)
    assert (nothing.status_code, nothing.json()["details"]["reason"]) == (400, "NO_ENROLLMENT_PENDING")

    first = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"}).json()
    second = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"}).json()  # replaces the first
    stale = _confirm(api, eu, secret=first["secret"], code=SANDBOX_SCA_CODE)
    assert (stale.status_code, stale.json()["details"]["reason"]) == (400, "SECRET_MISMATCH")

    other, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    theirs = _confirm(api, other, secret=second["secret"], code=SANDBOX_SCA_CODE)
    assert (theirs.status_code, theirs.json()["details"]["reason"]) == (400, "NO_ENROLLMENT_PENDING")

    for body, field in (
        ({"code": "123456"}, "secret"),
        ({"secret": "x"}, "code"),
        ({"secret": "x", "code": "12ab"}, "code"),
    ):
        response = _confirm(api, eu, **body)
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == field, body

    wrong = _confirm(api, eu, secret=second["secret"], code="000000")
    assert wrong.json()["details"] == {"reason": "INVALID_CODE", "attemptsLeft": 4}
    clock.advance(dt.timedelta(minutes=15, seconds=1))
    late = _confirm(api, eu, secret=second["secret"], code=SANDBOX_SCA_CODE)
    assert (late.status_code, late.json()["details"]["reason"]) == (400, "CHALLENGE_EXPIRED")
    assert not ScaTotp.objects.exists()


def test_a_pending_totp_enrollment_leaves_a_pending_passkey_enrollment_alone(api, eu):
    passkey = api.post(sca_path("/sca/factors", eu), {"type": "PASSKEY"})
    api.post(sca_path("/sca/factors", eu), {"type": "TOTP"})
    assert ScaChallenge.objects.filter(kind="ENROLLMENT", status="PENDING").count() == 2
    assert passkey.status_code == 200


# --- login ----------------------------------------------------------------------------------------


def test_a_totp_login_opens_the_session_payments_need(api, eu):
    enroll_totp(api, eu, code=SANDBOX_SCA_CODE)
    response = totp_login(api, eu, SANDBOX_SCA_CODE)
    assert response.status_code == 200 and response.json()["status"] == "SUCCESS"
    assert totp_login(api, eu, SANDBOX_SCA_CODE).status_code == 200  # the sandbox code stays valid

    source = funded_account(eu, 100_000)
    quote = api.post("/quotes", quote_body(source.public_id, usd_external(api.platform, eu).public_id, 1_000))
    path = f"/quotes/{quote.json()['id']}/execute"
    refused = api.post(path, {"scaFactor": "TOTP"})  # no dynamic linking: never a payment's factor
    assert refused.status_code == 400 and refused.json()["details"]["errors"][0]["field"] == "scaFactor"
    held = api.post(path).json()
    assert held["scaChallenge"]["availableFactors"] == ["SMS_OTP"]
    assert api.post(f"/quotes/{held['id']}/authorize", {"code": SANDBOX_SCA_CODE}).status_code == 200


def test_totp_login_needs_an_enrolled_factor_and_a_code(api, eu):
    response = api.post(sca_path("/sca/login/start", eu), {"factor": "TOTP"})
    assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "factor"
    complete = sca_path("/sca/login/complete", eu)
    no_factor = api.post(complete, {"factor": "TOTP", "code": "123456", "endUserIpAddress": IP})
    assert no_factor.status_code == 400 and no_factor.json()["details"]["errors"][0]["field"] == "factor"
    enroll_totp(api, eu, code=SANDBOX_SCA_CODE)
    for code in ("12345", "1234567", "ABCD-EFGH", "abcd efgh ijkl"):
        response = api.post(complete, {"factor": "TOTP", "code": code, "endUserIpAddress": IP})
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "code", (
            code
        )


def test_production_accepts_real_codes_with_one_step_of_drift_either_side(api, eu, production):
    mid_step()
    secret, _ = enroll_totp(api, eu)  # the current step's code, now used
    assert totp_login(api, eu, _code(secret)).json()["details"]["reason"] == "CODE_ALREADY_USED"
    if _code(secret, 1) != SANDBOX_SCA_CODE:
        assert totp_login(api, eu, SANDBOX_SCA_CODE).json()["details"]["reason"] == "INVALID_CODE"

    clock.advance(2 * STEP)
    assert totp_login(api, eu, _code(secret, -1)).status_code == 200  # an app 30 s behind
    assert totp_login(api, eu, _code(secret, +1)).status_code == 200  # an app 30 s ahead
    ahead = totp_login(api, eu, _code(secret, +2))
    assert (ahead.status_code, ahead.json()["details"]["reason"]) == (400, "INVALID_CODE")
    clock.advance(4 * STEP)
    behind = totp_login(api, eu, _code(secret, -2))
    assert (behind.status_code, behind.json()["details"]["reason"]) == (400, "INVALID_CODE")
    assert totp_login(api, eu, _code(secret)).status_code == 200


def test_a_code_is_never_accepted_twice_nor_an_older_one_after_it(api, eu, production):
    mid_step()
    secret, _ = enroll_totp(api, eu)
    clock.advance(3 * STEP)
    assert totp_login(api, eu, _code(secret)).status_code == 200
    replay = totp_login(api, eu, _code(secret))
    assert (replay.status_code, replay.json()["details"]["reason"]) == (400, "CODE_ALREADY_USED")
    older = totp_login(api, eu, _code(secret, -1))  # still inside the drift window, but older
    assert older.json()["details"]["reason"] == "CODE_ALREADY_USED"
    clock.advance(STEP)
    assert totp_login(api, eu, _code(secret)).status_code == 200  # the next step's code


def test_production_enrollment_needs_the_apps_real_code(api, eu, production):
    started = api.post(sca_path("/sca/factors", eu), {"type": "TOTP"}).json()
    secret = started["secretBase32Encoded"]
    if _code(secret) != SANDBOX_SCA_CODE and _code(secret, -1) != SANDBOX_SCA_CODE:
        assert _confirm(api, eu, secret=started["secret"], code=SANDBOX_SCA_CODE).status_code == 400
    assert _confirm(api, eu, secret=started["secret"], code=_code(secret)).status_code == 200


def test_recovery_codes_each_stand_in_for_a_code_once(api, eu, production):
    _, codes = enroll_totp(api, eu)
    first = totp_login(api, eu, codes[0])
    assert first.status_code == 200, first.json()
    again = totp_login(api, eu, codes[0])
    assert (again.status_code, again.json()["details"]["reason"]) == (400, "INVALID_CODE")
    assert totp_login(api, eu, codes[1].lower().replace("-", "")).status_code == 200  # as typed
    assert len(ScaTotp.objects.get(customer=eu).recovery_code_digests) == 8
    assert totp_login(api, eu, "ABCD-EFGH-JKLM").status_code == 400


def test_wrong_totp_codes_count_towards_the_lock(api, eu, production):
    mid_step()
    secret, _ = enroll_totp(api, eu)
    wrong = f"{(int(_code(secret, 5)) + 1) % 1_000_000:06d}"
    for left in (4, 3, 2, 1):
        assert totp_login(api, eu, wrong).json()["details"]["attemptsLeft"] == left
    locked = totp_login(api, eu, wrong)
    assert (locked.status_code, locked.json()["code"]) == (423, "ACCOUNT_LOCKED")
    clock.advance(STEP)
    right = {"factor": "TOTP", "code": _code(secret), "endUserIpAddress": IP}
    assert api.post(sca_path("/sca/login/complete", eu), right).status_code == 423  # even the right code
