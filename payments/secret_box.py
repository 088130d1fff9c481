"""Secrets at rest: AES-256-GCM under SERVICE_SECRETS_KEY, bound to a purpose so a value sealed
for one use cannot be passed off as another."""

from __future__ import annotations

import base64
import os
from functools import cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

_VERSION = "v1"


class SecretBoxError(Exception):
    pass


@cache
def _aead(key_text: str) -> AESGCM:
    try:
        key = base64.urlsafe_b64decode(key_text + "=" * (-len(key_text) % 4))
    except ValueError as exc:
        raise ImproperlyConfigured("SERVICE_SECRETS_KEY must be urlsafe base64") from exc
    if len(key) != 32:
        raise ImproperlyConfigured("SERVICE_SECRETS_KEY must decode to 32 bytes")
    return AESGCM(key)


def seal(plaintext: bytes, *, purpose: str) -> str:
    nonce = os.urandom(12)
    ciphertext = _aead(settings.SERVICE_SECRETS_KEY).encrypt(nonce, plaintext, purpose.encode())
    return f"{_VERSION}.{base64.urlsafe_b64encode(nonce + ciphertext).decode().rstrip('=')}"


def unseal(token: str, *, purpose: str) -> bytes:
    version, _, body = token.partition(".")
    if version != _VERSION or not body:
        raise SecretBoxError("not a sealed secret")
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    try:
        return _aead(settings.SERVICE_SECRETS_KEY).decrypt(raw[:12], raw[12:], purpose.encode())
    except InvalidTag as exc:
        raise SecretBoxError("sealed secret does not open with this key and purpose") from exc


def sealed_text(*, field: str, purpose: str) -> property:
    """A model property whose text is kept sealed (for `purpose`) in the model's `field`; "" when empty."""

    def read(obj: object) -> str:
        sealed = getattr(obj, field)
        return unseal(sealed, purpose=purpose).decode() if sealed else ""

    def write(obj: object, value: str) -> None:
        setattr(obj, field, seal(value.encode(), purpose=purpose) if value else "")

    return property(read, write)
