"""Custody of session signing keys: one key per browser session, kept on the server, sealed at rest.

A key is found by the signed-in account *and* the Django session it was stored for, both read from
the server-side session, so a request can only ever reach its own user's key. Keys are never sent
to a browser, logged or shown in a repr; they are deleted on logout, when replaced by a new sign-in,
when they expire and when the service no longer accepts them (revoked).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.http import HttpRequest
from django.utils import timezone

from payments.client import KeySigner, ServiceClientError, ServiceError, Unauthorized
from wallets.portal import sealing
from wallets.portal.models import PortalAccount, PortalSessionKey
from wallets.portal.service import service_client

log = logging.getLogger(__name__)

# Keys of the Django session the portal writes (wallets.portal.auth uses the same names).
ACCOUNT = "portal_account_id"

# The service answers this when a stamp's key is not an active session of the wallet any more.
_REJECTED_CODES = frozenset({"WALLET_SIGNATURE_INVALID"})


def _purpose(account_id: int, service_session_id: str) -> str:
    return f"portal-session-key:{account_id}:{service_session_id}"


def current_session_key(request: HttpRequest) -> PortalSessionKey | None:
    """The signed-in account's key for this browser session, while it has not expired."""
    account_id = request.session.get(ACCOUNT)
    django_key = request.session.session_key
    if not account_id or not django_key:
        return None
    row = PortalSessionKey.objects.filter(account_id=account_id, django_session_key=django_key).first()
    if row is None:
        return None
    if row.expires_at <= timezone.now():
        row.delete()
        return None
    return row


def _signer(row: PortalSessionKey) -> KeySigner | None:
    try:
        private = sealing.unseal(
            row.private_key_sealed, purpose=_purpose(row.account_id, row.service_session_id)
        )
    except sealing.UnsealFailed:
        log.warning("portal session key %s does not open; deleting it", row.pk)
        row.delete()
        return None
    return KeySigner(private.decode("ascii"))


def session_signer(request: HttpRequest) -> KeySigner | None:
    """The current user's active session key, or None (expired, revoked, signed out): send the user
    through `wallets.portal.auth.reauth_redirect` then."""
    row = current_session_key(request)
    return _signer(row) if row is not None else None


def session_key_store(
    request: HttpRequest,
    *,
    account: PortalAccount,
    session_id: str,
    private_key_hex: str,
    expires_at: dt.datetime,
    credential_id: str = "",
    credential_type: str = "",
) -> PortalSessionKey:
    """Keep a new session key for this browser session, replacing (and revoking) any previous one.
    The caller has put `account` into the session (`wallets.portal.auth.login_complete`)."""
    if request.session.session_key is None:
        request.session.save()
    session_keys_forget(request)
    PortalSessionKey.objects.filter(expires_at__lte=timezone.now()).delete()
    signer = KeySigner(private_key_hex)
    return PortalSessionKey.objects.create(
        account=account,
        django_session_key=request.session.session_key,
        service_session_id=session_id,
        credential_id=credential_id,
        credential_type=credential_type,
        public_key_hex=signer.public_key_hex,
        private_key_sealed=sealing.seal(
            signer.private_key_hex.encode("ascii"), purpose=_purpose(account.pk, session_id)
        ),
        expires_at=expires_at,
    )


def session_keys_forget(request: HttpRequest, *, revoke: bool = True) -> None:
    """Delete this browser session's key (logout, a new sign-in, a key the service rejected). With
    `revoke`, its service session is ended first, signed by itself; failures there are ignored."""
    django_key = request.session.session_key
    if not django_key:
        return
    for row in PortalSessionKey.objects.filter(django_session_key=django_key):
        if revoke and row.expires_at > timezone.now():
            signer = _signer(row)
            if signer is not None:
                _service_session_end(row.service_session_id, signer)
        row.delete()


def _service_session_end(session_id: str, signer: KeySigner) -> None:
    try:
        service_client().sessions.revoke(session_id, signer)
    except ServiceClientError as exc:  # already ended, or the service is away: the key goes anyway
        log.info("could not end service session %s: %s", session_id, type(exc).__name__)


def session_key_rejected(request: HttpRequest, exc: Exception) -> bool:
    """True when `exc` says the kept key is no longer an active session (revoked or expired at the
    service); the key is then forgotten and the caller sends the user to re-authenticate."""
    if isinstance(exc, Unauthorized) and isinstance(exc, ServiceError) and exc.code in _REJECTED_CODES:
        session_keys_forget(request, revoke=False)
        return True
    return False
