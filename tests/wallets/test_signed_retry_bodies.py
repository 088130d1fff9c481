"""Every signed-retry operation: the retry's body must be the first leg's, compared as a whole.

For each operation the first leg is answered 202, then retries whose body adds a field, changes a
value or leaves a field out are refused 401 WALLET_SIGNATURE_BODY_MISMATCH and change nothing;
the identical body (key order and whitespace aside) still completes afterwards, since a failed
check consumes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from payments.models import Customer, InternalAccount
from tests.conftest import API
from tests.wallets.conftest import Wallet, wallet_for
from tests.wallets.soft_authenticator import SoftAuthenticator, b64url
from wallets.models import AuthCredential, AuthSession

pytestmark = pytest.mark.django_db

ADDED = {"privateEnabled": True, "extra": {"nested": [1, "two"]}}


@dataclass
class Operation:
    method: str
    path: str
    body: dict[str, Any]  # the first leg's
    key_hex: str  # the private key that may stamp the retry
    changed: tuple[str, Any]  # a field and another value for it
    removed: str  # a field to leave out
    success: int
    done: Callable[[], bool]  # whether the operation took effect


def _wallet_update(api) -> Operation:
    wallet = wallet_for(api)
    tek, _ = wallet.otp_login()
    return Operation(
        "patch",
        f"/internal-accounts/{wallet.account_id}",
        {"privateEnabled": True},
        tek.private_key_hex,
        ("privateEnabled", False),
        "privateEnabled",
        200,
        lambda: InternalAccount.objects.get(pk=wallet.account.pk).private_enabled,
    )


def _wallet_export(api) -> Operation:
    wallet = wallet_for(api)
    tek, _ = wallet.otp_login()
    key, other = client.generate_key_pair(), client.generate_key_pair()
    path = f"/internal-accounts/{wallet.account_id}/export"
    return Operation(
        "post",
        path,
        {"clientPublicKey": key.public_key_hex_uncompressed},
        tek.private_key_hex,
        ("clientPublicKey", other.public_key_hex_uncompressed),
        "clientPublicKey",
        200,
        lambda: _request_used(path),
    )


def _session_refresh(api) -> Operation:
    wallet = wallet_for(api)
    tek, session = wallet.otp_login()
    key, other = client.generate_key_pair(), client.generate_key_pair()
    return Operation(
        "post",
        f"/auth/sessions/{session['id']}/refresh",
        {"clientPublicKey": key.public_key_hex_compressed},
        tek.private_key_hex,
        ("clientPublicKey", other.public_key_hex_compressed),
        "clientPublicKey",
        201,
        lambda: AuthSession.objects.filter(account=wallet.account).count() == 2,
    )


def _session_revoke(api) -> Operation:
    wallet = wallet_for(api)
    tek, session = wallet.otp_login()
    return Operation(
        "delete",
        f"/auth/sessions/{session['id']}",
        {"reason": "lost phone"},  # no body is usual; whatever the first leg sends is bound
        tek.private_key_hex,
        ("reason", "stolen phone"),
        "reason",
        204,
        lambda: AuthSession.objects.filter(account=wallet.account, revoked_at__isnull=False).exists(),
    )


def _sms_wallet(api) -> tuple[Wallet, Any]:
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    return wallet, tek


def _credential_create(api) -> Operation:
    wallet, tek = _sms_wallet(api)
    return Operation(
        "post",
        "/auth/credentials",
        {"type": "SMS_OTP", "accountId": wallet.account_id},
        tek.private_key_hex,
        ("type", "EMAIL_OTP"),
        "accountId",
        201,
        lambda: AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").exists(),
    )


def _credential_revoke(api) -> Operation:
    wallet, tek = _sms_wallet(api)
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    sms = wallet.signed("post", "/auth/credentials", body, tek.private_key_hex).json()
    return Operation(
        "delete",
        f"/auth/credentials/{sms['id']}",
        {"reason": "new number"},
        tek.private_key_hex,  # a session of another credential (EMAIL_OTP) of the wallet
        ("reason", "lost phone"),
        "reason",
        204,
        lambda: AuthCredential.objects.get(pk=sms["id"].split(":", 1)[1]).revoked_at is not None,
    )


def _otp_verify(api) -> Operation:
    wallet = wallet_for(api)
    credential_id = wallet.credential_id()
    body, tek = wallet.otp_bundle(credential_id)
    return Operation(
        "post",
        f"/auth/credentials/{credential_id}/verify",
        body,
        tek.private_key_hex,
        ("encryptedOtpBundle", body["encryptedOtpBundle"][:-4] + "AAAA"),
        "encryptedOtpBundle",
        200,
        lambda: AuthSession.objects.filter(account=wallet.account).exists(),
    )


def _contact_update(api) -> Operation:
    wallet = wallet_for(api)
    tek, _ = wallet.otp_login()
    return Operation(
        "patch",
        f"/customers/{wallet.customer.public_id}",
        {"customerType": "INDIVIDUAL", "email": "new@example.com"},
        tek.private_key_hex,
        ("email", "other@example.com"),
        "email",
        200,
        lambda: Customer.objects.get(pk=wallet.customer.pk).email == "new@example.com",
    )


def _request_used(path: str) -> bool:
    from wallets.models import SignedRequest

    return SignedRequest.objects.filter(kind="WALLET_EXPORT", status="COMPLETED").exists()


OPERATIONS = {
    "credential create": _credential_create,
    "credential revoke": _credential_revoke,
    "OTP verify": _otp_verify,
    "session refresh": _session_refresh,
    "session revoke": _session_revoke,
    "wallet export": _wallet_export,
    "wallet update": _wallet_update,
    "contact update": _contact_update,
}


def _send(api, operation: Operation, body: Any, **headers):
    return getattr(api, operation.method)(operation.path, body, **headers)


def _raw(api, operation: Operation, text: str, **headers):
    """The body as exact bytes (another key order and whitespace than the first leg's)."""
    return getattr(api.client, operation.method)(
        API + operation.path, text, content_type="application/json", **headers
    )


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_retry_whose_body_differs_in_anything_is_a_body_mismatch(api, name):
    operation = OPERATIONS[name](api)
    first = _send(api, operation, operation.body)
    assert first.status_code == 202, first.content
    challenge = first.json()
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], operation.key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }
    field, value = operation.changed
    variants = {
        "added": {**operation.body, **ADDED},
        "changed": {**operation.body, field: value},
        "removed": {k: v for k, v in operation.body.items() if k != operation.removed},
    }
    for variant, body in variants.items():
        response = _send(api, operation, body, **headers)
        assert response.status_code == 401, (variant, response.content)
        assert response.json()["code"] == "WALLET_SIGNATURE_BODY_MISMATCH", (variant, response.json())
        assert not operation.done(), variant
    same = json.dumps(dict(reversed(list(operation.body.items()))), indent=3)
    response = _raw(api, operation, same, **headers)
    assert response.status_code == operation.success, response.content
    assert operation.done()


