"""Wallet wire-format cryptography as an integrator's backend does it.

Self-contained on purpose (cryptography, pyhpke and base58 only; nothing of the service), so
that it proves the wire formats rather than sharing the service's code:

- ``stamp``: the ``Service-Wallet-Signature`` header value over a ``payloadToSign``;
- ``otp_bundle_encrypt``: answer to an ``otpEncryptionTargetBundle`` (``encryptedOtpBundle``);
- ``credential_bundle_open``: the session key inside ``encryptedSessionSigningKey``;
- ``export_bundle_open``: the secret inside ``encryptedWalletCredentials``;
- ``private_key_from_bytes``: a P-256 private key from its 32-byte scalar (the service loads its
  own keys with it too).

HPKE profile: DHKEM(P-256)/HKDF-SHA256/AES-256-GCM, info ``turnkey_hpke``, AAD = enc (65 bytes)
|| recipient public key (65 bytes), both uncompressed.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

import base58
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey
from pyhpke.exceptions import OpenError

STAMP_HEADER = "Service-Wallet-Signature"
STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

_CURVE = ec.SECP256R1()
_HPKE_INFO = b"turnkey_hpke"
# pyhpke 0.6.5's single-shot seal()/open() raise NotImplementedError, so contexts are used.
_HPKE_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]+")
_SESSION_KEY_SIZE = 32
_TAG_SIZE = 16


class WalletCryptoError(ValueError):
    """Base of the errors raised here."""


class InvalidKey(WalletCryptoError):
    """A key is not a valid P-256 public point or 32-byte private scalar."""


class BundleMalformed(WalletCryptoError):
    """A bundle does not have the documented shape."""


class BundleUntrusted(WalletCryptoError):
    """A signed bundle names another signer, its signature fails, or its organization differs."""


class BundleDecryptFailed(WalletCryptoError):
    """HPKE decryption failed (wrong key or tampered bundle)."""


@dataclass(frozen=True, slots=True)
class KeyPair:
    private_key_hex: str = field(repr=False)
    public_key_hex_compressed: str
    public_key_hex_uncompressed: str


def generate_key_pair() -> KeyPair:
    key = ec.generate_private_key(_CURVE)
    return KeyPair(
        private_key_hex=key.private_numbers().private_value.to_bytes(32, "big").hex(),
        public_key_hex_compressed=_public_bytes(key.public_key(), compressed=True).hex(),
        public_key_hex_uncompressed=_public_bytes(key.public_key(), compressed=False).hex(),
    )


def private_key_from_bytes(data: bytes) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from its 32-byte big-endian scalar (leading zero bytes included)."""
    if len(data) != 32:
        raise InvalidKey("private key must be exactly 32 bytes (64 hex characters)")
    try:
        return ec.derive_private_key(int.from_bytes(data, "big"), _CURVE)
    except ValueError as exc:
        raise InvalidKey("private key is out of range for P-256") from exc


