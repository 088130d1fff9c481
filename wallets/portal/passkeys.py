"""WebAuthn glue between the browser and the service.

The browser speaks the WebAuthn JSON forms (`PublicKeyCredential.parseCreationOptionsFromJSON`,
`credential.toJSON()`); the service takes its own wire objects (`attestation`, `assertion`, spec
"WebAuthn field map"). The portal issues the registration challenge (spec: the integrator backend
does); the login challenge comes from the service as lowercase hex whose UTF-8 bytes are the
WebAuthn challenge.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from payments.client.webauthn_options import RelyingParty, creation_options

TIMEOUT_MS = 120_000
_MAX_FIELD = 64 * 1024
# A signed cookie naming the passkey last used in this browser, and for which address (a digest):
# the address typed at sign-in goes to that passkey first; other addresses get an emailed code.
HINT_COOKIE = "portal_passkey"
_HINT_SALT = "wallets.portal.passkey-hint"
_HINT_SECONDS = 365 * 86400


class BrowserCredentialInvalid(ValueError):
    """The credential JSON posted by the browser does not have the WebAuthn JSON shape."""


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def user_handle(wallet_account_id: str) -> bytes:
    """A stable WebAuthn user id per wallet, so an authenticator keeps one passkey per wallet."""
    return hashlib.sha256(b"portal-webauthn-user\0" + wallet_account_id.encode()).digest()


def registration_options(
    *, wallet_account_id: str, email: str, existing_credential_ids: list[str]
) -> tuple[dict[str, Any], str]:
    """Creation options for `navigator.credentials.create` and the challenge (base64url) to keep."""
    options, challenge = creation_options(
        RelyingParty(settings.PORTAL_WEBAUTHN_RP_ID, settings.PORTAL_WEBAUTHN_RP_NAME, TIMEOUT_MS),
        user_id=user_handle(wallet_account_id),
        user_name=email,
        user_display_name=email,
        exclude_credential_ids=[_b64url_decode(cid) for cid in existing_credential_ids if cid],
    )
    return options, b64url(challenge)


def request_options(*, challenge: str, credential_id: str) -> dict[str, Any]:
    """Request options for `navigator.credentials.get`: the service's hex challenge, UTF-8 encoded."""
    return {
        "challenge": b64url(challenge.encode("utf-8")),
        "rpId": settings.PORTAL_WEBAUTHN_RP_ID,
        "allowCredentials": [{"type": "public-key", "id": credential_id}],
        "userVerification": "preferred",
        "timeout": TIMEOUT_MS,
    }


def decoy_request_options() -> dict[str, Any]:
    """Options that look like real ones, for an email address without a passkey (no enumeration)."""
    return request_options(challenge=secrets.token_hex(32), credential_id=b64url(secrets.token_bytes(32)))


def autofill_request_options() -> dict[str, Any]:
    """Options for the browser's passkey autofill (conditional mediation): no credential named, so the
    browser offers every passkey it has for this site. The pick only tells which passkey the person
    chose (by `rawId` and `userHandle`); the sign-in itself is then the service's challenge for it."""
    return {
        "challenge": b64url(secrets.token_bytes(32)),
        "rpId": settings.PORTAL_WEBAUTHN_RP_ID,
        "allowCredentials": [],
        "userVerification": "preferred",
        "timeout": TIMEOUT_MS,
    }


def _email_digest(email: str) -> str:
    return hashlib.sha256(b"portal-passkey-hint\0" + email.lower().encode()).hexdigest()[:32]


def hint_set(response: HttpResponse, request: HttpRequest, *, email: str, credential_id: str) -> None:
    response.set_signed_cookie(
        HINT_COOKIE,
        f"{_email_digest(email)}|{credential_id}",
        salt=_HINT_SALT,
        max_age=_HINT_SECONDS,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def hint_credential(request: HttpRequest, email: str) -> str | None:
    """The passkey (its AuthMethod id) this browser last signed in with for `email`, if any."""
    value = request.get_signed_cookie(HINT_COOKIE, default=None, salt=_HINT_SALT, max_age=_HINT_SECONDS)
    digest, _, credential_id = (value or "").partition("|")
    return credential_id if credential_id and digest == _email_digest(email) else None


def picked_passkey(credential: Any) -> tuple[str, str]:
    """(WebAuthn credential id, user handle as hex) of a passkey the browser's autofill returned."""
    credential, response = _parts(credential)
    raw_id = _text(credential, "rawId")
    handle = _text(response, "userHandle", optional=True) or ""
    try:
        return raw_id, _b64url_decode(handle).hex()
    except ValueError as exc:
        raise BrowserCredentialInvalid("userHandle is not base64url") from exc


def _text(data: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    value = data.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or len(value) > _MAX_FIELD:
        raise BrowserCredentialInvalid(f"{name} is missing")
    return value


def _parts(credential: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if not isinstance(credential, dict) or credential.get("type") != "public-key":
        raise BrowserCredentialInvalid("not a public-key credential")
    response = credential.get("response")
    if not isinstance(response, dict):
        raise BrowserCredentialInvalid("response is missing")
    return credential, response


def attestation_from_browser(credential: Any) -> dict[str, Any]:
    """RegistrationResponseJSON (from `toJSON()`) → the service's `attestation` object."""
    credential, response = _parts(credential)
    attestation: dict[str, Any] = {
        "credentialId": _text(credential, "rawId"),
        "clientDataJson": _text(response, "clientDataJSON"),
        "attestationObject": _text(response, "attestationObject"),
    }
    transports = response.get("transports")
    if isinstance(transports, list) and all(isinstance(t, str) for t in transports):
        known = {"usb", "nfc", "ble", "internal", "hybrid"}
        attestation["transports"] = [t for t in transports if t in known]
    return attestation


def assertion_from_browser(credential: Any) -> dict[str, Any]:
    """AuthenticationResponseJSON (from `toJSON()`) → the service's `assertion` object."""
    credential, response = _parts(credential)
    assertion = {
        "credentialId": _text(credential, "rawId"),
        "clientDataJson": _text(response, "clientDataJSON"),
        "authenticatorData": _text(response, "authenticatorData"),
        "signature": _text(response, "signature"),
    }
    user_handle_value = _text(response, "userHandle", optional=True)
    if user_handle_value:
        assertion["userHandle"] = user_handle_value
    return assertion
