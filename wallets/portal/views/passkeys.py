"""Passkeys: sign in with one, and add one (then activate it by signing in with it at once).

The shim (`static/wallets/webauthn.js`) posts JSON and gets JSON back: the next ceremony
(`{mode, publicKey, post}`), where to go (`{redirect}`), or what went wrong (`{error}`).

Which passkey signs in: the person types their email; the portal asks the service for a challenge
for that wallet's passkey last used in this browser (a signed cookie remembers it), else its newest.
An address without a passkey gets options that look the same and simply find no credential.

Or the person picks a passkey from the browser's autofill on the email field (conditional
mediation): that pick names the passkey (`rawId`) and its wallet (`userHandle`), and the sign-in
goes on as above with the service's challenge for it, a second confirmation on the device.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from payments.client import (
    AuthMethod,
    BadRequest,
    KeySigner,
    NotFound,
    PasskeyChallenge,
    ServiceClient,
    ServiceError,
    Unauthorized,
    UnexpectedResponse,
    wallet_crypto,
)
from wallets.portal import custody, passkeys, sealing, throttle
from wallets.portal.auth import auth_is_fresh, current_account, login_complete, login_url, safe_next
from wallets.portal.forms import PasskeyAddForm, PasskeyLoginForm
from wallets.portal.http import json_body, no_store, page, service_errors, wants_json
from wallets.portal.models import PortalAccount
from wallets.portal.service import service_client
from wallets.portal.views.login import IDENTITY, account_wallet_refresh
from wallets.portal.wording import explain, wait_words

LOGIN = "portal_passkey_login"
ADD = "portal_passkey_add"
PENDING_SECONDS = 300
_KEY_PURPOSE = "portal-pending-login-key"
NO_PASSKEY = (
    "No passkey for this email was found on this device. Try another passkey, or sign in with a code."
)


def _json(data: dict[str, Any], status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status)
    no_store(response)
    return response


def _needs_js(request: HttpRequest) -> HttpResponse:
    return page(request, "wallets/portal/passkey_needs_js.html", {}, status=400)


def _shim_step[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """A step of the shim's ceremonies: a JSON POST, service errors answered in JSON; a form posted
    without JavaScript gets the page saying passkeys need it."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if not wants_json(request):
            return _needs_js(request)
        return view(request, *args, **kwargs)

    return service_errors(require_POST(wrapper))  # type: ignore[return-value]


def _choose_passkey(
    request: HttpRequest, client: ServiceClient, account: PortalAccount | None
) -> AuthMethod | None:
    if account is None or not account_wallet_refresh(client, account):
        return None
    keys = [c for c in client.credentials.list(account.wallet_account_id) if c.type == "PASSKEY"]
    if not keys:
        return None
    hint = passkeys.hint_credential(request, account.email)
    return next((c for c in keys if c.id == hint), keys[-1])


def _picked_passkey(client: ServiceClient, credential: Any) -> tuple[PortalAccount | None, AuthMethod | None]:
    """The account and passkey the browser's autofill pick names, if the portal knows them."""
    try:
        webauthn_id, handle = passkeys.picked_passkey(credential)
    except passkeys.BrowserCredentialInvalid:
        return None, None
    account = PortalAccount.objects.filter(passkey_user_handle=handle).first() if handle else None
    if account is None or not account.wallet_account_id:
        return None, None
    keys = client.credentials.list(account.wallet_account_id)
    return account, next((c for c in keys if c.type == "PASSKEY" and c.credential_id == webauthn_id), None)


def _login_ceremony(
    request: HttpRequest,
    client: ServiceClient,
    *,
    account: PortalAccount | None,
    passkey: AuthMethod | None,
    next_url: str,
    purpose: str,
) -> JsonResponse:
    """Start a passkey sign-in: a fresh key pair, the service's challenge bound to its public key,
    and the shim's next step. Without an account and its passkey, options that look the same and
    find nothing."""
    state: dict[str, Any] = {"account_id": None, "next": next_url, "purpose": purpose, "at": time.time()}
    if account is not None and passkey is not None and passkey.credential_id:
        key = KeySigner.generate()
        challenge = client.credentials.challenge(
            passkey.id, client_public_key=key.public_key_hex_uncompressed
        )
        if not isinstance(challenge, PasskeyChallenge):
            raise UnexpectedResponse("the service did not answer with a passkey challenge")
        state.update(
            account_id=account.pk,
            credential_id=passkey.id,
            request_id=challenge.request_id,
            key=sealing.seal(key.private_key_hex.encode("ascii"), purpose=_KEY_PURPOSE),
        )
        options = passkeys.request_options(challenge=challenge.challenge, credential_id=passkey.credential_id)
    else:
        options = passkeys.decoy_request_options()
    request.session[LOGIN] = state
    return _json({"mode": "get", "publicKey": options, "post": reverse("portal:passkey-login")})


@_shim_step
def passkey_login_options_view(request: HttpRequest) -> HttpResponse:
    body = json_body(request)
    if body.get("autofill") is True:
        # Nothing is kept, asked of the service or counted until the person picks a passkey: the
        # page asks on every load, at the same time as the person may already submit the form.
        options = passkeys.autofill_request_options()
        return _json(
            {
                "mode": "get",
                "mediation": "conditional",
                "publicKey": options,
                "post": reverse("portal:passkey-login"),
            }
        )
    form = PasskeyLoginForm(body)
    if not form.is_valid():
        return _json({"error": "Enter your email address first."}, status=400)
    wait = throttle.hit(throttle.LOGIN_PER_IP, throttle.client_ip(request))
    if wait:
        return _json({"error": f"Too many sign-in attempts. Try again {wait_words(wait)}."}, status=429)
    client = service_client()
    account = PortalAccount.objects.filter(email=form.cleaned_data["email"]).first()
    chosen = _choose_passkey(request, client, account)
    next_url = safe_next(request, form.cleaned_data["next"])
    return _login_ceremony(
        request, client, account=account, passkey=chosen, next_url=next_url, purpose="login"
    )