def stamp(payload: str, private_key_hex: str) -> str:
    """Header value signing the exact UTF-8 bytes of ``payload`` (never re-serialise it)."""
    key = _private_key(private_key_hex)
    signature = key.sign(payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    body = _compact_json(
        {
            "publicKey": _public_bytes(key.public_key(), compressed=True).hex(),
            "scheme": STAMP_SCHEME,
            "signature": signature.hex(),
        }
    )
    return base64.urlsafe_b64encode(body.encode("utf-8")).rstrip(b"=").decode("ascii")


def otp_bundle_encrypt(
    target_bundle_json: str,
    otp_code: str,
    client_public_key_hex: str,
    *,
    trusted_signer_public_hex: str | None,
) -> str:
    """Build ``encryptedOtpBundle`` for the code the user typed.

    With ``trusted_signer_public_hex`` the bundle's ``enclaveQuorumPublic`` must be that key
    (compared as a point, so either SEC1 form may be pinned) and ``dataSignature`` must verify
    under it; ``None`` skips both checks, as some clients do.
    """
    envelope = _json_object(target_bundle_json, what="target bundle")
    data = _envelope_data(envelope, trusted_signer_public_hex=trusted_signer_public_hex)
    target = _json_object(_utf8(data, what="target bundle data"), what="target bundle data")
    try:
        target_public = _public_key(_str_field(target, "targetPublic"))
    except InvalidKey as exc:
        raise BundleMalformed("targetPublic is not a P-256 point") from exc
    _public_key(client_public_key_hex)  # the server would reject a non-point anyway
    plaintext = _compact_json({"otp_code": otp_code, "public_key": client_public_key_hex})
    enc, ciphertext = _hpke_seal(plaintext.encode("utf-8"), target_public)
    return _compact_json({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})


def credential_bundle_open(bundle: str, private_key_hex: str) -> bytes:
    """Return the 32-byte session private key inside ``encryptedSessionSigningKey``."""
    if not isinstance(bundle, str) or not _BASE58.fullmatch(bundle):
        raise BundleMalformed("credential bundle is not base58")
    try:
        payload = base58.b58decode_check(bundle)
    except ValueError as exc:
        raise BundleMalformed("credential bundle checksum does not match") from exc
    if len(payload) < 33 + _TAG_SIZE:
        raise BundleMalformed("credential bundle is too short")
    session_key = _hpke_open(payload[:33], payload[33:], _private_key(private_key_hex))
    if len(session_key) != _SESSION_KEY_SIZE:
        raise BundleMalformed("credential bundle does not hold a 32-byte key")
    return session_key


def export_bundle_open(
    bundle: str,
    private_key_hex: str,
    *,
    trusted_signer_public_hex: str | None,
    organization_id: str | None,
) -> str:
    """Return the secret (mnemonic) inside ``encryptedWalletCredentials``.

    ``trusted_signer_public_hex`` pins the signer and ``organization_id`` must equal the
    bundle's; ``None`` skips the respective check (sandboxes without a signer).
    """
    envelope = _json_object(bundle, what="export bundle")
    data = _envelope_data(envelope, trusted_signer_public_hex=trusted_signer_public_hex)
    inner = _json_object(_utf8(data, what="export bundle data"), what="export bundle data")
    if organization_id is not None and inner.get("organizationId") != organization_id:
        raise BundleUntrusted("export bundle belongs to another organization")
    enc = _hex(_str_field(inner, "encappedPublic"), what="encappedPublic")
    ciphertext = _hex(_str_field(inner, "ciphertext"), what="ciphertext")
    secret = _hpke_open(enc, ciphertext, _private_key(private_key_hex))
    return _utf8(secret, what="exported secret")


def _envelope_data(envelope: dict[str, Any], *, trusted_signer_public_hex: str | None) -> bytes:
    data = _hex(_str_field(envelope, "data"), what="data")
    if trusted_signer_public_hex is None:
        return data
    trusted = _public_key(trusted_signer_public_hex)
    try:
        named = _public_key(_str_field(envelope, "enclaveQuorumPublic"))
    except InvalidKey as exc:
        raise BundleMalformed("enclaveQuorumPublic is not a P-256 point") from exc
    if _public_bytes(named, compressed=True) != _public_bytes(trusted, compressed=True):
        raise BundleUntrusted("bundle is signed by an untrusted key")
    signature = _hex(_str_field(envelope, "dataSignature"), what="dataSignature")
    try:
        trusted.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise BundleUntrusted("bundle signature does not verify") from exc
    return data


def _hpke_seal(plaintext: bytes, recipient: ec.EllipticCurvePublicKey) -> tuple[bytes, bytes]:
    enc, context = _HPKE_SUITE.create_sender_context(
        KEMKey.from_pyca_cryptography_key(recipient), info=_HPKE_INFO
    )
    return enc, context.seal(plaintext, aad=enc + _public_bytes(recipient, compressed=False))


def _hpke_open(enc: bytes, ciphertext: bytes, recipient: ec.EllipticCurvePrivateKey) -> bytes:
    try:
        enc_point = ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, enc)
    except ValueError as exc:
        raise BundleMalformed("encapsulated key is not a P-256 point") from exc
    # Credential bundles carry enc compressed; the KEM context and AAD need the 65-byte form.
    enc65 = _public_bytes(enc_point, compressed=False)
    context = _HPKE_SUITE.create_recipient_context(
        enc65, KEMKey.from_pyca_cryptography_key(recipient), info=_HPKE_INFO
    )
    try:
        return context.open(ciphertext, aad=enc65 + _public_bytes(recipient.public_key(), compressed=False))
    except OpenError as exc:
        raise BundleDecryptFailed("HPKE decryption failed") from exc


def _key_hex(value: str, *, what: str) -> bytes:
    try:
        return _hex(value, what=what)
    except BundleMalformed as exc:
        raise InvalidKey(f"{what} is not hex") from exc


def _private_key(value: str) -> ec.EllipticCurvePrivateKey:
    return private_key_from_bytes(_key_hex(value, what="private key"))


def _public_key(value: str) -> ec.EllipticCurvePublicKey:
    raw = _key_hex(value, what="public key")
    if len(raw) not in (33, 65):
        raise InvalidKey("public key must be 33 or 65 bytes of SEC1")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, raw)
    except ValueError as exc:
        raise InvalidKey("public key is not a P-256 point") from exc


def _public_bytes(key: ec.EllipticCurvePublicKey, *, compressed: bool) -> bytes:
    fmt = PublicFormat.CompressedPoint if compressed else PublicFormat.UncompressedPoint
    return key.public_bytes(Encoding.X962, fmt)


def _compact_json(value: Any) -> str:
    # As JSON.stringify writes it: no whitespace, non-ASCII characters unescaped.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _json_object(text: str, *, what: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise BundleMalformed(f"{what} must be a string")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BundleMalformed(f"{what} is not JSON") from exc
    if not isinstance(value, dict):
        raise BundleMalformed(f"{what} is not a JSON object")
    return value


def _str_field(obj: dict[str, Any], name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str):
        raise BundleMalformed(f"missing string field {name}")
    return value


def _hex(value: str, *, what: str) -> bytes:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise BundleMalformed(f"{what} is not hex")
    return bytes.fromhex(value)


def _utf8(data: bytes, *, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleMalformed(f"{what} is not UTF-8") from exc
