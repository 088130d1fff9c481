"""Who is signed in to the portal, and the helpers that send people to sign in (and back).

Sign-in state lives in the Django session: `portal_account_id` (the PortalAccount) and
`portal_auth_at` (when they last proved who they are, for the re-authentication window). The
session signing key that goes with it is in `custody`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import rotate_token
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from payments.client import Session
from wallets.portal import custody
from wallets.portal.custody import ACCOUNT, ACCOUNT_CACHE
from wallets.portal.http import go, service_errors
from wallets.portal.models import PortalAccount

AUTH_AT = "portal_auth_at"


def current_account(request: HttpRequest) -> PortalAccount | None:
    """The signed-in portal account, or None. A browser whose service session was ended (signed out
    from another browser, through the API, or with its credential) is signed out here, at its first
    request after that (`custody.session_check`)."""
    if not hasattr(request, ACCOUNT_CACHE):
        account_id = request.session.get(ACCOUNT)
        account = PortalAccount.objects.filter(pk=account_id).first() if account_id else None
        setattr(request, ACCOUNT_CACHE, account)
        if account is not None and not custody.session_check(request, account):
            custody.browser_sign_out(request, revoke=False)
    return getattr(request, ACCOUNT_CACHE)


def safe_next(request: HttpRequest, candidate: str | None, default: str | None = None) -> str:
    """`candidate` when it is a URL of this site, otherwise `default` (the portal's home): no open
    redirects."""
    fallback = default or reverse("portal:home")
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return fallback


def login_url(next_url: str | None = None, *, reauth: bool = False) -> str:
    query = {}
    if next_url:
        query["next"] = next_url
    if reauth:
        query["reauth"] = "1"
    return reverse("portal:login") + (f"?{urlencode(query)}" if query else "")


def portal_login_required[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """Views for signed-in users only; others go to sign in and come back here (GET) afterwards."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if current_account(request) is None:
            back = request.get_full_path() if request.method == "GET" else None
            if getattr(request, "htmx", False):
                back = request.headers.get("HX-Current-URL") or back
            return go(request, login_url(safe_next(request, back) if back else None))
        return view(request, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def signed_in_service_view[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """The money and payment-security pages: `portal_login_required` around `service_errors`."""
    return portal_login_required(service_errors(view))


def reauth_redirect(request: HttpRequest, next_url: str) -> HttpResponse:
    """Send the user through sign-in (their key expired or was revoked, or the action needs a fresh
    sign-in) and back to `next_url` afterwards. `next_url` should be a GET page that shows the
    interrupted action again (a confirmation page), so it resumes with one click and nothing is
    replayed behind the user's back. htmx requests get an `HX-Redirect`."""
    return go(request, login_url(safe_next(request, next_url), reauth=True))


def auth_is_fresh(request: HttpRequest) -> bool:
    """Signed in within `PORTAL_REAUTH_SECONDS`, with a live session key: enough to add or remove
    credentials and to export the wallet."""
    at = request.session.get(AUTH_AT)
    if not at or time.time() - at > settings.PORTAL_REAUTH_SECONDS:
        return False
    return custody.current_session_key(request) is not None


def login_complete(
    request: HttpRequest,
    *,
    account: PortalAccount,
    session: Session,
    private_key_hex: str,
    credential_id: str,
    credential_type: str,
) -> None:
    """Sign `account` in on this browser with the service's new `session` and its key. A new Django session key and CSRF
    token are issued (no session fixation); signing in as someone else first signs the other out."""
    previous = request.session.get(ACCOUNT)
    if previous:  # only a signed-in session has a key (`custody.session_key_store`)
        custody.session_keys_forget(request)
    with transaction.atomic():  # the old session row goes and the key comes in one commit
        if previous and previous != account.pk:
            request.session.flush()
        request.session.cycle_key()
        rotate_token(request)
        request.session[ACCOUNT] = account.pk
        request.session[AUTH_AT] = time.time()
        setattr(request, ACCOUNT_CACHE, account)
        custody.session_key_store(
            request,
            account=account,
            session_id=session.id,
            private_key_hex=private_key_hex,
            expires_at=session.expires_at,
            credential_id=credential_id,
            credential_type=credential_type,
        )


def logout(request: HttpRequest) -> None:
    """End the service session, delete the key, and forget everything in the Django session."""
    custody.browser_sign_out(request)