@_shim_step
def passkey_login_view(request: HttpRequest) -> HttpResponse:
    body = json_body(request)
    if body.get("autofill") is True:
        return _autofill_picked(request, body)
    state = request.session.pop(LOGIN, None)
    if not state or time.time() - state["at"] > PENDING_SECONDS:
        return _json({"error": "That took too long. Please start again."}, status=400)
    account = PortalAccount.objects.filter(pk=state["account_id"]).first() if state["account_id"] else None
    if account is None:
        return _json({"error": NO_PASSKEY}, status=400)
    try:
        assertion = passkeys.assertion_from_browser(body.get("credential"))
    except passkeys.BrowserCredentialInvalid:
        return _json({"error": "The browser did not return a passkey."}, status=400)
    client = service_client()
    try:
        session = client.credentials.verify_passkey(state["credential_id"], assertion, state["request_id"])
        private = sealing.unseal(state["key"], purpose=_KEY_PURPOSE).decode("ascii")
        session_key = wallet_crypto.credential_bundle_open(
            session.encrypted_session_signing_key or "", private
        )
    except (Unauthorized, BadRequest, NotFound):
        return _json(
            {"error": "That passkey was not accepted. Try again, or sign in with a code."}, status=400
        )
    except wallet_crypto.WalletCryptoError:
        return _json({"error": "The service's answer could not be opened. Please try again."}, status=502)
    login_complete(
        request,
        account=account,
        session=session,
        private_key_hex=session_key.hex(),
        credential_id=state["credential_id"],
        credential_type="PASSKEY",
    )
    request.session.pop(IDENTITY, None)
    if state["purpose"] == "activate":
        messages.success(request, "Your passkey was added. You are now signed in with it.")
    response = _json({"redirect": safe_next(request, state["next"])})
    passkeys.hint_set(response, request, email=account.email, credential_id=state["credential_id"])
    return response


def _autofill_picked(request: HttpRequest, body: dict[str, Any]) -> HttpResponse:
    """A passkey picked from the autofill: the service's challenge for it (a passkey the portal does
    not know gets options that look the same and find nothing)."""
    wait = throttle.hit(throttle.LOGIN_PER_IP, throttle.client_ip(request))
    if wait:
        return _json({"error": f"Too many sign-in attempts. Try again {wait_words(wait)}."}, status=429)
    client = service_client()
    account, chosen = _picked_passkey(client, body.get("credential"))
    next_url = safe_next(request, str(body.get("next") or ""))
    return _login_ceremony(
        request, client, account=account, passkey=chosen, next_url=next_url, purpose="login"
    )


def _fresh_sign_in_required(
    view: Callable[[HttpRequest, PortalAccount], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Adding needs a signed-in account (passed to `view`) with a fresh sign-in and a live session key."""

    @wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        account = current_account(request)
        security = reverse("portal:security")
        if account is None:
            return _json({"redirect": login_url(security)})
        if not auth_is_fresh(request):
            return _json({"redirect": login_url(security, reauth=True)})
        return view(request, account)

    return wrapper


@_shim_step
@_fresh_sign_in_required
def passkey_add_options_view(request: HttpRequest, account: PortalAccount) -> HttpResponse:
    form = PasskeyAddForm(json_body(request))
    if not form.is_valid():
        return _json({"error": form.errors["nickname"][0]}, status=400)
    client = service_client()
    existing = [
        c.credential_id or ""
        for c in client.credentials.list(account.wallet_account_id)
        if c.type == "PASSKEY"
    ]
    options, challenge = passkeys.registration_options(
        wallet_account_id=account.wallet_account_id, email=account.email, existing_credential_ids=existing
    )
    request.session[ADD] = {
        "challenge": challenge,
        "nickname": form.cleaned_data["nickname"],
        "at": time.time(),
    }
    return _json({"mode": "create", "publicKey": options, "post": reverse("portal:passkey-add")})


@_shim_step
@_fresh_sign_in_required
def passkey_add_view(request: HttpRequest, account: PortalAccount) -> HttpResponse:
    state = request.session.pop(ADD, None)
    if not state or time.time() - state["at"] > PENDING_SECONDS:
        return _json({"error": "That took too long. Please start again."}, status=400)
    signer = custody.session_signer(request)
    if signer is None:
        return _json({"redirect": login_url(reverse("portal:security"), reauth=True)})
    try:
        attestation = passkeys.attestation_from_browser(json_body(request).get("credential"))
    except passkeys.BrowserCredentialInvalid:
        return _json({"error": "The browser did not return a passkey."}, status=400)
    client = service_client()
    try:
        credential = client.credentials.create(
            account.wallet_account_id,
            "PASSKEY",
            challenge=state["challenge"],
            nickname=state["nickname"],
            attestation=attestation,
            signer=signer,
        )
    except ServiceError as exc:
        if custody.session_key_rejected(request, exc):
            return _json({"redirect": login_url(reverse("portal:security"), reauth=True)})
        if exc.code == "PASSKEY_CREDENTIAL_ALREADY_EXISTS":
            return _json({"error": "This passkey is already registered for your wallet."}, status=400)
        if exc.status in (400, 401):
            return _json({"error": f"The passkey was not added. {explain(exc)}"}, status=400)
        raise
    # Activation: sign in with the new passkey straight away (challenge, assertion, verify).
    return _login_ceremony(
        request,
        client,
        account=account,
        passkey=credential,
        next_url=reverse("portal:security"),
        purpose="activate",
    )
