"""Concurrent signed retries on PostgreSQL: one operation, whatever the number of identical requests.

Policy: the first retry to lock the request row performs the operation and its answer delivers the
outcome; every other retry naming the Request-Id, identical or not, then finds it spent: 401.
"""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments import clock
from payments.client import wallet_crypto as client
from tests.conftest import API, basic
from tests.wallets.conftest import wallet_for
from wallets.models import AuthCredential, AuthSession

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 20


def _send_all(api, method: str, path: str, body, header_sets: list[dict]) -> list:
    barrier = threading.Barrier(len(header_sets))

    def send(headers: dict):
        http = APIClient()
        http.credentials(HTTP_AUTHORIZATION=basic(api.token.client_id, api.secret))
        try:
            barrier.wait(timeout=30)
            return getattr(http, method)(API + path, body, format="json", **headers)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(header_sets)) as pool:
        return list(pool.map(send, header_sets))


def test_the_same_signed_retry_twenty_times_creates_one_credential_and_answers_once(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    challenge = api.post("/auth/credentials", body).json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }
    responses = _send_all(api, "post", "/auth/credentials", body, [headers] * THREADS)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [401] * (THREADS - 1), [r.content for r in responses]
    assert {r.json()["code"] for r in responses if r.status_code == 401} == {"UNAUTHORIZED"}
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").count() == 1


def test_the_same_otp_verify_retry_twenty_times_opens_one_session_and_answers_once(api):
    """OTP verify's operation runs without a savepoint (`performs(savepoint=False)`); the request row
    lock still lets exactly one retry open the session."""
    wallet = wallet_for(api)
    credential_id = wallet.credential_id()
    body, tek = wallet.otp_bundle(credential_id)
    path = f"/auth/credentials/{credential_id}/verify"
    challenge = api.post(path, body).json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }
    responses = _send_all(api, "post", path, body, [headers] * THREADS)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [401] * (THREADS - 1), [r.content for r in responses]
    assert AuthSession.objects.filter(account=wallet.account).count() == 1


def test_twenty_different_challenges_for_the_same_credential_create_it_once(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    header_sets = []
    for _ in range(THREADS):
        challenge = api.post("/auth/credentials", body).json()
        header_sets.append(
            {
                "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(
                    challenge["payloadToSign"], tek.private_key_hex
                ),
                "HTTP_REQUEST_ID": challenge["requestId"],
            }
        )
    responses = _send_all(api, "post", "/auth/credentials", body, header_sets)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * (THREADS - 1), [r.content for r in responses]
    assert {r.json()["code"] for r in responses if r.status_code == 400} == {
        "SMS_OTP_CREDENTIAL_ALREADY_EXISTS"
    }
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").count() == 1


def test_concurrent_revocations_never_remove_the_last_credential(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    email_tek, _ = wallet.otp_login()
    created = wallet.signed(
        "post",
        "/auth/credentials",
        {"type": "SMS_OTP", "accountId": wallet.account_id},
        email_tek.private_key_hex,
    ).json()
    sms_tek, _ = wallet.otp_login(created["id"])
    email_id = wallet.credential_id("EMAIL_OTP")
    # Each credential's revocation, stamped by the other's session, sent at the same moment.
    plans = []
    for credential_id, tek in ((email_id, sms_tek), (created["id"], email_tek)):
        challenge = api.delete(f"/auth/credentials/{credential_id}").json()
        plans.append(
            (
                credential_id,
                {
                    "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(
                        challenge["payloadToSign"], tek.private_key_hex
                    ),
                    "HTTP_REQUEST_ID": challenge["requestId"],
                },
            )
        )
    barrier = threading.Barrier(2)

    def revoke(plan):
        credential_id, headers = plan
        http = APIClient()
        http.credentials(HTTP_AUTHORIZATION=basic(api.token.client_id, api.secret))
        try:
            barrier.wait(timeout=30)
            return http.delete(f"{API}/auth/credentials/{credential_id}", **headers)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        responses = list(pool.map(revoke, plans))
    assert AuthCredential.objects.filter(account=wallet.account, revoked_at__isnull=True).count() == 1
    assert sorted(r.status_code for r in responses) in ([204, 400], [204, 401])


def test_concurrent_re_sends_of_a_settled_operation_deliver_its_outcome_once(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    challenge = api.post("/auth/credentials", body).json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }
    slow = api.post("/auth/credentials", body, **headers, HTTP_SERVICE_SANDBOX_SIMULATE="slow-wallet")
    assert slow.json()["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=6))  # due: the first re-send to lock it settles and collects it
    responses = _send_all(api, "post", "/auth/credentials", body, [headers] * THREADS)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [401] * (THREADS - 1), [r.content for r in responses]
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").count() == 1
