from __future__ import annotations

import base64
import json
import uuid

import pytest

from tests.wallets.soft_authenticator import DEFAULT_AAGUID, SoftAuthenticator, b64url, b64url_decode
from wallets.passkeys import (
    LEGACY_SIGNATURE,
    PasskeyInvalid,
    PasskeyMalformed,
    RegisteredPasskey,
    assertion_verify,
    challenge_for,
    challenge_new,
    registration_verify,
)

RP_ID = "localhost"
ORIGIN = "http://localhost:8000"


@pytest.fixture(autouse=True)
def _webauthn_settings(settings):
    settings.WEBAUTHN_RP_ID = RP_ID
    settings.WEBAUTHN_ALLOWED_ORIGINS = [ORIGIN, "http://127.0.0.1:8000"]


def _registration_challenge() -> str:
    return b64url(b"integrator-registration-challenge-0123")


@pytest.fixture
def device() -> SoftAuthenticator:
    return SoftAuthenticator(RP_ID, ORIGIN)


@pytest.fixture
def passkey(device) -> RegisteredPasskey:
    challenge = _registration_challenge()
    return registration_verify(challenge=challenge, attestation=device.register(challenge))


def _verify(passkey: RegisteredPasskey, assertion: dict, challenge: str, **kwargs) -> int:
    kwargs.setdefault("current_sign_count", passkey.sign_count)
    return assertion_verify(
        assertion=assertion,
        expected_challenge=challenge,
        credential_id=passkey.credential_id,
        credential_public_key=passkey.public_key,
        **kwargs,
    )


def _flip_last_byte(value: str) -> str:
    raw = bytearray(b64url_decode(value))
    raw[-1] ^= 0x01
    return b64url(bytes(raw))


# Registration


def test_registration_returns_the_credential(device):
    challenge = _registration_challenge()
    attestation = device.register(challenge)

    passkey = registration_verify(challenge=challenge, attestation=attestation)

    assert passkey.credential_id == attestation["credentialId"]
    assert "=" not in passkey.credential_id
    assert passkey.sign_count == 0
    assert passkey.transports == ["internal", "hybrid"]
    assert passkey.aaguid == str(uuid.UUID(bytes=DEFAULT_AAGUID))
    assert isinstance(passkey.public_key, bytes) and passkey.public_key


def test_registration_accepts_every_allowed_origin():
    challenge = _registration_challenge()
    device = SoftAuthenticator(RP_ID, "http://127.0.0.1:8000")
    assert registration_verify(challenge=challenge, attestation=device.register(challenge)).sign_count == 0


def test_registration_challenge_may_be_padded(device):
    challenge = b64url(b"sixteen byte val")
    padded = base64.urlsafe_b64encode(b"sixteen byte val").decode()
    assert padded.endswith("=")
    registration_verify(challenge=padded, attestation=device.register(challenge))


@pytest.mark.parametrize(
    ("bend", "reason"),
    [
        ({"origin": "https://evil.example"}, "origin not allowed"),
        ({"rp_id": "evil.example"}, "relying party id mismatch"),
        ({"user_present": False}, "user not present"),
    ],
)
def test_registration_failures(device, bend, reason):
    challenge = _registration_challenge()
    with pytest.raises(PasskeyInvalid) as excinfo:
        registration_verify(challenge=challenge, attestation=device.register(challenge, **bend))
    assert excinfo.value.reason == reason


def test_registration_wrong_challenge(device):
    attestation = device.register(_registration_challenge())
    with pytest.raises(PasskeyInvalid, match="challenge mismatch"):
        registration_verify(challenge=b64url(b"another challenge"), attestation=attestation)


def test_registration_credential_id_must_be_the_attested_one(device):
    challenge = _registration_challenge()
    attestation = device.register(challenge)
    attestation["credentialId"] = b64url(b"\x01" * 32)
    with pytest.raises(PasskeyInvalid, match="credential id mismatch"):
        registration_verify(challenge=challenge, attestation=attestation)


