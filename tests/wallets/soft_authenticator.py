"""A software passkey authenticator for browser-free tests, built on python-fido2's data classes.

It produces real ES256 credentials: "none" attestations at registration and signed assertions,
both as the service's wire objects (base64url fields, ``clientDataJson`` spelled with
lowercase ``json``). The keyword arguments of ``register`` and ``assert_`` bend one thing at a
time so tests can build each failure from an otherwise genuine response.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.webauthn import (
    AttestationObject,
    AttestedCredentialData,
    AuthenticatorData,
    CollectedClientData,
)

_FLAG = AuthenticatorData.FLAG
DEFAULT_AAGUID = bytes.fromhex("7d1351a6e097c4f8a3e2b1c0d9e8f7a6")
TRANSPORTS = ["internal", "hybrid"]


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


@dataclass
class _Credential:
    key: ec.EllipticCurvePrivateKey
    user_handle: bytes
    counter: int


class SoftAuthenticator:
    """One authenticator bound to ``rp_id``, running ceremonies on the page ``origin``."""

    def __init__(self, rp_id: str, origin: str, *, aaguid: bytes = DEFAULT_AAGUID) -> None:
        self.rp_id = rp_id
        self.origin = origin
        self.aaguid = aaguid
        self._credentials: dict[bytes, _Credential] = {}

    def register(
        self,
        challenge: str,
        *,
        origin: str | None = None,
        rp_id: str | None = None,
        user_present: bool = True,
        sign_count: int = 0,
        user_handle: bytes | None = None,
    ) -> dict:
        """Create a credential for the base64url registration ``challenge``; return the wire attestation.
        ``user_handle`` is the options' ``user.id`` (random when the test does not care)."""
        key = ec.generate_private_key(ec.SECP256R1())
        credential_id = os.urandom(32)
        self._credentials[credential_id] = _Credential(
            key=key, user_handle=user_handle or os.urandom(16), counter=sign_count
        )
        client_data = CollectedClientData.create(
            "webauthn.create", b64url_decode(challenge), origin or self.origin
        )
        attested = AttestedCredentialData.create(
            self.aaguid, credential_id, ES256.from_cryptography_key(key.public_key())
        )
        flags = (_FLAG.UP if user_present else 0) | _FLAG.UV | _FLAG.AT
        auth_data = AuthenticatorData.create(self._rp_hash(rp_id), flags, sign_count, attested)
        return {
            "credentialId": b64url(credential_id),
            "clientDataJson": b64url(bytes(client_data)),
            "attestationObject": b64url(bytes(AttestationObject.create("none", auth_data, {}))),
            "transports": list(TRANSPORTS),
        }

    def assert_(
        self,
        challenge: str,
        credential_id: str | bytes,
        *,
        origin: str | None = None,
        rp_id: str | None = None,
        user_present: bool = True,
        counter_step: int = 1,
    ) -> dict:
        """Sign an assertion over the UTF-8 bytes of ``challenge``; return the wire assertion.

        ``challenge`` is used exactly as the spec tells clients to: ``challenge.encode()``,
        never hex- or base64-decoded.
        """
        raw_id = credential_id if isinstance(credential_id, bytes) else b64url_decode(credential_id)
        credential = self._credentials[raw_id]
        credential.counter += counter_step
        client_data = CollectedClientData.create(
            "webauthn.get", challenge.encode("utf-8"), origin or self.origin
        )
        flags = (_FLAG.UP if user_present else 0) | _FLAG.UV
        auth_data = AuthenticatorData.create(self._rp_hash(rp_id), flags, credential.counter)
        signature = credential.key.sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        return {
            "credentialId": b64url(raw_id),
            "clientDataJson": b64url(bytes(client_data)),
            "authenticatorData": b64url(bytes(auth_data)),
            "signature": b64url(signature),
            "userHandle": b64url(credential.user_handle),
        }

    def _rp_hash(self, rp_id: str | None) -> bytes:
        return hashlib.sha256((rp_id or self.rp_id).encode("utf-8")).digest()