# --- passkey login: its body is bound when the login is claimed ---------------------------------

ORIGIN = "http://localhost:8000"
SLOW = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}


@pytest.fixture
def authenticator(settings) -> SoftAuthenticator:
    settings.WEBAUTHN_RP_ID = "localhost"
    settings.WEBAUTHN_ALLOWED_ORIGINS = [ORIGIN]
    return SoftAuthenticator("localhost", ORIGIN)


def test_a_passkey_login_re_sent_while_processing_must_carry_the_claimed_body(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    registration = b64url(os.urandom(32))
    body = {
        "type": "PASSKEY",
        "accountId": wallet.account_id,
        "challenge": registration,
        "nickname": "Laptop",
        "attestation": authenticator.register(registration),
    }
    passkey = wallet.signed("post", "/auth/credentials", body, tek.private_key_hex).json()
    key = client.generate_key_pair()
    challenge = wallet.api.post(
        f"/auth/credentials/{passkey['id']}/challenge", {"clientPublicKey": key.public_key_hex_compressed}
    ).json()
    path = f"/auth/credentials/{passkey['id']}/verify"
    claimed = {
        "type": "PASSKEY",
        "assertion": authenticator.assert_(challenge["challenge"], passkey["credentialId"]),
    }
    headers = {"HTTP_REQUEST_ID": challenge["requestId"]}
    assert wallet.api.post(path, claimed, **headers, **SLOW).json()["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=6))  # settled: the next identical re-send collects it
    assertion = claimed["assertion"]
    for body in (
        {**claimed, **ADDED},
        {**claimed, "assertion": {**assertion, "userHandle": "someone-else"}},
        {"type": "PASSKEY"},
    ):
        response = wallet.api.post(path, body, **headers)
        assert (response.status_code, response.json()["code"]) == (401, "WALLET_SIGNATURE_BODY_MISMATCH")
    response = wallet.api.post(path, claimed, **headers)
    assert response.status_code == 200 and response.json()["id"].startswith("Session:")
    assert AuthSession.objects.filter(credential__type="PASSKEY").count() == 1
