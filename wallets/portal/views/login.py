"""Sign in, identifier first: the email address alone, then the best method for this browser (the
passkey it last signed in with for that address, else a code sent to the email), with the other
ways a click away (a passkey, the code by email or text message, the sign-in provider); and sign out.

No user enumeration: the method is chosen by what this browser remembers, never by what the address
has, and an address without an account (or without a wallet yet) gets the same code page, the same
"wrong code" answers with the same counts, and the same limits. The code itself never leaves the
portal: `verify_otp` seals it to the service's target key with a fresh key pair (the TEK), whose
private half becomes the session key once the signed retry succeeds.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import AuthMethod, Locked, RateLimited, ServiceClient, Unauthorized
from wallets.portal import oauth, passkeys, throttle
from wallets.portal.auth import current_account, login_complete, logout, safe_next
from wallets.portal.code_step import code_step_entry, code_step_page
from wallets.portal.forms import CodeForm, LoginForm
from wallets.portal.http import go, no_store, page, service_errors
from wallets.portal.models import PortalAccount
from wallets.portal.service import on_portal_time, otp_signer_key, service_client, wallet_of
from wallets.portal.wording import until_words, wait_words

PENDING = "portal_otp"
IDENTITY = "portal_login"  # session: {email, next} once the address was given
CREDENTIAL_TYPES = {"email": "EMAIL_OTP", "sms": "SMS_OTP"}
LOGIN_PAGE = "wallets/portal/login.html"
CODE_PAGE = "wallets/portal/login_code.html"
PASSKEY_PAGE = "wallets/portal/login_passkey.html"
METHODS_PAGE = "wallets/portal/login_methods.html"
WRONG_CODE = "That code isn't right."


def account_wallet_refresh(client: ServiceClient, account: PortalAccount) -> str:
    """The account's wallet id, looked up once the customer is approved (it may have been pending)."""
    if not account.wallet_account_id:
        wallet = wallet_of(client, account.customer_id)
        if wallet is not None:
            account.wallet_account_id = wallet.id
            account.passkey_user_handle = passkeys.user_handle(wallet.id).hex()
            account.save(update_fields=["wallet_account_id", "passkey_user_handle"])
    return account.wallet_account_id


def _otp_credential(client: ServiceClient, account: PortalAccount | None, kind: str) -> AuthMethod | None:
    if account is None or not account_wallet_refresh(client, account):
        return None
    return next((c for c in client.credentials.list(account.wallet_account_id) if c.type == kind), None)


