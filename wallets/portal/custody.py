"""Custody of session signing keys: one key per browser session, kept on the server, sealed at rest.

A key is found by the signed-in account *and* the Django session it was stored for, both read from
the server-side session, so a request can only ever reach its own user's key. Keys are never sent
to a browser, logged or shown in a repr; they are deleted on logout, when replaced by a new sign-in,
when they expire and when the service no longer accepts them (revoked).

A browser stays signed in only while its service session does (`session_check`): the portal asks
the service at most every `PORTAL_SESSION_CHECK_SECONDS` per browser, and ends the browsers that
hold a session at once when it revokes that session itself (`browser_sessions_end`).
"""

from __future__ import annotations

import datetime as dt
import logging
from importlib import import_module

from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import rotate_token
from django.utils import timezone

from payments.client import KeySigner, ServiceClientError, ServiceError, Unauthorized
from wallets.portal import sealing
from wallets.portal.devices import device_name
from wallets.portal.models import PortalAccount, PortalSessionKey
from wallets.portal.service import service_client
from wallets.portal.sweeps import Sweep
from wallets.portal.throttle import client_ip

log = logging.getLogger(__name__)

# Keys of the Django session the portal writes (wallets.portal.auth uses the same names).
ACCOUNT = "portal_account_id"
# Where a request keeps its signed-in account once looked up (`wallets.portal.auth.current_account`).
ACCOUNT_CACHE = "_portal_account"

# The service answers this when a stamp's key is not an active session of the wallet any more.
_REJECTED_CODES = frozenset({"WALLET_SIGNATURE_INVALID"})

# An expired key is deleted when its browser comes back (`current_session_key`), and the others by
# this, on a sign-in.
_expired_keys_sweep = Sweep()


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
    """Keep a new session key for this browser session. The caller (`wallets.portal.auth.login_complete`)
    has put `account` into the session, under a new session key, and forgotten any previous key."""
    if request.session.session_key is None:
        request.session.save()
    if _expired_keys_sweep.due():
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
        device=device_name(request.headers.get("User-Agent", "")),
        ip_address=client_ip(request),
    )


def session_check(request: HttpRequest, account: PortalAccount) -> bool:
    """False when this browser's service session was ended (signed out elsewhere, through the API,
    or with its credential): the caller signs the browser out. Asks the service at most every
    `PORTAL_SESSION_CHECK_SECONDS`, and notes the browser's activity for the Security page then.
    A browser without a live key (it expired) has nothing to check: it signs in again for changes."""
    row = current_session_key(request)
    if row is None or row.account_id != account.pk:
        return True
    now = timezone.now()
    if (now - row.checked_at).total_seconds() < settings.PORTAL_SESSION_CHECK_SECONDS:
        return True
    try:
        active = {s.id for s in service_client().sessions.list(account.wallet_account_id)}
    except ServiceClientError as exc:  # cannot tell now: ask again on the next request
        log.info("portal: could not check session %s: %s", row.service_session_id, type(exc).__name__)
        PortalSessionKey.objects.filter(pk=row.pk).update(last_seen=now, ip_address=client_ip(request))
        return True
    if row.service_session_id not in active:
        return False
    PortalSessionKey.objects.filter(pk=row.pk).update(
        checked_at=now, last_seen=now, ip_address=client_ip(request)
    )
    return True


def browser_sessions_end(account: PortalAccount, *, session_id: str = "", credential_id: str = "") -> None:
    """Sign out, at their next request, the browsers of `account` that hold the service session
    `session_id`, or any session of the credential `credential_id`: the portal has just ended it.
    Their Django sessions are deleted (whatever they were doing is forgotten) and their keys with them."""
    rows = PortalSessionKey.objects.filter(account=account)
    if session_id:
        rows = rows.filter(service_session_id=session_id)
    elif credential_id:
        rows = rows.filter(credential_id=credential_id)
    else:
        return
    store = import_module(settings.SESSION_ENGINE).SessionStore
    for row in rows:
        store(session_key=row.django_session_key).delete()
        row.delete()


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


def browser_sign_out(request: HttpRequest, *, revoke: bool = True) -> None:
    """End this browser's sign-in: its key (and with `revoke`, its service session) and everything
    in its Django session go; it gets a new CSRF token."""
    session_keys_forget(request, revoke=revoke)
    request.session.flush()
    rotate_token(request)
    setattr(request, ACCOUNT_CACHE, None)


def session_key_rejected(request: HttpRequest, exc: Exception) -> bool:
    """True when `exc` says the kept key is no longer an active session (revoked, or expired at the
    service): this browser is then signed out, and the caller sends the person to sign in again
    (`wallets.portal.auth.reauth_redirect`), back to the interrupted page afterwards."""
    if isinstance(exc, Unauthorized) and isinstance(exc, ServiceError) and exc.code in _REJECTED_CODES:
        browser_sign_out(request, revoke=False)
        return True
    return False
