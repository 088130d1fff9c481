"""The signed-retry engine: the challenge, every 401 code, single use, re-sends, and properties."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import uuid

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet
from wallets import signed_retry
from wallets.errors import (
    RequestIdRejected,
    WalletSignatureBodyMismatch,
    WalletSignatureInvalid,
)
from wallets.models import SignedRequest

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(wallet: Wallet):
    tek, session = wallet.otp_login()
    return wallet, tek, session


def _privacy(wallet: Wallet, **headers):
    return wallet.api.patch(f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, **headers)


def _challenge(wallet: Wallet) -> dict:
    response = _privacy(wallet)
    assert response.status_code == 202, response.content
    return response.json()


def _retry(wallet: Wallet, challenge: dict, *, signature: str | None, request_id: str | None, body=None):
    headers = {}
    if signature is not None:
        headers["HTTP_SERVICE_WALLET_SIGNATURE"] = signature
    if request_id is not None:
        headers["HTTP_REQUEST_ID"] = request_id
    return wallet.api.patch(
        f"/internal-accounts/{wallet.account_id}", body or {"privateEnabled": True}, **headers
    )


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and body["code"] == code, body
    return body


# --- the challenge ---------------------------------------------------------------------------------


def test_challenge_shape_and_payload(logged_in):
    wallet, _, _ = logged_in
    before = clock.now()
    challenge = _challenge(wallet)
    assert set(challenge) == {"payloadToSign", "requestId", "expiresAt"}  # bare SignedRequestChallenge
    assert challenge["requestId"].startswith("Request:")
    uuid.UUID(challenge["requestId"].split(":", 1)[1])
    expires = dt.datetime.fromisoformat(challenge["expiresAt"].replace("Z", "+00:00"))
    assert dt.timedelta(minutes=4, seconds=59) <= expires - before <= dt.timedelta(minutes=5, seconds=1)

    payload = challenge["payloadToSign"]
    assert " " not in payload and json.loads(payload) == json.loads(payload)
    fields = json.loads(payload)
    assert fields["type"] == "ACTIVITY_TYPE_WALLET_WALLET_UPDATE"
    assert fields["organizationId"] == wallet.account_id
    assert fields["requestId"] == challenge["requestId"]
    canonical = json.dumps({"privateEnabled": True}, sort_keys=True, separators=(",", ":"))
    assert fields["parameters"]["bodySha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    # Stored exactly as issued: the bytes the stamp is verified over.
    stored = SignedRequest.objects.get(pk=challenge["requestId"].split(":", 1)[1])
    assert stored.payload_to_sign == payload


def test_auth_challenges_carry_the_credential_type(logged_in):
    wallet, _, session = logged_in
    response = wallet.api.delete(f"/auth/sessions/{session['id']}")
    assert response.status_code == 202
    assert set(response.json()) == {"type", "payloadToSign", "requestId", "expiresAt"}
    assert response.json()["type"] == "EMAIL_OTP"


def test_signed_retry_succeeds_and_stamps_compare_keys_as_points(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    # A stamp naming the key in its uncompressed form is the same point as the session's key.
    fields = json.loads(
        base64.urlsafe_b64decode(_pad(client.stamp(challenge["payloadToSign"], tek.private_key_hex)))
    )
    fields["publicKey"] = tek.public_key_hex_uncompressed
    header = (
        base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).rstrip(b"=").decode()
    )
    response = _retry(wallet, challenge, signature=header, request_id=challenge["requestId"])
    assert response.status_code == 200, response.content
    assert response.json()["privateEnabled"] is True


def _pad(text: str) -> str:
    return text + "=" * (-len(text) % 4)


# --- the error codes ---------------------------------------------------------------------------


def test_request_id_without_signature_is_wallet_signature_missing(logged_in):
    wallet, _, _ = logged_in
    challenge = _challenge(wallet)
    body = _error(
        _retry(wallet, challenge, signature=None, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_MISSING",
    )
    assert body["reason"] and body["details"]["reason"] == body["reason"]


def test_signature_without_request_id_is_request_id_missing(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    _error(_retry(wallet, challenge, signature=stamp, request_id=None), 401, "REQUEST_ID_MISSING")


@pytest.mark.parametrize(
    "header",
    [
        "not base64url!",
        base64.urlsafe_b64encode(b"not json").rstrip(b"=").decode(),
        base64.urlsafe_b64encode(b'{"publicKey":"02"}').rstrip(b"=").decode(),
        base64.urlsafe_b64encode(
            json.dumps(
                {"publicKey": "02" + "11" * 32, "scheme": "OTHER", "signature": "3006020101020101"}
            ).encode()
        )
        .rstrip(b"=")
        .decode(),
    ],
    ids=["alphabet", "json", "fields", "scheme"],
)
def test_malformed_stamps(logged_in, header):
    wallet, _, _ = logged_in
    challenge = _challenge(wallet)
    _error(
        _retry(wallet, challenge, signature=header, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_MALFORMED",
    )


def test_stamp_with_a_key_that_is_not_a_point_is_malformed(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    fields = json.loads(
        base64.urlsafe_b64decode(_pad(client.stamp(challenge["payloadToSign"], tek.private_key_hex)))
    )
    fields["publicKey"] = "02" + "ff" * 32
    header = (
        base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).rstrip(b"=").decode()
    )
    _error(
        _retry(wallet, challenge, signature=header, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_MALFORMED",
    )


def test_retry_with_another_body_is_body_mismatch(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    response = _retry(
        wallet, challenge, signature=stamp, request_id=challenge["requestId"], body={"privateEnabled": False}
    )
    _error(response, 401, "WALLET_SIGNATURE_BODY_MISMATCH")


def test_key_order_and_whitespace_of_the_retry_body_do_not_matter(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    response = wallet.api.client.patch(
        f"/api/2025-10-13/internal-accounts/{wallet.account_id}",
        '{ "privateEnabled" :  true }',
        content_type="application/json",
        HTTP_SERVICE_WALLET_SIGNATURE=stamp,
        HTTP_REQUEST_ID=challenge["requestId"],
    )
    assert response.status_code == 200, response.content


def test_signature_over_another_payload_is_invalid(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"] + " ", tek.private_key_hex)
    _error(
        _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_INVALID",
    )


def test_a_key_that_is_no_session_of_the_wallet_is_invalid(logged_in, api):
    wallet, _, _ = logged_in
    challenge = _challenge(wallet)
    stranger = client.generate_key_pair()
    stamp = client.stamp(challenge["payloadToSign"], stranger.private_key_hex)
    _error(
        _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_INVALID",
    )


def test_a_session_of_another_wallet_is_invalid(logged_in, api):
    from tests.wallets.conftest import wallet_for

    wallet, _, _ = logged_in
    other_tek, _ = wallet_for(api).otp_login()
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], other_tek.private_key_hex)
    _error(
        _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_INVALID",
    )


def test_an_expired_session_authorizes_nothing(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    clock.advance(dt.timedelta(minutes=16))  # sessions last 15 minutes
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    # The challenge itself (5 minutes) has lapsed too; a fresh one shows the session is the problem.
    _error(_retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]), 401, "UNAUTHORIZED")
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    _error(
        _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]),
        401,
        "WALLET_SIGNATURE_INVALID",
    )


def test_unknown_request_id_is_unauthorized(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    for request_id in (
        f"Request:{uuid.uuid4()}",
        "garbage",
        challenge["requestId"].replace("Request:", "Quote:"),
    ):
        body = _error(_retry(wallet, challenge, signature=stamp, request_id=request_id), 401, "UNAUTHORIZED")
        assert "Request-Id" in body["message"]


def test_request_id_of_another_operation_is_unauthorized(logged_in):
    wallet, tek, session = logged_in
    revoke = wallet.api.delete(f"/auth/sessions/{session['id']}").json()
    stamp = client.stamp(revoke["payloadToSign"], tek.private_key_hex)
    response = _retry(wallet, revoke, signature=stamp, request_id=revoke["requestId"])
    _error(response, 401, "UNAUTHORIZED")


def test_request_id_of_another_platform_is_unauthorized(logged_in, other_api):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    response = other_api.patch(
        f"/internal-accounts/{wallet.account_id}",
        {"privateEnabled": True},
        HTTP_SERVICE_WALLET_SIGNATURE=stamp,
        HTTP_REQUEST_ID=challenge["requestId"],
    )
    _error(response, 401, "UNAUTHORIZED")  # the challenge is not theirs: for them it does not exist
    wallet.account.refresh_from_db()
    assert wallet.account.private_enabled is False
    assert (
        other_api.patch(f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}).status_code
        == 404
    )


def test_expired_request_id_is_unauthorized(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    body = _error(
        _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"]), 401, "UNAUTHORIZED"
    )
    assert "expired" in body["message"]


def test_a_request_id_is_spent_once_its_outcome_was_delivered(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    first = _retry(wallet, challenge, signature=stamp, request_id=challenge["requestId"])
    assert first.status_code == 200
    restamped = client.stamp(challenge["payloadToSign"], tek.private_key_hex)  # ECDSA: a new signature
    for signature, body in [
        (stamp, None),  # the identical request
        (restamped, None),
        (stamp, {"privateEnabled": False}),
        (stamp, {"privateEnabled": True, "extra": 1}),
    ]:
        response = _retry(
            wallet, challenge, signature=signature, request_id=challenge["requestId"], body=body
        )
        assert "already used" in _error(response, 401, "UNAUTHORIZED")["message"]
    wallet.account.refresh_from_db()
    assert wallet.account.private_enabled is True
    stored = SignedRequest.objects.get(pk=challenge["requestId"].split(":", 1)[1])
    assert stored.delivered_at is not None


def test_failed_checks_consume_nothing(logged_in):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stranger = client.generate_key_pair()
    bad = client.stamp(challenge["payloadToSign"], stranger.private_key_hex)
    assert _retry(wallet, challenge, signature=bad, request_id=challenge["requestId"]).status_code == 401
    good = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    assert _retry(wallet, challenge, signature=good, request_id=challenge["requestId"]).status_code == 200


def test_legacy_literal_is_accepted_in_sandbox_only(logged_in, settings):
    wallet, _, _ = logged_in
    challenge = _challenge(wallet)
    response = _retry(
        wallet, challenge, signature="sandbox-valid-signature", request_id=challenge["requestId"]
    )
    assert response.status_code == 200, response.content

    settings.SANDBOX, settings.PRODUCTION = False, True
    challenge = _challenge(wallet)
    response = _retry(
        wallet, challenge, signature="sandbox-valid-signature", request_id=challenge["requestId"]
    )
    _error(response, 401, "WALLET_SIGNATURE_MALFORMED")


def test_wallet_errors_do_not_ask_for_basic_credentials(logged_in):
    wallet, _, _ = logged_in
    challenge = _challenge(wallet)
    response = _retry(wallet, challenge, signature=None, request_id=challenge["requestId"])
    assert "WWW-Authenticate" not in response.headers


# --- properties --------------------------------------------------------------------------------


P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
PROPERTY_SETTINGS = hypothesis_settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _domain_retry(wallet: Wallet, challenge: dict, *, body, signature: str, request_id: str):
    return signed_retry.retry_complete(
        platform=wallet.api.platform,
        kind=SignedRequest.Kind.WALLET_UPDATE,
        target=wallet.account_id,
        attempt=signed_retry.Attempt(body=body, signature=signature, request_id=request_id),
    )


@PROPERTY_SETTINGS
@given(data=st.data())
def test_property_any_change_to_the_payload_fails(logged_in, data):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    payload = challenge["payloadToSign"]
    position = data.draw(st.integers(0, len(payload)))
    insert = data.draw(st.text(min_size=1, max_size=3))
    changed = payload[:position] + insert + payload[position:]
    stamp = client.stamp(changed, tek.private_key_hex)
    with pytest.raises(WalletSignatureInvalid):
        _domain_retry(
            wallet,
            challenge,
            body={"privateEnabled": True},
            signature=stamp,
            request_id=challenge["requestId"],
        )


@PROPERTY_SETTINGS
@given(
    extra=st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.one_of(st.integers(), st.text(max_size=8), st.booleans()),
        min_size=1,
        max_size=3,
    )
)
def test_property_any_change_to_the_retry_body_fails(logged_in, extra):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    body = {**extra, "privateEnabled": True}
    if body == {"privateEnabled": True}:
        body["privateEnabled"] = False
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    with pytest.raises(WalletSignatureBodyMismatch):
        _domain_retry(wallet, challenge, body=body, signature=stamp, request_id=challenge["requestId"])


@PROPERTY_SETTINGS
@given(scalar=st.integers(min_value=1, max_value=P256_ORDER - 1))
def test_property_any_other_key_fails(logged_in, scalar):
    wallet, tek, _ = logged_in
    other = scalar.to_bytes(32, "big").hex()
    if other == tek.private_key_hex:
        return
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], other)
    with pytest.raises(WalletSignatureInvalid):
        _domain_retry(
            wallet,
            challenge,
            body={"privateEnabled": True},
            signature=stamp,
            request_id=challenge["requestId"],
        )


@PROPERTY_SETTINGS
@given(other=st.uuids())
def test_property_any_other_request_id_fails(logged_in, other):
    wallet, tek, _ = logged_in
    challenge = _challenge(wallet)
    stamp = client.stamp(challenge["payloadToSign"], tek.private_key_hex)
    with pytest.raises(RequestIdRejected):
        _domain_retry(
            wallet, challenge, body={"privateEnabled": True}, signature=stamp, request_id=f"Request:{other}"
        )
