"""Wallet rules follow the platform's sandbox clock (`/sandbox/clock`): session lifetimes, one-time
code expiry and lock windows, resend limits; another platform's wallets keep real time, and so do
outside parties' times (an identity provider's tokens)."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from tests.wallets.conftest import Wallet, wallet_for
from tests.wallets.test_oidc import CPK, SUBJECT, sandbox_token
from wallets.oidc import oidc_token_check

pytestmark = pytest.mark.django_db


def _advance(api, by: str) -> None:
    assert api.post("/sandbox/clock/advance", {"by": by}).status_code == 200


def _sessions(wallet: Wallet) -> list[dict]:
    return wallet.api.get("/auth/sessions", {"accountId": wallet.account_id}).json()["data"]


def test_sessions_lapse_by_their_platforms_clock_only(wallet: Wallet, other_api):
    theirs = wallet_for(other_api)
    wallet.otp_login()
    theirs.otp_login()
    _advance(wallet.api, "PT15M1S")
    assert _sessions(wallet) == []
    assert len(_sessions(theirs)) == 1


def test_a_code_expires_and_a_lock_lifts_by_the_platforms_clock(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, _ = wallet.otp_bundle(credential_id)
    _advance(wallet.api, "PT5M1S")
    response = wallet.api.post(f"/auth/credentials/{credential_id}/verify", body)
    assert response.status_code == 401 and "expired" in response.json()["message"]

    wrong, _ = wallet.otp_bundle(credential_id, code="999999")
    for _ in range(5):
        response = wallet.api.post(f"/auth/credentials/{credential_id}/verify", wrong)
    assert response.status_code == 423
    _advance(wallet.api, "PT14M")
    assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 423
    _advance(wallet.api, "PT1M1S")
    wallet.otp_login(credential_id)


def test_the_resend_window_reopens_by_the_platforms_clock(wallet: Wallet):
    credential_id = wallet.credential_id()
    for _ in range(5):
        assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 200
    assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 429
    _advance(wallet.api, "PT10M1S")
    assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 200


def test_an_identity_providers_token_is_checked_against_real_time_on_a_moved_clock():
    token = sandbox_token()  # issued now, by a provider on real time
    with clock.platform_offset(dt.timedelta(days=1)):
        assert oidc_token_check(token=token, client_public_key=CPK, production=False).sub == SUBJECT
