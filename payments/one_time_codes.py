"""The pieces every one-time code the service issues shares: a six-digit code (`123456` in the
sandbox, the reference's sandbox code), its keyed digest (the only form stored), a constant-time
check, and SMS delivery through the `SMS_BACKEND`. Callers keep their own expiry, attempt and
resend rules (SCA challenges in `payments.sca`, contact verification in
`payments.contact_verification`)."""

from __future__ import annotations

import hmac
import secrets
import string
from typing import Any

from django.conf import settings
from django.utils.crypto import salted_hmac
from django.utils.module_loading import import_string

SANDBOX_CODE = "123456"
CODE_LENGTH = 6


def code_new() -> str:
    if settings.SANDBOX:
        return SANDBOX_CODE
    return "".join(secrets.choice(string.digits) for _ in range(CODE_LENGTH))


def code_digest(purpose: str, salt: Any, code: str) -> str:
    """The stored form of `code`, issued for the record `salt` (its id) under `purpose`."""
    return salted_hmac(purpose, f"{salt}:{code}", algorithm="sha256").hexdigest()


def code_matches(purpose: str, salt: Any, code: str, digest: str) -> bool:
    return bool(digest) and hmac.compare_digest(code_digest(purpose, salt, code), digest)


def sms_send(*, to: str, message: str) -> None:
    import_string(settings.SMS_BACKEND)().send(to=to, message=message)
