"""Passkey (WebAuthn) checks for wallet credentials: registration and assertion.

Wire shapes (spec "WebAuthn field map", reference schemas of the attestation and assertion):
every binary field is base64url, as browsers emit it (unpadded; correct ``=`` padding is
tolerated, other junk is not). ``clientDataJson`` carries the exact clientDataJSON bytes.

The two ceremonies encode their challenge differently:

- registration: the integrator issues a base64url challenge; the WebAuthn challenge is its
  decoded bytes, so clientDataJSON carries the same base64url text.
- authentication: the service issues a lowercase hex string (``PasskeyAuthChallenge.challenge``);
  the WebAuthn challenge is the UTF-8 bytes of that text, *not* its hex decoding, so
  clientDataJSON carries ``base64url(hex_text.encode())``.

Errors: ``PasskeyMalformed`` (the caller answers 400 INVALID_INPUT) when the input cannot be
decoded, ``PasskeyInvalid`` (401 UNAUTHORIZED with ``reason``) when a check fails; both are defined
in ``payments.wallet_seam``, through which SCA calls these checks. Reasons never contain key material.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from django.conf import settings
from webauthn import verify_registration_response
from webauthn.helpers import (
    bytes_to_base64url,
    decode_credential_public_key,
    decoded_public_key_to_cryptography,
    parse_attestation_object,
    parse_authenticator_data,
    verify_signature,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AttestationObject,
    AuthenticatorAttestationResponse,
    AuthenticatorData,
    RegistrationCredential,
)

from payments.client import json_input
from payments.wallet_seam import PasskeyInvalid, PasskeyMalformed  # the seam defines the errors SCA catches

# The seed's sandbox shortcut: an assertion whose ``signature`` field is this literal.
LEGACY_SIGNATURE = "sandbox-valid-passkey-signature"
_LEGACY_SIGNATURE_FORMS = frozenset(
    {LEGACY_SIGNATURE, base64.urlsafe_b64encode(LEGACY_SIGNATURE.encode()).rstrip(b"=").decode()}
)

# Attestation objects with certificate chains run to a few KiB; this only keeps hostile
# input away from the CBOR and JSON parsers.
_MAX_FIELD_LENGTH = 64 * 1024
_MAX_TRANSPORTS = 16
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


@dataclass(frozen=True, slots=True)
class RegisteredPasskey:
    credential_id: str  # base64url, no padding
    public_key: bytes  # COSE_Key
    sign_count: int
    transports: list[str]
    aaguid: str


def challenge_new() -> str:
    """A fresh random authentication challenge: 32 bytes as 64 lowercase hex characters."""
    return secrets.token_hex(32)


def challenge_for(client_public_key: str, nonce: bytes) -> str:
    """The challenge bound to a pending session-creation request, as the spec describes it.

    Lowercase hex SHA-256 of the canonical (sorted keys, compact) JSON body
    ``{"clientPublicKey": <exact string sent>, "nonce": <hex of nonce>}``. The nonce keeps two
    challenges for the same key distinct and unpredictable, so it must be fresh random bytes.
    """
    if len(nonce) < 16:
        raise ValueError("nonce must be at least 16 random bytes")
    body = json.dumps(
        {"clientPublicKey": client_public_key, "nonce": nonce.hex()},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def registration_verify(
    *,
    challenge: str,
    attestation: dict[str, Any],
    rp_id: str | None = None,
    origins: list[str] | None = None,
) -> RegisteredPasskey:
    """Verify a registration (``navigator.credentials.create()``) against ``challenge``.

    ``challenge`` is the base64url registration challenge the integrator issued. User
    presence is required, user verification is not (the spec asks for presence only). The
    attestation statement is checked by py_webauthn for every format it knows.
    """
    rp_id, origins = _relying_party(rp_id, origins)
    fields = _fields(
        attestation,
        "attestation",
        required=("credentialId", "clientDataJson", "attestationObject"),
        optional=("transports",),
    )
    raw_id = _decode(fields["credentialId"], "credentialId")
    client_data_bytes = _decode(fields["clientDataJson"], "clientDataJson")
    attestation_object_bytes = _decode(fields["attestationObject"], "attestationObject")
    transports = _transports(fields.get("transports"))
    expected_challenge = _decode(challenge, "challenge")

    _client_data_check(
        client_data_bytes, ceremony="webauthn.create", challenge=expected_challenge, origins=origins
    )
    parsed = _attestation_object(attestation_object_bytes)
    _authenticator_data_check(parsed.auth_data, rp_id=rp_id)
    attested = parsed.auth_data.attested_credential_data
    if attested is None or not attested.credential_id:
        raise PasskeyInvalid("attestation carries no credential")
    if not hmac.compare_digest(attested.credential_id, raw_id):
        raise PasskeyInvalid("credential id mismatch")

    credential = RegistrationCredential(
        id=bytes_to_base64url(raw_id),
        raw_id=raw_id,
        response=AuthenticatorAttestationResponse(
            client_data_json=client_data_bytes, attestation_object=attestation_object_bytes
        ),
    )
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=expected_challenge,
            expected_rp_id=rp_id,
            expected_origin=origins,
        )
    except WebAuthnException as exc:
        # The checks above already gave the common failures their own reasons; what is
        # left here is the attestation statement and the key algorithm.
        raise PasskeyInvalid(f"attestation rejected: {exc}") from exc
    return RegisteredPasskey(
        credential_id=bytes_to_base64url(verified.credential_id),
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=transports,
        aaguid=verified.aaguid,
    )


def assertion_verify(
    *,
    assertion: dict[str, Any],
    expected_challenge: str,
    credential_id: str,
    credential_public_key: bytes,
    current_sign_count: int,
    rp_id: str | None = None,
    origins: list[str] | None = None,
    allow_legacy_literal: bool = False,
) -> int:
    """Verify an assertion (``navigator.credentials.get()``) and return the new sign count.

    Checks, in order: credential id, ceremony type, challenge (the UTF-8 bytes of
    ``expected_challenge``), origin, relying-party id hash, user presence, signature over
    ``authenticatorData || SHA-256(clientDataJSON)``, and the sign counter, which must
    increase whenever either the stored or the new counter is non-zero.

    ``allow_legacy_literal`` (the caller passes ``settings.SANDBOX``) accepts the seed's legacy
    ``signature`` value ``sandbox-valid-passkey-signature`` (as the literal or its base64url
    form) in place of a real signature. Only the signature check is skipped: clientDataJSON and
    authenticatorData must still be genuine-looking and pass every other check, so the literal
    cannot replay a challenge, cross origins or roll the counter back. Without the flag the
    literal is refused up front with its own reason, so an integrator moving to production
    learns why. ``userHandle``, when
    present, must be base64url but is not compared (discoverable-credential lookup is the
    caller's business).
    """
    rp_id, origins = _relying_party(rp_id, origins)
    fields = _fields(
        assertion,
        "assertion",
        required=("credentialId", "clientDataJson", "authenticatorData", "signature"),
        optional=("userHandle",),
    )
    raw_id = _decode(fields["credentialId"], "credentialId")
    client_data_bytes = _decode(fields["clientDataJson"], "clientDataJson")
    authenticator_data_bytes = _decode(fields["authenticatorData"], "authenticatorData")
    legacy = fields["signature"] in _LEGACY_SIGNATURE_FORMS
    if legacy and not allow_legacy_literal:
        raise PasskeyInvalid("the legacy signature literal is accepted only in the sandbox")
    signature = b"" if legacy else _decode(fields["signature"], "signature")
    if fields.get("userHandle") is not None:
        _decode(fields["userHandle"], "userHandle", allow_empty=True)
    try:
        authenticator_data = parse_authenticator_data(authenticator_data_bytes)
    except Exception as exc:  # the parser raises whatever truncated input provokes
        raise PasskeyMalformed("authenticatorData is not valid authenticator data") from exc

    stored_id = _b64url_decode(credential_id)
    if stored_id is None:
        raise ValueError("stored credential_id is not base64url")
    if not hmac.compare_digest(raw_id, stored_id):
        raise PasskeyInvalid("credential id mismatch")
    _client_data_check(
        client_data_bytes,
        ceremony="webauthn.get",
        challenge=expected_challenge.encode("utf-8"),
        origins=origins,
    )
    _authenticator_data_check(authenticator_data, rp_id=rp_id)
    if not legacy:
        _signature_check(
            credential_public_key=credential_public_key,
            signature=signature,
            signed=authenticator_data_bytes + hashlib.sha256(client_data_bytes).digest(),
        )
    new_count = authenticator_data.sign_count
    if (new_count or current_sign_count) and new_count <= current_sign_count:
        raise PasskeyInvalid("sign counter did not increase")
    return new_count


def _relying_party(rp_id: str | None, origins: list[str] | None) -> tuple[str, list[str]]:
    # Read at call time so tests and live servers can override the settings.
    return (
        rp_id if rp_id is not None else settings.WEBAUTHN_RP_ID,
        list(origins) if origins is not None else list(settings.WEBAUTHN_ALLOWED_ORIGINS),
    )


def _fields(value: Any, name: str, *, required: tuple[str, ...], optional: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PasskeyMalformed(f"{name} must be an object")
    missing = [key for key in required if value.get(key) is None]
    if missing:
        raise PasskeyMalformed(f"{name} is missing {', '.join(missing)}")
    return {key: value[key] for key in (*required, *optional) if key in value}


def _b64url_decode(value: Any) -> bytes | None:
    """Strict base64url: alphabet checked and canonical, since urlsafe_b64decode drops junk."""
    if not isinstance(value, str) or len(value) > _MAX_FIELD_LENGTH or not _BASE64URL.fullmatch(value):
        return None
    unpadded = value.rstrip("=")
    if value != unpadded and len(value) % 4:
        return None
    try:
        raw = base64.urlsafe_b64decode(unpadded + "=" * (-len(unpadded) % 4))
    except (binascii.Error, ValueError):
        return None
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != unpadded:
        return None
    return raw


def _decode(value: Any, name: str, *, allow_empty: bool = False) -> bytes:
    raw = _b64url_decode(value)
    if raw is None:
        raise PasskeyMalformed(f"{name} is not base64url")
    if not raw and not allow_empty:
        raise PasskeyMalformed(f"{name} is empty")
    return raw


def _transports(value: Any) -> list[str]:
    if value is None:
        return []
    if (
        not isinstance(value, list)
        or len(value) > _MAX_TRANSPORTS
        or not all(isinstance(item, str) and 0 < len(item) <= 32 for item in value)
    ):
        raise PasskeyMalformed("transports must be an array of strings")
    return list(dict.fromkeys(value))


def _client_data_check(raw: bytes, *, ceremony: str, challenge: bytes, origins: list[str]) -> None:
    try:
        client_data = json_input.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise PasskeyMalformed("clientDataJson is not JSON") from exc
    if not isinstance(client_data, dict) or not all(
        isinstance(client_data.get(key), str) for key in ("type", "challenge", "origin")
    ):
        raise PasskeyMalformed("clientDataJson lacks type, challenge or origin")
    if client_data["type"] != ceremony:
        raise PasskeyInvalid(f"client data type is not {ceremony}")
    carried = _b64url_decode(client_data["challenge"])
    if carried is None or not hmac.compare_digest(carried, challenge):
        raise PasskeyInvalid("challenge mismatch")
    if client_data["origin"] not in origins:
        raise PasskeyInvalid("origin not allowed")
    # A ceremony inside a cross-origin iframe could be driven by a page we do not trust.
    if client_data.get("crossOrigin") is True:
        raise PasskeyInvalid("cross-origin ceremony not allowed")


def _attestation_object(raw: bytes) -> AttestationObject:
    try:
        return parse_attestation_object(raw)
    except Exception as exc:  # CBOR and structure errors surface as assorted exception types
        raise PasskeyMalformed("attestationObject is not a valid attestation object") from exc


def _authenticator_data_check(data: AuthenticatorData, *, rp_id: str) -> None:
    if not hmac.compare_digest(data.rp_id_hash, hashlib.sha256(rp_id.encode("utf-8")).digest()):
        raise PasskeyInvalid("relying party id mismatch")
    if not data.flags.up:
        raise PasskeyInvalid("user not present")


def _signature_check(*, credential_public_key: bytes, signature: bytes, signed: bytes) -> None:
    decoded = decode_credential_public_key(credential_public_key)
    public_key = decoded_public_key_to_cryptography(decoded)
    try:
        verify_signature(public_key=public_key, signature_alg=decoded.alg, signature=signature, data=signed)
    except (InvalidSignature, ValueError) as exc:
        raise PasskeyInvalid("signature invalid") from exc
