"""OAuth credentials through the API with sandbox (dummy-signature) OIDC tokens, and the claim edges."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet

pytestmark = pytest.mark.django_db

ISSUER = "https://accounts.google.com"


def _segment(value: dict | bytes) -> str:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def oidc_token(*, client_public_key: str | None = None, **claims) -> str:
    now = int(clock.now().timestamp())
    payload = {
        "iss": ISSUER,
        "aud": "1234567.apps.example",
        "sub": "1122334455",
        "email": "jane@example.com",
        "iat": now,
        "exp": now + 3600,
    }
    if client_public_key is not None:
        payload["nonce"] = hashlib.sha256(client_public_key.encode()).hexdigest()
    payload.update(claims)
    payload = {k: v for k, v in payload.items() if v is not None}
    return ".".join(
        [_segment({"alg": "RS256", "typ": "JWT", "kid": "k1"}), _segment(payload), _segment(b"dummy")]
    )


@pytest.fixture
def oauth(wallet: Wallet) -> tuple[Wallet, dict]:
    tek, _ = wallet.otp_login()
    body = {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": oidc_token()}
    first = wallet.api.post("/auth/credentials", body)
    assert first.status_code == 202 and first.json()["type"] == "OAUTH"
    response = wallet.signed_retry("post", "/auth/credentials", body, first.json(), tek.private_key_hex)
    assert response.status_code == 201, response.content
    return wallet, response.json()


def _verify(wallet: Wallet, credential_id: str, key: str, token: str | None = None):
    body = {"type": "OAUTH", "oidcToken": token or oidc_token(client_public_key=key), "clientPublicKey": key}
    return wallet.api.post(f"/auth/credentials/{credential_id}/verify", body)


def test_adding_oauth_names_it_after_the_email_claim(oauth):
    wallet, credential = oauth
    assert credential["type"] == "OAUTH" and credential["nickname"] == "jane@example.com"
    assert {c["type"] for c in wallet.credentials()} == {"EMAIL_OTP", "OAUTH"}


def test_verify_with_a_client_held_key(oauth):
    wallet, credential = oauth
    key = client.generate_key_pair()
    response = _verify(wallet, credential["id"], key.public_key_hex_compressed)
    assert response.status_code == 200, response.content
    session = response.json()
    assert session["type"] == "OAUTH" and "encryptedSessionSigningKey" not in session
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, key.private_key_hex
    )
    assert response.status_code == 200


def test_verify_with_an_uncompressed_key_returns_the_sealed_session_key(oauth):
    wallet, credential = oauth
    key = client.generate_key_pair()
    response = _verify(wallet, credential["id"], key.public_key_hex_uncompressed)
    assert response.status_code == 200
    session_key = client.credential_bundle_open(
        response.json()["encryptedSessionSigningKey"], key.private_key_hex
    )
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, session_key.hex()
    )
    assert response.status_code == 200


def _now() -> int:
    return int(clock.now().timestamp())


@pytest.mark.parametrize(
    ("claims", "ok"),
    [
        ({"iat": -61}, False),  # 61 s old
        ({"iat": -59}, True),
        ({"iat": 5}, True),  # 5 s in the future: the allowed skew
        ({"iat": 7}, False),
        ({"exp": -1}, False),
        ({"aud": ["1234567.apps.example"]}, True),  # a one-element array
        ({"aud": ["1234567.apps.example", "other"]}, False),  # an array of two
        ({"aud": ""}, False),
        ({"sub": "someone-else"}, False),  # not the credential's identity
        ({"aud": "other.apps.example"}, False),
        ({"iss": "https://issuer.example"}, False),
    ],
    ids=[
        "iat-61s-old",
        "iat-59s-old",
        "iat-5s-future",
        "iat-7s-future",
        "expired",
        "aud-array-1",
        "aud-array-2",
        "aud-empty",
        "other-sub",
        "other-aud",
        "unsupported-iss",
    ],
)
def test_claim_edges(oauth, claims, ok):
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    relative = {k: (_now() + v if k in ("iat", "exp") else v) for k, v in claims.items()}
    response = _verify(wallet, credential["id"], key, oidc_token(client_public_key=key, **relative))
    if ok:
        assert response.status_code == 200, response.content
    else:
        assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED"), response.content
        assert response.json()["reason"].startswith("OIDC token rejected")


def test_nonce_is_the_hash_of_the_exact_key_string(oauth):
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    # The same key re-serialised (upper case hex) is another string, so another nonce.
    token = oidc_token(client_public_key=key.upper())
    assert _verify(wallet, credential["id"], key, token).status_code == 401
    uncompressed_form = client.generate_key_pair()
    token = oidc_token(client_public_key=uncompressed_form.public_key_hex_compressed)
    assert (
        _verify(wallet, credential["id"], uncompressed_form.public_key_hex_uncompressed, token).status_code
        == 401
    )
    assert _verify(wallet, credential["id"], key, oidc_token()).status_code == 401  # no nonce at all
    assert (
        _verify(
            wallet, credential["id"], key.upper(), token=oidc_token(client_public_key=key.upper())
        ).status_code
        == 200
    )


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b", "sandbox-valid-oidc-token", "x.y.z", ""])
def test_malformed_tokens_are_invalid_input(oauth, token):
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    body = {"type": "OAUTH", "oidcToken": token, "clientPublicKey": key}
    response = wallet.api.post(f"/auth/credentials/{credential['id']}/verify", body)
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_INPUT")


def test_create_rejects_malformed_tokens_and_unsupported_issuers_with_400(wallet: Wallet):
    wallet.otp_login()
    for token in ("not-a-jwt", oidc_token(iss="https://issuer.example")):
        body = {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": token}
        response = wallet.api.post("/auth/credentials", body)
        assert (response.status_code, response.json()["code"]) == (400, "INVALID_INPUT"), response.content
    body = {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": oidc_token(iat=_now() - 120)}
    assert wallet.api.post("/auth/credentials", body).status_code == 401


def test_one_oauth_credential_per_provider_identity(oauth):
    wallet, _ = oauth
    tek, _ = wallet.otp_login()
    same = {
        "type": "OAUTH",
        "accountId": wallet.account_id,
        "oidcToken": oidc_token(email="other@example.com"),
    }
    response = wallet.api.post("/auth/credentials", same)
    assert response.status_code == 400 and "provider identity" in response.json()["message"]
    other = {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": oidc_token(sub="99")}
    assert wallet.signed("post", "/auth/credentials", other, tek.private_key_hex).status_code == 201


def test_oauth_has_no_challenge_step(oauth):
    wallet, credential = oauth
    assert wallet.api.post(f"/auth/credentials/{credential['id']}/challenge").status_code == 400


def test_verify_requires_a_valid_client_key(oauth):
    wallet, credential = oauth
    body = {"type": "OAUTH", "oidcToken": oidc_token(), "clientPublicKey": "02" + "ff" * 32}
    response = wallet.api.post(f"/auth/credentials/{credential['id']}/verify", body)
    assert response.status_code == 400
    body["clientPublicKey"] = " " + client.generate_key_pair().public_key_hex_compressed
    assert wallet.api.post(f"/auth/credentials/{credential['id']}/verify", body).status_code == 400
