"""Server side of email/SMS OTP: the encryption target bundle and the client's encrypted OTP.

The server issues ``otpEncryptionTargetBundle`` (a signed envelope whose data names a fresh
HPKE recipient key, ``targetPublic``); the client answers with ``encryptedOtpBundle``,
``{"encappedPublic":<65-byte hex>,"ciphertext":<hex>}``, whose plaintext is
``{"otp_code":…,"public_key":…}`` (``public_key``: the client's session key, either SEC1 form).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric import ec

from payments.client import json_input

from .envelope import signed_envelope_build
from .errors import BundleMalformed, InvalidKey
from .hpke import hpke_open
from .keys import hex_to_bytes, private_key_generate, public_key_from_hex, public_key_hex

# AES-GCM tag length: a shorter ciphertext cannot be genuine.
_TAG_SIZE = 16


@dataclass(frozen=True, slots=True)
class OtpPlaintext:
    otp_code: str = field(repr=False)
    # The client's key in canonical compressed lowercase hex, whatever form it was sent in.
    public_key_hex: str


def target_bundle_issue(
    signing_private_key: ec.EllipticCurvePrivateKey,
    *,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> tuple[str, ec.EllipticCurvePrivateKey]:
    """Return (otpEncryptionTargetBundle JSON string, the target private key to keep until verify).

    ``targetPublic`` must be uncompressed: a client fed a compressed target puts the 33-byte
    form into the HPKE context and its bundle can never be opened.
    """
    target_private_key = private_key_generate()
    data = {"targetPublic": public_key_hex(target_private_key, compressed=False)}
    if organization_id is not None:
        data["organizationId"] = organization_id
    if user_id is not None:
        data["userId"] = user_id
    bundle = signed_envelope_build(data, signing_private_key=signing_private_key)
    return bundle, target_private_key


def otp_bundle_open(
    encrypted_otp_bundle: str, target_private_key: ec.EllipticCurvePrivateKey
) -> OtpPlaintext:
    """Decrypt ``encryptedOtpBundle`` (the inner JSON string, already unescaped from the body).

    Raises BundleMalformed for bad shapes (outer or plaintext) and BundleDecryptFailed when
    HPKE authentication fails. The caller compares ``otp_code`` in constant time.
    """
    enc_hex, ciphertext_hex = _string_fields(
        encrypted_otp_bundle, what="encryptedOtpBundle", names=("encappedPublic", "ciphertext")
    )
    try:
        enc = hex_to_bytes(enc_hex)
        ciphertext = hex_to_bytes(ciphertext_hex)
    except ValueError as exc:
        raise BundleMalformed("encappedPublic and ciphertext must be hex") from exc
    if len(ciphertext) < _TAG_SIZE:
        raise BundleMalformed("ciphertext is shorter than the AES-GCM tag")
    try:
        plaintext = hpke_open(enc, ciphertext, recipient_private_key=target_private_key)
    except InvalidKey as exc:
        raise BundleMalformed("encappedPublic is not a P-256 point") from exc

    try:
        text = plaintext.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleMalformed("OTP plaintext is not UTF-8") from exc
    otp_code, client_key_hex = _string_fields(text, what="OTP plaintext", names=("otp_code", "public_key"))
    try:
        client_key = public_key_from_hex(client_key_hex)
    except InvalidKey as exc:
        raise BundleMalformed("OTP plaintext public_key is not a P-256 point") from exc
    return OtpPlaintext(otp_code=otp_code, public_key_hex=public_key_hex(client_key))


def _string_fields(text: str, *, what: str, names: tuple[str, str]) -> tuple[str, str]:
    """The two string fields `names` of the JSON object `text`; `what` names it in errors."""
    try:
        value = json_input.loads(text)
    except json_input.JsonRefused as exc:
        raise BundleMalformed(f"{what} is not JSON") from exc
    if not isinstance(value, dict):
        raise BundleMalformed(f"{what} is not a JSON object")
    first, second = value.get(names[0]), value.get(names[1])
    if not isinstance(first, str) or not isinstance(second, str):
        raise BundleMalformed(f"{what} needs string fields {names[0]} and {names[1]}")
    return first, second
