"""On PostgreSQL: a slow-wallet operation that is due, settled at once by its Celery task, by reads
and by identical re-sends, is applied exactly once and its outcome answered once. One case per
operation the switch reaches through the one-call path or the customer PATCH."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments import clock
from payments.client import wallet_crypto as client
from tests.conftest import API, basic
from tests.wallets.conftest import Wallet, wallet_for
from tests.wallets.test_oauth_flow import oidc_token
from wallets import signed_retry
from wallets.models import AuthCredential, AuthSession, OtpChallenge, SignedRequest
from wallets.tasks import wallet_operation_settle_task

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SLOW = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}
EACH = 4  # tasks, reads and re-sends, all at once


@dataclass
class Case:
    kind: str
    resend: Callable[[APIClient], object]  # the identical request
    reads: list[Callable[[APIClient], object]]
    applied: Callable[[], int]  # how many times its effect shows


def _otp_challenge(wallet: Wallet) -> Case:
    path = f"/auth/credentials/{wallet.credential_id()}/challenge"
    assert wallet.api.post(path, **SLOW).json()["status"] == "PROCESSING"
    before = OtpChallenge.objects.count()
    return Case(
        "CREDENTIAL_CHALLENGE",
        lambda http: http.post(API + path, format="json", **SLOW),
        [lambda http: http.get(f"{API}/auth/credentials", {"accountId": wallet.account_id})],
        lambda: OtpChallenge.objects.count() - before,
    )


def _oauth_verify(wallet: Wallet) -> Case:
    tek, _ = wallet.otp_login()
    created = wallet.signed(
        "post",
        "/auth/credentials",
        {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": oidc_token()},
        tek.private_key_hex,
    )
    assert created.status_code == 201, created.content
    key = client.generate_key_pair().public_key_hex_compressed
    path = f"/auth/credentials/{created.json()['id']}/verify"
    body = {"type": "OAUTH", "oidcToken": oidc_token(client_public_key=key), "clientPublicKey": key}
    assert wallet.api.post(path, body, **SLOW).json()["status"] == "PROCESSING"
    return Case(
        "OAUTH_LOGIN",
        lambda http: http.post(API + path, body, format="json", **SLOW),
        [lambda http: http.get(f"{API}/auth/sessions", {"accountId": wallet.account_id})],
        lambda: AuthSession.objects.filter(public_key=key).count(),
    )


def _contact_change(wallet: Wallet) -> Case:
    tek, _ = wallet.otp_login()
    path = f"/customers/{wallet.customer.public_id}"
    body = {"customerType": "INDIVIDUAL", "email": "raced@example.com"}
    challenge = wallet.api.patch(path, body).json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }
    assert wallet.api.patch(path, body, **headers, **SLOW).json()["status"] == "PROCESSING"
    return Case(
        "CONTACT_UPDATE",
        lambda http: http.patch(API + path, body, format="json", **headers),
        [
            lambda http: http.get(API + path),
            lambda http: http.get(f"{API}/auth/credentials", {"accountId": wallet.account_id}),
        ],
        lambda: AuthCredential.objects.filter(account=wallet.account, contact="raced@example.com").count(),
    )


@pytest.mark.parametrize("setup", [_otp_challenge, _oauth_verify, _contact_change], ids=lambda f: f.__name__)
def test_task_reads_and_re_sends_racing_apply_the_outcome_once(api, monkeypatch, setup):
    wallet = wallet_for(api)
    case = setup(wallet)
    (request,) = SignedRequest.objects.filter(kind=case.kind, status="PROCESSING")
    performed = []
    perform = signed_retry._PERFORMS[case.kind]

    def counted(row):
        performed.append(row.pk)
        return perform(row)

    monkeypatch.setitem(signed_retry._PERFORMS, case.kind, counted)
    clock.advance(dt.timedelta(seconds=6))  # due

    def task(_http):
        return wallet_operation_settle_task.apply(args=[str(request.pk)], throw=True)

    calls = [("task", task)] * EACH + [("resend", case.resend)] * EACH
    calls += [("read", read) for read in case.reads for _ in range(EACH)]
    barrier = threading.Barrier(len(calls))

    def run(call):
        http = APIClient()
        http.credentials(HTTP_AUTHORIZATION=basic(api.token.client_id, api.secret))
        try:
            barrier.wait(timeout=30)
            return call[0], call[1](http)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        results = list(pool.map(run, calls))

    assert performed == [request.pk]  # settled once, whoever got there first
    assert case.applied() == 1
    request.refresh_from_db()
    assert request.status == "COMPLETED" and request.delivered_at is not None
    assert all(r.status_code == 200 for name, r in results if name == "read")
    answers = [r for name, r in results if name == "resend"]
    outcomes = [r for r in answers if r.status_code == 200 and r.json().get("status") != "PROCESSING"]
    assert len(outcomes) == 1, [(r.status_code, r.content) for r in answers]
    # The rest found it delivered: the spent Request-Id (401), or, for a one-call operation, a new
    # operation of its own that is not due yet (PROCESSING).
    assert all(
        r.status_code == 401 or r.json().get("status") == "PROCESSING" for r in answers if r not in outcomes
    )