def login_page(
    request: HttpRequest, *, form: LoginForm | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    next_url = safe_next(request, request.GET.get("next") or request.POST.get("next"))
    account = current_account(request)
    reauth = request.GET.get("reauth") == "1" and account is not None
    if form is None:
        form = LoginForm(initial={"next": next_url, "email": account.email if reauth else ""})
    context = {
        "form": form,
        "next": next_url,
        "reauth": reauth,
        "account": account,
        "error": error,
        "oauth_enabled": oauth.enabled(),
    }
    return no_store(page(request, LOGIN_PAGE, context, status=status))


def otp_start(request: HttpRequest, *, email: str, channel: str, next_url: str) -> HttpResponse:
    """Send a code (when the address has a wallet with that kind of credential) and go to the code page."""
    now = time.time()
    kind = CREDENTIAL_TYPES.get(channel, "EMAIL_OTP")
    state: dict[str, Any] = {
        "email": email,
        "channel": channel,
        "account_id": None,
        "credential_id": None,
        "credential_type": kind,
        "bundle": None,
        "resend_at": now + settings.PORTAL_OTP_RESEND_SECONDS,
        "locked_until": None,
        "next": next_url,
        "notice": "",
    }
    wait = throttle.hit(throttle.CODES_PER_EMAIL, email)
    if wait:
        state["resend_at"] = now + wait
        state["notice"] = (
            f"Too many codes were asked for this address. You can ask for a new one {wait_words(wait)}."
        )
    else:
        client = service_client()
        account = PortalAccount.objects.filter(email=email).first()
        credential = _otp_credential(client, account, kind)
        if credential is not None and account is not None:
            state["account_id"], state["credential_id"] = account.pk, credential.id
            _challenge(client, state)
    request.session[PENDING] = state
    request.session[IDENTITY] = {"email": email, "next": next_url}
    return redirect("portal:login-code")


def _challenge(client: ServiceClient, state: dict[str, Any]) -> None:
    """Ask the service for a code; its refusals (429 with Retry-After, 423) go into `state`."""
    try:
        challenged = client.credentials.challenge(state["credential_id"])
    except RateLimited as exc:
        wait = exc.retry_after or settings.PORTAL_OTP_RESEND_SECONDS
        state["resend_at"] = time.time() + wait
        state["notice"] = (
            f"Too many codes were asked for this address. You can ask for a new one {wait_words(wait)}."
        )
        return
    except Locked as exc:
        state["locked_until"] = exc.details.get("lockedUntil")
        return
    state["bundle"] = getattr(challenged, "otp_encryption_target_bundle", None)


@service_errors
@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    """GET: the email address. POST: the address, then the method chosen for it: the one asked for
    (the other ways), else this browser's passkey for the address, else a code by email."""
    if request.method == "GET":
        return login_page(request)
    form = LoginForm(request.POST)
    if not form.is_valid():
        return login_page(request, form=form)
    email, method = form.cleaned_data["email"], form.cleaned_data["method"]
    next_url = safe_next(request, form.cleaned_data["next"])
    request.session[IDENTITY] = {"email": email, "next": next_url}
    if method == "passkey" or (not method and passkeys.hint_credential(request, email)):
        return go(request, reverse("portal:login-passkey"))
    wait = throttle.hit(throttle.LOGIN_PER_IP, throttle.client_ip(request))
    if wait:
        return login_page(
            request, form=form, error=f"Too many sign-in attempts. Try again {wait_words(wait)}.", status=429
        )
    return otp_start(request, email=email, channel=method or "email", next_url=next_url)


def _identity_page(request: HttpRequest, template: str) -> HttpResponse:
    """A page for the address given (`IDENTITY`); without one, back to where it is asked for."""
    identity = request.session.get(IDENTITY)
    if identity is None:
        return go(request, reverse("portal:login"))
    return no_store(page(request, template, {**identity, "oauth_enabled": oauth.enabled()}))


@require_http_methods(["GET"])
def login_passkey_view(request: HttpRequest) -> HttpResponse:
    """Sign in with the passkey for the address given (the shim runs it), or have a code emailed."""
    return _identity_page(request, PASSKEY_PAGE)


@require_http_methods(["GET"])
def login_methods_view(request: HttpRequest) -> HttpResponse:
    """Every other way to sign in, the same for every address."""
    return _identity_page(request, METHODS_PAGE)


def _locked_until(state: dict[str, Any], wrong_codes: tuple[int, int] | None = None) -> dt.datetime | None:
    """The end of a lock (the service's `lockedUntil`, or the portal's wrong-code limit), if any.
    `wrong_codes`: the address's wrong codes as `throttle.seen` just read them."""
    # The service's lockedUntil is on its clock, which a sandbox platform may have moved since.
    locked = on_portal_time(service_client(), state["locked_until"]) if state.get("locked_until") else None
    until = dt.datetime.fromisoformat(locked) if locked else None
    if until is not None and until > timezone.now():
        return until
    wait = throttle.blocked(throttle.WRONG_CODE_PER_EMAIL, state["email"], seen_now=wrong_codes)
    return timezone.now() + dt.timedelta(seconds=wait) if wait else None


def _code_context(request: HttpRequest, state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    wait = max(0, int(state["resend_at"] - time.time() + 0.999))
    locked_until = _locked_until(state)
    return {
        "email": state["email"],
        "channel": state["channel"],
        "wait": wait,
        "notice": state.get("notice") or "",
        "locked_until": until_words(locked_until) if locked_until else "",
        "form": extra.pop("form", None) or CodeForm(),
        "code_url": reverse("portal:login-code"),
        "resend_url": reverse("portal:login-code-resend"),
        "submit": "Sign in",
        **extra,
    }


def _wrong_code(state: dict[str, Any]) -> str:
    """Count a wrong code for the address (accounts or not alike) and say how many tries are left."""
    count, _ = throttle.counted(throttle.WRONG_CODE_PER_EMAIL, state["email"])
    left = throttle.WRONG_CODE_PER_EMAIL.limit - count
    if left <= 0:
        return ""  # the lock message takes over
    return f"{WRONG_CODE} You have {left} {'try' if left == 1 else 'tries'} left."


@service_errors
@require_http_methods(["GET", "POST"])
def login_code_view(request: HttpRequest) -> HttpResponse:
    state = request.session.get(PENDING)
    if not state:
        return go(request, reverse("portal:login"))
    code = code_step_entry(
        request,
        CODE_PAGE,
        lambda **extra: _code_context(request, state, **extra),
        too_many="Too many attempts from your network. Try again {wait}.",
    )
    if isinstance(code, HttpResponse):
        return code
    wrong_codes = throttle.seen(throttle.WRONG_CODE_PER_EMAIL, state["email"])
    if _locked_until(state, wrong_codes):
        return code_step_page(request, CODE_PAGE, _code_context(request, state), part="code-form", status=423)

    account = PortalAccount.objects.filter(pk=state["account_id"]).first() if state["account_id"] else None
    if account is None or not state.get("bundle"):
        error = _wrong_code(state)
        return code_step_page(
            request, CODE_PAGE, _code_context(request, state, error=error), part="code-form"
        )

    client = service_client()
    try:
        session, private_key_hex = client.credentials.verify_otp(
            state["credential_id"],
            code,
            state["bundle"],
            credential_type=state["credential_type"],
            trusted_signer_public_key=otp_signer_key(client),
        )
    except Locked as exc:
        state["locked_until"] = exc.details.get("lockedUntil")
        request.session[PENDING] = state
        return code_step_page(request, CODE_PAGE, _code_context(request, state), part="code-form", status=423)
    except Unauthorized as exc:
        if exc.code == "UNAUTHORIZED" and "Invalid OTP code" in (exc.reason or exc.message):
            error = _wrong_code(state)
        else:  # expired, or no code pending: ask for a new one
            error = "This code has expired. Ask for a new code below."
        return code_step_page(
            request, CODE_PAGE, _code_context(request, state, error=error), part="code-form"
        )

    if wrong_codes[0]:
        throttle.reset(throttle.WRONG_CODE_PER_EMAIL, state["email"])
    next_url = safe_next(request, state.get("next"))
    request.session.pop(PENDING, None)
    request.session.pop(IDENTITY, None)
    login_complete(
        request,
        account=account,
        session=session,
        private_key_hex=private_key_hex,
        credential_id=state["credential_id"],
        credential_type=state["credential_type"],
    )
    return go(request, next_url)


@service_errors
@require_POST
def login_code_resend_view(request: HttpRequest) -> HttpResponse:
    state = request.session.get(PENDING)
    if not state:
        return go(request, reverse("portal:login"))
    now = time.time()
    if now >= state["resend_at"] and not _locked_until(state):
        state["notice"] = "We sent a new code. Use the newest one."
        state["resend_at"] = now + settings.PORTAL_OTP_RESEND_SECONDS
        wait = throttle.hit(throttle.CODES_PER_EMAIL, state["email"])
        if wait:
            state["resend_at"] = now + wait
            state["notice"] = (
                f"Too many codes were asked for this address. You can ask for a new one {wait_words(wait)}."
            )
        elif state["credential_id"]:
            _challenge(service_client(), state)
        request.session[PENDING] = state
    if getattr(request, "htmx", False):
        return code_step_page(request, CODE_PAGE, _code_context(request, state), part="resend")
    return redirect("portal:login-code")


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    logout(request)
    return go(request, reverse("portal:home"))
