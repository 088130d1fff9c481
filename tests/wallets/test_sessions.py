"""Sessions: list, refresh, revoke, expiry, and the stamp check payments calls (the one seam)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet, wallet_for
from wallets.errors import WalletSignatureInvalid, WalletSignatureMalformed, WalletSignatureMissing
from wallets.models import AuthCredential, CredentialType
from wallets.sessions import session_open
from wallets.stamp_check import wallet_stamp_verify
from wallets.wire import AuthSessionSerializer, auth_session

pytestmark = pytest.mark.django_db


def _sessions(wallet: Wallet) -> list[dict]:
    response = wallet.api.get("/auth/sessions", {"accountId": wallet.account_id})
    assert response.status_code == 200
    return response.json()["data"]


def test_list_shows_active_sessions_until_they_expire(wallet: Wallet):
    _, session = wallet.otp_login()
    (listed,) = _sessions(wallet)
    assert listed == session
    assert set(listed) == {"id", "accountId", "type", "nickname", "createdAt", "updatedAt", "expiresAt"}
    expires = dt.datetime.fromisoformat(session["expiresAt"].replace("Z", "+00:00"))
    assert expires - clock.now() <= dt.timedelta(minutes=15)
    clock.advance(dt.timedelta(minutes=15, seconds=1))
    assert _sessions(wallet) == []


@pytest.mark.parametrize("credential_type", [CredentialType.EMAIL_OTP, CredentialType.PASSKEY])
@pytest.mark.parametrize("legacy_key", [False, True])
def test_a_session_renders_what_its_documented_fields_give(wallet: Wallet, credential_type, legacy_key):
    """`auth_session` is built by hand; its bytes are those of AuthSessionSerializer's fields, with
    `credentialId` for passkeys only and `encryptedSessionSigningKey` in the legacy flow."""
    credential = AuthCredential.objects.filter(account=wallet.account).first()
    if credential_type == CredentialType.PASSKEY:
        credential = AuthCredential.objects.create(
            platform=wallet.account.platform,
            account=wallet.account,
            type=credential_type,
            nickname="Laptop",
            credential_id="cred-id_1",
        )
    key = client.generate_key_pair()
    session, encrypted_key = session_open(
        credential=credential,
        client_public_key=key.public_key_hex_uncompressed if legacy_key else key.public_key_hex_compressed,
    )
    expected = dict(AuthSessionSerializer(session).data)
    if credential_type != CredentialType.PASSKEY:
        del expected["credentialId"]
    if legacy_key:
        expected["encryptedSessionSigningKey"] = encrypted_key
    assert json.dumps(auth_session(session, encrypted_key=encrypted_key)) == json.dumps(expected)


def test_list_validates_and_isolates(wallet: Wallet, other_api):
    wallet.otp_login()
    assert wallet.api.get("/auth/sessions").status_code == 400
    assert other_api.get("/auth/sessions", {"accountId": wallet.account_id}).json() == {"data": []}


def test_session_lifetime_is_a_setting(wallet: Wallet, settings):
    settings.WALLET_SESSION_SECONDS = 60
    _, session = wallet.otp_login()
    expires = dt.datetime.fromisoformat(session["expiresAt"].replace("Z", "+00:00"))
    assert dt.timedelta(seconds=55) < expires - clock.now() <= dt.timedelta(seconds=60)


# --- revoke ------------------------------------------------------------------------------------


def test_a_session_may_revoke_itself(wallet: Wallet):
    tek, session = wallet.otp_login()
    path = f"/auth/sessions/{session['id']}"
    response = wallet.signed("delete", path, None, tek.private_key_hex)
    assert response.status_code == 204
    assert _sessions(wallet) == []
    # Revoked: it authorizes nothing, and revoking it again is 404.
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, tek.private_key_hex
    )
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"
    assert wallet.api.delete(path).status_code == 404


def test_another_session_of_the_wallet_may_revoke_one(wallet: Wallet):
    first_tek, first = wallet.otp_login()
    _, second = wallet.otp_login()
    response = wallet.signed("delete", f"/auth/sessions/{second['id']}", None, first_tek.private_key_hex)
    assert response.status_code == 204
    assert [s["id"] for s in _sessions(wallet)] == [first["id"]]


def test_revoke_unknown_expired_or_foreign_session_is_404(wallet: Wallet, other_api):
    _, session = wallet.otp_login()
    assert wallet.api.delete("/auth/sessions/Session:01900000-0000-7000-8000-000000000000").status_code == 404
    assert wallet.api.delete("/auth/sessions/rubbish").status_code == 404
    assert other_api.delete(f"/auth/sessions/{session['id']}").status_code == 404
    clock.advance(dt.timedelta(minutes=16))
    assert wallet.api.delete(f"/auth/sessions/{session['id']}").status_code == 404


def test_revoke_retry_is_signed_by_a_session_of_this_wallet(api):
    wallet, other = wallet_for(api), wallet_for(api)
    _, session = wallet.otp_login()
    other_tek, _ = other.otp_login()
    response = wallet.signed("delete", f"/auth/sessions/{session['id']}", None, other_tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"


# --- refresh -----------------------------------------------------------------------------------


def test_refresh_with_a_client_held_key(wallet: Wallet):
    tek, session = wallet.otp_login()
    new_key = client.generate_key_pair()
    body = {"clientPublicKey": new_key.public_key_hex_compressed}
    path = f"/auth/sessions/{session['id']}/refresh"
    first = wallet.api.post(path, body)
    assert first.status_code == 202
    assert set(first.json()) == {"payloadToSign", "requestId", "expiresAt"}
    response = wallet.signed_retry("post", path, body, first.json(), tek.private_key_hex)
    assert response.status_code == 201, response.content
    refreshed = response.json()
    assert refreshed["id"] != session["id"] and refreshed["type"] == "EMAIL_OTP"
    assert "encryptedSessionSigningKey" not in refreshed
    assert {s["id"] for s in _sessions(wallet)} == {session["id"], refreshed["id"]}
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, new_key.private_key_hex
    )
    assert response.status_code == 200


def test_refresh_with_an_uncompressed_key_returns_the_sealed_session_key(wallet: Wallet):
    tek, session = wallet.otp_login()
    client_key = client.generate_key_pair()
    body = {"clientPublicKey": client_key.public_key_hex_uncompressed}
    response = wallet.signed("post", f"/auth/sessions/{session['id']}/refresh", body, tek.private_key_hex)
    assert response.status_code == 201
    session_key = client.credential_bundle_open(
        response.json()["encryptedSessionSigningKey"], client_key.private_key_hex
    )
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, session_key.hex()
    )
    assert response.status_code == 200


def test_refresh_binds_the_key_and_the_session(wallet: Wallet):
    tek, session = wallet.otp_login()
    other_tek, _ = wallet.otp_login()
    path = f"/auth/sessions/{session['id']}/refresh"
    body = {"clientPublicKey": client.generate_key_pair().public_key_hex_compressed}
    challenge = wallet.api.post(path, body).json()
    other_body = {"clientPublicKey": client.generate_key_pair().public_key_hex_compressed}
    response = wallet.signed_retry("post", path, other_body, challenge, tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_BODY_MISMATCH"
    # Another active session of the same wallet is not the session being refreshed.
    response = wallet.signed_retry("post", path, body, challenge, other_tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"
    assert wallet.signed_retry("post", path, body, challenge, tek.private_key_hex).status_code == 201


def test_refresh_needs_an_active_session_on_both_legs(wallet: Wallet, settings):
    settings.WALLET_SESSION_SECONDS = 120
    tek, session = wallet.otp_login()
    path = f"/auth/sessions/{session['id']}/refresh"
    body = {"clientPublicKey": client.generate_key_pair().public_key_hex_compressed}
    challenge = wallet.api.post(path, body).json()
    clock.advance(dt.timedelta(minutes=3))  # the session is over; its challenge (5 minutes) is not
    response = wallet.signed_retry("post", path, body, challenge, tek.private_key_hex)
    assert (response.status_code, response.json()["code"]) == (401, "WALLET_SIGNATURE_INVALID")
    response = wallet.api.post(path, body)
    assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED")
    unknown = "/auth/sessions/Session:01900000-0000-7000-8000-000000000000/refresh"
    assert wallet.api.post(unknown, body).status_code == 404


def test_refresh_validates_the_key(wallet: Wallet):
    _, session = wallet.otp_login()
    for key in ("", "05" + "11" * 32, "02" + "ff" * 32):
        response = wallet.api.post(f"/auth/sessions/{session['id']}/refresh", {"clientPublicKey": key})
        assert response.status_code == 400, key


# --- the seam for payments ---------------------------------------------------------------------


def test_wallet_stamp_verify(wallet: Wallet, api, settings):
    tek, _ = wallet.otp_login()
    payload = '{"quoteId":"Quote:1","amount":100}'
    account_id = wallet.account.pk
    wallet_stamp_verify(
        internal_account_id=account_id, payload=payload, header=client.stamp(payload, tek.private_key_hex)
    )
    with pytest.raises(WalletSignatureMissing):
        wallet_stamp_verify(internal_account_id=account_id, payload=payload, header=None)
    with pytest.raises(WalletSignatureMalformed):
        wallet_stamp_verify(internal_account_id=account_id, payload=payload, header="%%%")
    with pytest.raises(WalletSignatureInvalid):
        wallet_stamp_verify(
            internal_account_id=account_id,
            payload=payload + " ",
            header=client.stamp(payload, tek.private_key_hex),
        )
    stranger = client.generate_key_pair()
    with pytest.raises(WalletSignatureInvalid):
        wallet_stamp_verify(
            internal_account_id=account_id,
            payload=payload,
            header=client.stamp(payload, stranger.private_key_hex),
        )
    other_account = wallet_for(api).account.pk
    with pytest.raises(WalletSignatureInvalid):
        wallet_stamp_verify(
            internal_account_id=other_account,
            payload=payload,
            header=client.stamp(payload, tek.private_key_hex),
        )

    wallet_stamp_verify(internal_account_id=account_id, payload=payload, header="sandbox-valid-signature")
    settings.SANDBOX, settings.PRODUCTION = False, True
    with pytest.raises(WalletSignatureMalformed):
        wallet_stamp_verify(internal_account_id=account_id, payload=payload, header="sandbox-valid-signature")

    settings.SANDBOX, settings.PRODUCTION = True, False
    clock.advance(dt.timedelta(minutes=16))
    with pytest.raises(WalletSignatureInvalid):
        wallet_stamp_verify(
            internal_account_id=account_id, payload=payload, header=client.stamp(payload, tek.private_key_hex)
        )