def test_registration_refuses_an_assertion(device, passkey):
    challenge = _registration_challenge()
    assertion = device.assert_(challenge, passkey.credential_id)
    attestation = device.register(challenge)
    attestation["clientDataJson"] = assertion["clientDataJson"]
    with pytest.raises(PasskeyInvalid, match=r"client data type is not webauthn\.create"):
        registration_verify(challenge=challenge, attestation=attestation)


def test_registration_rp_and_origins_can_be_passed_explicitly():
    challenge = _registration_challenge()
    device = SoftAuthenticator("wallet.example", "https://wallet.example")
    passkey = registration_verify(
        challenge=challenge,
        attestation=device.register(challenge),
        rp_id="wallet.example",
        origins=["https://wallet.example"],
    )
    assert passkey.sign_count == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"clientDataJson": "not base64url!"}, "clientDataJson is not base64url"),
        ({"attestationObject": b64url(b"\xff\x00junk")}, "attestationObject is not a valid"),
        ({"clientDataJson": b64url(b"[1, 2]")}, "clientDataJson lacks"),
        ({"clientDataJson": b64url(b"{not json")}, "clientDataJson is not JSON"),
        ({"credentialId": None}, "attestation is missing credentialId"),
        ({"credentialId": ""}, "credentialId is empty"),
        ({"transports": "usb"}, "transports must be an array of strings"),
        ({"credentialId": 12}, "credentialId is not base64url"),
    ],
)
def test_registration_malformed(device, change, message):
    challenge = _registration_challenge()
    attestation = {**device.register(challenge), **change}
    with pytest.raises(PasskeyMalformed, match=message):
        registration_verify(challenge=challenge, attestation=attestation)


def test_registration_malformed_challenge_and_body(device):
    challenge = _registration_challenge()
    with pytest.raises(PasskeyMalformed, match="challenge is not base64url"):
        registration_verify(challenge="a+b/c", attestation=device.register(challenge))
    with pytest.raises(PasskeyMalformed, match="attestation must be an object"):
        registration_verify(challenge=challenge, attestation=["x"])  # type: ignore[arg-type]


def test_registration_without_transports(device):
    challenge = _registration_challenge()
    attestation = device.register(challenge)
    del attestation["transports"]
    assert registration_verify(challenge=challenge, attestation=attestation).transports == []


# Assertion


def test_round_trip_and_counter(device, passkey):
    challenge = challenge_new()
    count = _verify(passkey, device.assert_(challenge, passkey.credential_id), challenge)
    assert count == 1

    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    assert _verify(passkey, assertion, challenge, current_sign_count=count) == 2


