"""Recovering access through the API: security events a platform records (the lock-out ladder, a
password reset) and the liveness-gated reset of a lost factor."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from payments.models import ScaFactorReset, ScaPasskey, ScaTotp
from payments.sca import RESET_TRANSITIONS, sca_factor_reset_review
from payments.state_machines import IllegalTransition
from tests.payments.money_support import consenting_customer, reference_validator
from tests.payments.sca_support import (
    EU_ADDRESS,
    IP,
    PHONE,
    SANDBOX_SCA_CODE,
    enroll_passkey,
    enroll_totp,
    sca_login,
    sca_path,
)

pytestmark = pytest.mark.django_db

EVENT = reference_validator("RecordSecurityEventResponse")
RESET_START = reference_validator("TwoFactorResetStart")
RESET_STATUS = reference_validator("TwoFactorResetStatus")
UNKNOWN_RESET = "ScaFactorReset:00000000-0000-7000-8000-000000000000"


@pytest.fixture
def eu(api):
    customer, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    return customer


def _event(api, customer, event_type):
    return api.post(sca_path("/sca/record-event", customer), {"eventType": event_type})


# --- security events ------------------------------------------------------------------------------


def test_failed_logins_climb_the_ladder_to_suspension(api, eu):
    for count in range(1, 5):
        body = _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()
        EVENT.validate(body)
        assert body == {
            "eventType": "FAILED_LOGIN_ATTEMPT",
            "suspended": False,
            "lockedUntil": None,
            "failedAttempts": count,
        }
    for count, lock in (
        (5, dt.timedelta(minutes=15)),
        (6, dt.timedelta(minutes=30)),
        (7, dt.timedelta(hours=1)),
        (8, dt.timedelta(hours=24)),
    ):
        body = _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()
        assert body["failedAttempts"] == count and not body["suspended"]
        assert dt.datetime.fromisoformat(body["lockedUntil"]) - clock.now() == pytest.approx(
            lock, abs=dt.timedelta(seconds=2)
        )
        while_locked = _event(api, eu, "FAILED_LOGIN_ATTEMPT")  # not counted
        assert (while_locked.status_code, while_locked.json()["code"]) == (423, "ACCOUNT_LOCKED")
        assert while_locked.json()["details"]["failedAttempts"] == count
        login = api.post(sca_path("/sca/login/start", eu), {"factor": "SMS_OTP"})
        assert login.status_code == 423  # the SCA login is locked too
        clock.advance(lock + dt.timedelta(seconds=1))
    suspended = _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()
    assert suspended == {
        "eventType": "FAILED_LOGIN_ATTEMPT",
        "suspended": True,
        "lockedUntil": None,
        "failedAttempts": 9,
    }
    clock.advance(dt.timedelta(days=30))
    refused = api.post(sca_path("/sca/login/start", eu), {"factor": "SMS_OTP"})
    assert (refused.status_code, refused.json()["details"]["suspended"]) == (423, True)
    assert "lockedUntil" not in refused.json()["details"]

    reset = _event(api, eu, "RESET_PASSWORD_COMPLETED")
    assert reset.json() == {
        "eventType": "RESET_PASSWORD_COMPLETED",
        "suspended": False,
        "lockedUntil": None,
        "failedAttempts": 0,
    }
    assert sca_login(api, eu).status_code == 200


def test_wrong_sca_codes_and_failed_logins_share_one_count(api, eu):
    for _ in range(3):
        _event(api, eu, "FAILED_LOGIN_ATTEMPT")
    started = api.post(sca_path("/sca/login/start", eu), {"factor": "SMS_OTP"}).json()
    body = {"factor": "SMS_OTP", "challengeId": started["challengeId"], "endUserIpAddress": IP}
    wrong = api.post(sca_path("/sca/login/complete", eu), {**body, "code": "000000"})
    assert wrong.json()["details"]["attemptsLeft"] == 1
    assert _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()["failedAttempts"] == 5  # locked now
    clock.advance(dt.timedelta(minutes=16))
    again = api.post(sca_path("/sca/login/complete", eu), {**body, "code": "000000"})
    assert again.status_code == 400 and again.json()["details"]["reason"] == "CHALLENGE_EXPIRED"
    # A sixth failure locks for 30 minutes at once; a right proof then clears the count.
    assert _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()["failedAttempts"] == 6
    clock.advance(dt.timedelta(minutes=31))
    assert sca_login(api, eu).status_code == 200
    assert _event(api, eu, "FAILED_LOGIN_ATTEMPT").json()["failedAttempts"] == 1


def test_a_password_reset_ends_the_sca_session(api, eu):
    assert sca_login(api, eu).status_code == 200
    _event(api, eu, "RESET_PASSWORD_COMPLETED")
    from tests.payments.money_support import funded_account, quote_body, usd_external

    source = funded_account(eu, 100_000)
    quote = api.post(
        "/quotes", quote_body(source.public_id, usd_external(api.platform, eu).public_id, 1_000)
    ).json()
    held = api.post(f"/quotes/{quote['id']}/execute").json()
    response = api.post(f"/quotes/{held['id']}/authorize", {"code": SANDBOX_SCA_CODE})
    assert (response.status_code, response.json()["code"]) == (409, "SCA_SESSION_REQUIRED")


def test_record_event_refuses_bad_input_and_unknown_customers(api, eu):
    for body in ({}, {"eventType": "LOGGED_IN"}, {"eventType": 5}):
        response = api.post(sca_path("/sca/record-event", eu), body)
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "eventType"
    unknown = api.post(
        sca_path("/sca/record-event", "Customer:00000000-0000-7000-8000-000000000000"),
        {"eventType": "FAILED_LOGIN_ATTEMPT"},
    )
    assert unknown.status_code == 404


# --- factor resets --------------------------------------------------------------------------------


def _start(api, customer, factor):
    return api.post(sca_path("/sca/factors/reset", customer), {"factor": factor})


def _status(api, customer, reset_id):
    return api.get(sca_path(f"/sca/factors/reset/{reset_id}", customer))


def _complete(api, customer, reset_id, body=None):
    return api.post(sca_path(f"/sca/factors/reset/{reset_id}/complete", customer), body or {})


def test_a_totp_reset_passes_liveness_clears_the_factor_and_waits_for_reenrollment(api, eu):
    enroll_totp(api, eu, code=SANDBOX_SCA_CODE)
    started = _start(api, eu, "TOTP")
    assert started.status_code == 201, started.json()
    RESET_START.validate(started.json())
    reset_id = started.json()["resetId"]
    assert reset_id.startswith("ScaFactorReset:") and "verificationLink" not in started.json()
    expires = dt.datetime.fromisoformat(started.json()["expiresAt"])
    assert expires - clock.now() == pytest.approx(dt.timedelta(minutes=30), abs=dt.timedelta(seconds=2))

    seen = []
    for _ in range(3):
        body = _status(api, eu, reset_id).json()
        RESET_STATUS.validate(body)
        seen.append(body["status"])
        if body["status"] != "LIVENESS_PASSED":
            early = _complete(api, eu, reset_id)
            assert (early.status_code, early.json()["details"]["reason"]) == (400, "RESET_NOT_READY")
        clock.advance(dt.timedelta(seconds=5))
    assert seen == ["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED"]
    assert ScaTotp.objects.filter(customer=eu).exists()

    done = _complete(api, eu, reset_id)
    assert done.status_code == 204
    assert not ScaTotp.objects.filter(customer=eu).exists()
    assert _complete(api, eu, reset_id).status_code == 204  # a repeat is a no-op
    body = _status(api, eu, reset_id).json()
    assert (body["status"], body["factor"], body["enrollmentStatus"]) == ("COMPLETED", "TOTP", "PENDING")
    assert body["completedAt"] is not None
    assert api.get(sca_path("/sca/factors", eu)).json()["factors"] == [{"factor": "SMS_OTP"}]

    enroll_totp(api, eu, code=SANDBOX_SCA_CODE)
    assert _status(api, eu, reset_id).json()["enrollmentStatus"] == "COMPLETED"


def test_an_sms_reset_enrolls_the_new_mobile_number(api, eu):
    reset_id = _start(api, eu, "SMS_OTP").json()["resetId"]
    clock.advance(dt.timedelta(seconds=11))
    missing = _complete(api, eu, reset_id)
    assert missing.status_code == 400 and missing.json()["details"]["errors"][0]["field"] == "mobile"
    bad = _complete(api, eu, reset_id, {"mobile": {"countryCode": "49", "number": "151-1"}})
    assert {e["field"] for e in bad.json()["details"]["errors"]} == {"mobile.countryCode", "mobile.number"}
    done = _complete(api, eu, reset_id, {"mobile": {"countryCode": "+49", "number": "15199998888"}})
    assert done.status_code == 204
    eu.refresh_from_db()
    assert eu.phone_number == "+4915199998888"
    status = _status(api, eu, reset_id).json()
    assert status["enrollmentStatus"] is None and status["status"] == "COMPLETED"


def test_a_passkey_reset_removes_the_passkey(api, eu):
    enroll_passkey(api, eu)
    reset_id = _start(api, eu, "PASSKEY").json()["resetId"]
    clock.advance(dt.timedelta(seconds=10))
    assert _complete(api, eu, reset_id).status_code == 204
    assert not ScaPasskey.objects.filter(customer=eu).exists()
    assert _status(api, eu, reset_id).json()["enrollmentStatus"] == "PENDING"


def test_sandbox_liveness_fails_for_names_ending_002_and_open_resets_expire(api):
    rejected, _ = consenting_customer(
        api.platform, address=EU_ADDRESS, phone_number=PHONE, full_name="Max 002"
    )
    reset_id = _start(api, rejected, "SMS_OTP").json()["resetId"]
    clock.advance(dt.timedelta(seconds=10))
    assert _status(api, rejected, reset_id).json()["status"] == "REJECTED"
    refused = _complete(api, rejected, reset_id, {"mobile": {"countryCode": "+49", "number": "1511234"}})
    assert (refused.status_code, refused.json()["details"]["status"]) == (400, "REJECTED")

    clock.advance(dt.timedelta(minutes=30))
    assert _status(api, rejected, reset_id).json()["status"] == "REJECTED"  # terminal

    passed, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    unfinished = _start(api, passed, "SMS_OTP").json()["resetId"]
    clock.advance(dt.timedelta(seconds=10))
    assert _status(api, passed, unfinished).json()["status"] == "LIVENESS_PASSED"
    clock.advance(dt.timedelta(minutes=30))
    late = _complete(api, passed, unfinished, {"mobile": {"countryCode": "+49", "number": "1511234"}})
    assert (late.status_code, late.json()["details"]["status"]) == (400, "EXPIRED")
    assert _status(api, passed, unfinished).json()["status"] == "EXPIRED"


def test_a_new_reset_closes_the_open_one_and_five_a_day_at_most(api, eu):
    first = _start(api, eu, "SMS_OTP").json()["resetId"]
    second = _start(api, eu, "SMS_OTP").json()["resetId"]
    assert _status(api, eu, first).json()["status"] == "EXPIRED"
    assert _status(api, eu, second).json()["status"] == "INITIATED"
    for _ in range(3):
        assert _start(api, eu, "SMS_OTP").status_code == 201
    limited = _start(api, eu, "SMS_OTP")
    assert (limited.status_code, limited.json()["code"]) == (429, "RATE_LIMITED")
    assert int(limited["Retry-After"]) > 23 * 3600
    clock.advance(dt.timedelta(hours=24))
    assert _start(api, eu, "SMS_OTP").status_code == 201


def test_reset_input_unknown_ids_and_other_customers(api, eu):
    for body in ({}, {"factor": "EMAIL"}):
        response = api.post(sca_path("/sca/factors/reset", eu), body)
        assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "factor"
    not_enrolled = _start(api, eu, "TOTP")
    assert (
        not_enrolled.status_code == 400 and not_enrolled.json()["details"]["errors"][0]["field"] == "factor"
    )

    for reset_id in (UNKNOWN_RESET, "r1"):
        assert _status(api, eu, reset_id).status_code == 404
        assert _complete(api, eu, reset_id).status_code == 404
    reset_id = _start(api, eu, "SMS_OTP").json()["resetId"]
    other, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    assert _status(api, other, reset_id).status_code == 404
    assert _complete(api, other, reset_id).status_code == 404
    assert ScaFactorReset.objects.get().status == "INITIATED"


def test_staff_record_the_liveness_outcome_in_production(api, eu, settings):
    settings.SANDBOX, settings.PRODUCTION = False, True
    reset_id = _start(api, eu, "SMS_OTP").json()["resetId"]
    clock.advance(dt.timedelta(minutes=5))
    assert _status(api, eu, reset_id).json()["status"] == "INITIATED"  # no simulated check
    reset = ScaFactorReset.objects.get()
    sca_factor_reset_review(reset=reset, passed=True)
    assert _status(api, eu, reset_id).json()["status"] == "LIVENESS_PASSED"
    with pytest.raises(IllegalTransition):
        sca_factor_reset_review(reset=reset, passed=False)


def test_the_reset_state_machine_has_no_way_out_of_a_terminal_status():
    assert (
        RESET_TRANSITIONS["COMPLETED"]
        == RESET_TRANSITIONS["REJECTED"]
        == RESET_TRANSITIONS["EXPIRED"]
        == frozenset()
    )
    assert "COMPLETED" in RESET_TRANSITIONS["LIVENESS_PASSED"]
    assert "COMPLETED" not in RESET_TRANSITIONS["INITIATED"] | RESET_TRANSITIONS["PENDING_REVIEW"]


def test_staff_decide_in_the_admin(api, eu, settings, admin_client):
    settings.SANDBOX, settings.PRODUCTION = False, True
    reset_id = _start(api, eu, "SMS_OTP").json()["resetId"]
    reset = ScaFactorReset.objects.get()
    listing = admin_client.get("/admin/payments/scafactorreset/")
    assert reset.public_id in listing.content.decode()
    response = admin_client.post(
        "/admin/payments/scafactorreset/",
        {"action": "liveness_rejected", "_selected_action": [str(reset.pk)]},
        follow=True,
    )
    assert "REJECTED" in response.content.decode()
    assert _status(api, eu, reset_id).json()["status"] == "REJECTED"
    again = admin_client.post(
        "/admin/payments/scafactorreset/",
        {"action": "liveness_passed", "_selected_action": [str(reset.pk)]},
        follow=True,
    )
    assert "cannot move" in again.content.decode()
    _, codes = enroll_totp(api, eu)  # production: the app's real code
    totp_page = admin_client.get(
        f"/admin/payments/scatotp/{ScaTotp.objects.get().pk}/change/"
    ).content.decode()
    assert eu.platform_customer_id in totp_page or str(eu) in totp_page
    assert ScaTotp.objects.get().secret_sealed not in totp_page and codes[0] not in totp_page
