"""The portal's secrets at rest: AES-256-GCM under `PORTAL_SECRETS_KEY` (32 bytes, urlsafe base64).

The portal's own helper, not the service's `secret_box`: an integrator keeps its keys with its own
key. `purpose` is the associated data, so a sealed value only opens for the record it was sealed for.
Format: `v1.` + urlsafe base64 (no padding) of nonce (12 bytes) || ciphertext || tag.
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

_PREFIX = "v1."
_NONCE_SIZE = 12


class UnsealFailed(ValueError):
    """The value was sealed under another key or purpose, or was altered."""


def _cipher() -> AESGCM:
    value = settings.PORTAL_SECRETS_KEY
    if not value:
        raise ImproperlyConfigured("PORTAL_SECRETS_KEY must be set in production mode")
    try:
        key = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError, TypeError):
        key = b""
    if len(key) != 32:
        raise ImproperlyConfigured("PORTAL_SECRETS_KEY must be 32 bytes in urlsafe base64")
    return AESGCM(key)


def seal(plaintext: bytes, *, purpose: str) -> str:
    nonce = os.urandom(_NONCE_SIZE)
    sealed = nonce + _cipher().encrypt(nonce, plaintext, purpose.encode())
    return _PREFIX + base64.urlsafe_b64encode(sealed).rstrip(b"=").decode("ascii")


def unseal(value: str, *, purpose: str) -> bytes:
    if not value.startswith(_PREFIX):
        raise UnsealFailed("unknown sealed format")
    body = value[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        return _cipher().decrypt(raw[:_NONCE_SIZE], raw[_NONCE_SIZE:], purpose.encode())
    except (binascii.Error, ValueError, InvalidTag) as exc:
        raise UnsealFailed("the sealed value does not open with this key and purpose") from exc