def test_the_webauthn_challenge_is_the_utf8_of_the_hex_string(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    client_data = json.loads(b64url_decode(assertion["clientDataJson"]))
    assert b64url_decode(client_data["challenge"]) == challenge.encode()
    assert len(challenge) == 64 and challenge == challenge.lower()


def test_wrong_challenge(device, passkey):
    assertion = device.assert_(challenge_new(), passkey.credential_id)
    with pytest.raises(PasskeyInvalid) as excinfo:
        _verify(passkey, assertion, challenge_new())
    assert excinfo.value.reason == "challenge mismatch"


def test_hex_decoded_challenge_is_refused(device, passkey):
    # A client that hex-decodes the challenge instead of UTF-8 encoding it signs other bytes.
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    client_data = json.loads(b64url_decode(assertion["clientDataJson"]))
    client_data["challenge"] = b64url(bytes.fromhex(challenge))
    assertion["clientDataJson"] = b64url(json.dumps(client_data).encode())
    with pytest.raises(PasskeyInvalid, match="challenge mismatch"):
        _verify(passkey, assertion, challenge)


@pytest.mark.parametrize(
    ("bend", "reason"),
    [
        ({"origin": "https://evil.example"}, "origin not allowed"),
        ({"origin": "http://localhost:8001"}, "origin not allowed"),
        ({"rp_id": "evil.example"}, "relying party id mismatch"),
        ({"user_present": False}, "user not present"),
    ],
)
def test_assertion_failures(device, passkey, bend, reason):
    challenge = challenge_new()
    with pytest.raises(PasskeyInvalid) as excinfo:
        _verify(passkey, device.assert_(challenge, passkey.credential_id, **bend), challenge)
    assert excinfo.value.reason == reason


def test_verifier_rp_id_differs(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    with pytest.raises(PasskeyInvalid, match="relying party id mismatch"):
        _verify(passkey, assertion, challenge, rp_id="other.example")


def test_verifier_origins_differ(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    with pytest.raises(PasskeyInvalid, match="origin not allowed"):
        _verify(passkey, assertion, challenge, origins=["https://wallet.example"])


def test_tampered_signature(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    assertion["signature"] = _flip_last_byte(assertion["signature"])
    with pytest.raises(PasskeyInvalid, match="signature invalid"):
        _verify(passkey, assertion, challenge)


def test_signature_by_another_key(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    other = SoftAuthenticator(RP_ID, ORIGIN)
    other_passkey = registration_verify(
        challenge=_registration_challenge(), attestation=other.register(_registration_challenge())
    )
    assertion["signature"] = other.assert_(challenge, other_passkey.credential_id)["signature"]
    with pytest.raises(PasskeyInvalid, match="signature invalid"):
        _verify(passkey, assertion, challenge)


def test_tampered_authenticator_data(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    # Raise the counter by one: still well-formed, no longer what was signed.
    assertion["authenticatorData"] = _flip_last_byte(assertion["authenticatorData"])
    with pytest.raises(PasskeyInvalid, match="signature invalid"):
        _verify(passkey, assertion, challenge)


def test_tampered_client_data(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    client_data = json.loads(b64url_decode(assertion["clientDataJson"]))
    client_data["extra"] = "x"
    assertion["clientDataJson"] = b64url(json.dumps(client_data).encode())
    with pytest.raises(PasskeyInvalid, match="signature invalid"):
        _verify(passkey, assertion, challenge)


def test_credential_id_mismatch(device, passkey):
    challenge = challenge_new()
    second = registration_verify(
        challenge=_registration_challenge(), attestation=device.register(_registration_challenge())
    )
    assertion = device.assert_(challenge, second.credential_id)
    with pytest.raises(PasskeyInvalid, match="credential id mismatch"):
        _verify(passkey, assertion, challenge)


def test_replayed_assertion_is_refused(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    count = _verify(passkey, assertion, challenge)
    with pytest.raises(PasskeyInvalid) as excinfo:
        _verify(passkey, assertion, challenge, current_sign_count=count)
    assert excinfo.value.reason == "sign counter did not increase"


def test_cloned_authenticator_counter_going_back(device, passkey):
    challenge = challenge_new()
    count = _verify(passkey, device.assert_(challenge, passkey.credential_id, counter_step=5), challenge)
    with pytest.raises(PasskeyInvalid, match="sign counter did not increase"):
        _verify(
            passkey,
            device.assert_(challenge, passkey.credential_id, counter_step=-2),
            challenge,
            current_sign_count=count,
        )


def test_zero_counters_are_accepted(device, passkey):
    # Authenticators without a counter (many synced passkeys) always report 0.
    challenge = challenge_new()
    assert _verify(passkey, device.assert_(challenge, passkey.credential_id, counter_step=0), challenge) == 0


def test_legacy_literal_only_when_allowed(device, passkey):
    challenge = challenge_new()
    assertion = {**device.assert_(challenge, passkey.credential_id), "signature": LEGACY_SIGNATURE}

    with pytest.raises(PasskeyInvalid, match="legacy signature literal is accepted only in the sandbox"):
        _verify(passkey, assertion, challenge)
    assert _verify(passkey, assertion, challenge, allow_legacy_literal=True) == 1

    encoded = {**assertion, "signature": b64url(LEGACY_SIGNATURE.encode())}
    with pytest.raises(PasskeyInvalid, match="legacy signature literal"):
        _verify(passkey, encoded, challenge)
    assert _verify(passkey, encoded, challenge, allow_legacy_literal=True) == 1


@pytest.mark.parametrize(
    ("bend", "reason"),
    [
        ({"origin": "https://evil.example"}, "origin not allowed"),
        ({"rp_id": "evil.example"}, "relying party id mismatch"),
        ({"user_present": False}, "user not present"),
    ],
)
def test_legacy_literal_still_checks_everything_else(device, passkey, bend, reason):
    challenge = challenge_new()
    assertion = {
        **device.assert_(challenge, passkey.credential_id, **bend),
        "signature": LEGACY_SIGNATURE,
    }
    with pytest.raises(PasskeyInvalid) as excinfo:
        _verify(passkey, assertion, challenge, allow_legacy_literal=True)
    assert excinfo.value.reason == reason


def test_legacy_literal_checks_challenge_and_counter(device, passkey):
    challenge = challenge_new()
    assertion = {**device.assert_(challenge, passkey.credential_id), "signature": LEGACY_SIGNATURE}
    with pytest.raises(PasskeyInvalid, match="challenge mismatch"):
        _verify(passkey, assertion, challenge_new(), allow_legacy_literal=True)
    with pytest.raises(PasskeyInvalid, match="sign counter did not increase"):
        _verify(passkey, assertion, challenge, allow_legacy_literal=True, current_sign_count=1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"signature": "a+b/"}, "signature is not base64url"),
        ({"signature": "AB"}, "signature is not base64url"),  # non-canonical trailing bits
        ({"authenticatorData": b64url(b"\x00" * 10)}, "authenticatorData is not valid"),
        ({"authenticatorData": None}, "assertion is missing authenticatorData"),
        ({"clientDataJson": b64url(b"\xff\xfe")}, "clientDataJson is not JSON"),
        ({"clientDataJson": b64url(b'{"type": "webauthn.get"}')}, "clientDataJson lacks"),
        ({"userHandle": "!!"}, "userHandle is not base64url"),
        ({"credentialId": "abc=def"}, "credentialId is not base64url"),
    ],
)
def test_assertion_malformed(device, passkey, change, message):
    challenge = challenge_new()
    assertion = {**device.assert_(challenge, passkey.credential_id), **change}
    with pytest.raises(PasskeyMalformed, match=message):
        _verify(passkey, assertion, challenge)


def test_assertion_missing_fields_are_malformed(passkey):
    with pytest.raises(PasskeyMalformed, match="missing credentialId, clientDataJson"):
        _verify(passkey, {"signature": "AAAA"}, challenge_new())
    with pytest.raises(PasskeyMalformed, match="assertion must be an object"):
        _verify(passkey, "assertion", challenge_new())  # type: ignore[arg-type]


def test_user_handle_is_optional(device, passkey):
    challenge = challenge_new()
    assertion = device.assert_(challenge, passkey.credential_id)
    del assertion["userHandle"]
    assert _verify(passkey, assertion, challenge) == 1


# Challenges


def test_challenge_new_is_fresh_lowercase_hex():
    challenges = {challenge_new() for _ in range(50)}
    assert len(challenges) == 50
    assert all(len(c) == 64 and int(c, 16) >= 0 and c == c.lower() for c in challenges)


def test_challenge_for_binds_the_exact_key_string():
    nonce = b"\x07" * 32
    key = "02" + "ab" * 32
    challenge = challenge_for(key, nonce)
    assert len(challenge) == 64 and challenge == challenge.lower()
    assert challenge == challenge_for(key, nonce)
    assert challenge != challenge_for(key.upper(), nonce)
    assert challenge != challenge_for(key, b"\x08" * 32)
    with pytest.raises(ValueError):
        challenge_for(key, b"short")
