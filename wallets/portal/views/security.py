"""The security page: credentials and sessions, renaming a passkey, removing a credential, signing
other sessions out, the card keys (delegated keys) and revoking one, the privacy switch, and the
wallet export.

Adding or removing credentials and exporting need a fresh sign-in (`PORTAL_REAUTH_SECONDS`); every
change is stamped with the kept session key. When the key has expired or was revoked the person signs
in again and comes back to the same page, where the action is offered again (page 8).
The service has no operation to rename a credential: a passkey's new name is the portal's own
(`wallets.portal.credential_names`).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import AuthMethod, KeySigner, ServiceClient, ServiceError, Session, wallet_crypto
from wallets.portal import custody, oauth
from wallets.portal.auth import (
    auth_is_fresh,
    current_account,
    login_url,
    logout,
    portal_login_required,
    reauth_redirect,
)
from wallets.portal.credential_names import (
    credential_label_forget,
    credential_label_set,
    credential_labels,
    credential_name,
)
from wallets.portal.forms import CredentialLabelForm
from wallets.portal.http import go, no_store, page, service_errors
from wallets.portal.models import PortalAccount, PortalOAuthLink, PortalSessionKey
from wallets.portal.service import export_signer_key, service_client, wallet_of
from wallets.portal.views.login import account_wallet_refresh
from wallets.portal.wording import explain

SECURITY_PAGE = "wallets/portal/security.html"
TYPE_LABELS = {
    "EMAIL_OTP": "Email code",
    "SMS_OTP": "Text message code",
    "PASSKEY": "Passkey",
    "OAUTH": "Sign-in provider",
}


def _wallet(client: ServiceClient, account: PortalAccount) -> str:
    wallet_id = account_wallet_refresh(client, account)
    if not wallet_id:
        raise Http404("This account has no wallet yet")
    return wallet_id


def _session_row(session: Session, browser: PortalSessionKey | None, *, is_current: bool) -> dict[str, Any]:
    """A session as the Security page lists it: the device, address and latest activity of the
    browser that holds it when it is one of ours; a session opened elsewhere (another app, the API)
    by when it began."""
    if browser is None:
        device, address = "Another app or device", ""
        activity = f"Signed in {timesince(session.created_at)} ago" if session.created_at else ""
    else:
        device, address = browser.device or "A web browser", browser.ip_address
        idle = timezone.now() - browser.last_seen
        activity = (
            "Active now"
            if is_current or idle.total_seconds() < 60
            else f"Active {timesince(browser.last_seen, depth=1)} ago"
        )
    return {
        "item": session,
        "label": TYPE_LABELS.get(session.type, session.type),
        "device": device,
        "address": address,
        "activity": activity,
        "is_current": is_current,
    }


def _security_context(request: HttpRequest, client: ServiceClient, account: PortalAccount) -> dict[str, Any]:
    wallet_id = _wallet(client, account)
    credentials = client.credentials.list(wallet_id)
    sessions = client.sessions.list(wallet_id)
    current = custody.current_session_key(request)
    browsers = {row.service_session_id: row for row in PortalSessionKey.objects.filter(account=account)}
    wallet = wallet_of(client, account.customer_id)
    labels = credential_labels(account)
    return {
        "account": account,
        "credentials": [
            {
                "item": c,
                "label": TYPE_LABELS.get(c.type, c.type),
                "name": credential_name(c, labels),
                "can_rename": c.type == "PASSKEY",
                "is_current": current is not None and c.id == current.credential_id,
            }
            for c in credentials
        ],
        "sessions": [
            _session_row(
                s, browsers.get(s.id), is_current=current is not None and s.id == current.service_session_id
            )
            for s in sessions
        ],
        "card_keys": [k for k in client.delegated_keys.list(account_id=wallet_id) if k.status != "REVOKED"],
        "private_enabled": bool(wallet and wallet.private_enabled),
        "has_key": current is not None,
        "fresh": auth_is_fresh(request),
        "oauth_enabled": oauth.enabled(),
        "can_remove": len(credentials) > 1,
    }


@service_errors
@portal_login_required
@require_http_methods(["GET"])
def security_view(request: HttpRequest) -> HttpResponse:
    client = service_client()
    context = _security_context(request, client, current_account(request))
    current = custody.current_session_key(request)
    if current is not None and not any(row["is_current"] for row in context["sessions"]):
        custody.browser_sign_out(request, revoke=False)  # its session was ended elsewhere
        return go(request, login_url(reverse("portal:security")))
    return no_store(page(request, SECURITY_PAGE, context))


def _credential(client: ServiceClient, wallet_id: str, credential_id: str) -> tuple[AuthMethod, int]:
    credentials = client.credentials.list(wallet_id)
    found = next((c for c in credentials if c.id == credential_id), None)
    if found is None:
        raise Http404("No such credential in this wallet")
    return found, len(credentials)


@service_errors
@portal_login_required
@require_http_methods(["GET", "POST"])
def credential_remove_view(request: HttpRequest, credential_id: str) -> HttpResponse:
    """GET: confirm; POST: remove, stamped by a session of *another* credential."""
    here = reverse("portal:credential-remove", args=[credential_id])
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    client = service_client()
    account = current_account(request)
    wallet_id = _wallet(client, account)
    credential, count = _credential(client, wallet_id, credential_id)
    current = custody.current_session_key(request)
    context = {
        "credential": credential,
        "label": TYPE_LABELS.get(credential.type, credential.type),
        "name": credential_name(credential, credential_labels(account)),
        "is_current": current is not None and current.credential_id == credential.id,
        "is_last": count <= 1,
        "here": here,
    }
    template = "wallets/portal/credential_remove.html"
    if request.method == "GET" or context["is_current"] or context["is_last"]:
        return no_store(page(request, template, context))
    signer = custody.session_signer(request)
    if signer is None:
        return reauth_redirect(request, here)
    try:
        client.credentials.revoke(credential.id, signer)
    except ServiceError as exc:
        if custody.session_key_rejected(request, exc):
            return reauth_redirect(request, here)
        if exc.status in (400, 401, 404):
            return page(request, template, {**context, "error": explain(exc)})
        raise
    custody.browser_sessions_end(account, credential_id=credential.id)  # the service ended them all
    PortalOAuthLink.objects.filter(account=account, credential_id=credential.id).delete()
    credential_label_forget(account, credential.id)
    messages.success(request, f"{context['label']} “{context['name']}” was removed.")
    return go(request, reverse("portal:security"))


def _passkey_row(account: PortalAccount, credential: AuthMethod, **extra: Any) -> dict[str, Any]:
    name = credential_name(credential, credential_labels(account))
    return {"item": credential, "name": name, "can_rename": True, **extra}


@service_errors
@portal_login_required
@require_http_methods(["GET", "POST"])
def credential_rename_view(request: HttpRequest, credential_id: str) -> HttpResponse:
    """Rename a passkey of this person's wallet, inline. GET: the name as a form (htmx: the row's name
    slot only, `?cancel=1` gives the name back; without JavaScript: the page with that row editing).
    POST: save it; empty goes back to the name it was added with."""
    client = service_client()
    account = current_account(request)
    credential, _count = _credential(client, _wallet(client, account), credential_id)
    if credential.type != "PASSKEY":
        raise Http404("Only passkeys can be renamed")
    htmx = bool(getattr(request, "htmx", False))

    def name_slot(**extra: Any) -> HttpResponse:
        row = _passkey_row(account, credential, **extra)
        return no_store(page(request, SECURITY_PAGE, {"row": row}, partial="credential-name"))

    if request.method == "GET" and htmx and request.GET.get("cancel"):
        return name_slot()
    if request.method == "GET":
        form = CredentialLabelForm(initial={"label": credential_name(credential, credential_labels(account))})
    else:
        form = CredentialLabelForm(request.POST)
        if form.is_valid():
            credential_label_set(account, credential, form.cleaned_data["label"])
            if htmx:
                return name_slot(saved=True)
            name = credential_name(credential, credential_labels(account))
            messages.success(request, f"Your passkey is now called “{name}”.")
            return go(request, reverse("portal:security"))
    if htmx:
        return name_slot(editing=True, form=form)
    context = _security_context(request, client, account)
    for row in context["credentials"]:
        if row["item"].id == credential.id:
            row.update(editing=True, form=form)
    return no_store(page(request, SECURITY_PAGE, context, status=400 if form.errors else 200))


@service_errors
@portal_login_required
@require_POST
def card_key_revoke_view(request: HttpRequest, key_id: str) -> HttpResponse:
    """Stop the service signing card payments from this wallet with a card key (a delegated key)."""
    security = reverse("portal:security")
    client = service_client()
    account = current_account(request)
    wallet_id = _wallet(client, account)
    key = next((k for k in client.delegated_keys.list(account_id=wallet_id) if k.id == key_id), None)
    if key is None:
        raise Http404("No such card key in this wallet")
    if key.status == "ACTIVE":
        client.delegated_keys.revoke(key.id)
    if not getattr(request, "htmx", False):
        messages.success(request, f"Card key “{key.nickname}” was revoked.")
        return go(request, security)
    context = _security_context(request, client, account)
    return page(request, SECURITY_PAGE, {**context, "card_keys_notice": "Revoked."}, partial="card_keys")


@service_errors
@portal_login_required
@require_POST
def session_revoke_view(request: HttpRequest, session_id: str) -> HttpResponse:
    """Sign a session out (this browser's own means signing out here)."""
    security = reverse("portal:security")
    current = custody.current_session_key(request)
    if current is not None and current.service_session_id == session_id:
        logout(request)
        return go(request, reverse("portal:home"))
    signer = custody.session_signer(request)
    if signer is None:
        return reauth_redirect(request, security)
    client = service_client()
    account = current_account(request)
    if session_id not in {s.id for s in client.sessions.list(_wallet(client, account))}:
        raise Http404("No such session in this wallet")
    try:
        client.sessions.revoke(session_id, signer)
    except ServiceError as exc:
        if custody.session_key_rejected(request, exc):
            return reauth_redirect(request, security)
        raise
    custody.browser_sessions_end(account, session_id=session_id)
    context = _security_context(request, client, account)
    if not getattr(request, "htmx", False):
        messages.success(request, "That session was signed out.")
        return go(request, security)
    return page(request, SECURITY_PAGE, {**context, "sessions_notice": "Signed out."}, partial="sessions")


@service_errors
@portal_login_required
@require_POST
def privacy_view(request: HttpRequest) -> HttpResponse:
    security = reverse("portal:security")
    signer = custody.session_signer(request)
    if signer is None:
        return reauth_redirect(request, security)
    client = service_client()
    account = current_account(request)
    enabled = request.POST.get("private_enabled") == "on"
    try:
        client.internal_accounts.update_privacy(_wallet(client, account), enabled, signer)
    except ServiceError as exc:
        if custody.session_key_rejected(request, exc):
            return reauth_redirect(request, security)
        raise
    notice = "Private mode is on." if enabled else "Private mode is off."
    if not getattr(request, "htmx", False):
        messages.success(request, notice)
        return go(request, security)
    return page(
        request,
        SECURITY_PAGE,
        {"private_enabled": enabled, "privacy_notice": notice, "has_key": True},
        partial="privacy",
    )


@service_errors
@never_cache
@portal_login_required
@require_http_methods(["GET", "POST"])
def export_view(request: HttpRequest) -> HttpResponse:
    """Show the wallet's secret once, after a fresh sign-in. It is opened here and rendered into this
    one answer only (not stored, not cached)."""
    here = reverse("portal:export")
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    template = "wallets/portal/export.html"
    if request.method == "GET":
        return page(request, template, {})
    signer = custody.session_signer(request)
    if signer is None:
        return reauth_redirect(request, here)
    client = service_client()
    wallet_id = _wallet(client, current_account(request))
    key = KeySigner.generate()
    try:
        exported = client.internal_accounts.export(wallet_id, key.public_key_hex_uncompressed, signer)
        secret = wallet_crypto.export_bundle_open(
            exported.encrypted_wallet_credentials,
            key.private_key_hex,
            trusted_signer_public_hex=export_signer_key(client),
            organization_id=wallet_id,
        )
    except ServiceError as exc:
        if custody.session_key_rejected(request, exc):
            return reauth_redirect(request, here)
        raise
    except wallet_crypto.WalletCryptoError:
        return page(request, template, {"error": "The export could not be opened safely. Nothing was shown."})
    return page(request, template, {"words": secret.split()})
