"""Strong Customer Authentication in the portal (people whose address is in the EU/EEA): approve a
payment step by step on its quote page, the SCA login that approvals need (every 180 days), and
the payment passkey. Everything goes through the service client.

Passkeys use the shim (`static/wallets/webauthn.js`): a form posts JSON and gets the ceremony
(`{mode, publicKey, post}`), then `{redirect}` or `{error}`. The service's options and the
browser's `credential.toJSON()` are passed through as they are; the origin sent with an assertion
is this page's origin.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote as urlquote

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import (
    BadRequest,
    Conflict,
    Locked,
    Quote,
    RateLimited,
    ScaFactor,
    ServiceClient,
    ServiceError,
    SignerRequired,
)
from wallets.portal import sca_steps, throttle
from wallets.portal.auth import auth_is_fresh, login_url, reauth_redirect, safe_next, signed_in_service_view
from wallets.portal.code_step import code_step_entry, code_step_page
from wallets.portal.custody import session_key_rejected, session_signer
from wallets.portal.devices import device_name
from wallets.portal.forms import AppCodeForm, CodeForm, PhoneForm
from wallets.portal.http import go, json_body, no_store, page, wants_json
from wallets.portal.service import service_client
from wallets.portal.views.money import _account, _own_quote
from wallets.portal.views.quotes import _quote_context
from wallets.portal.wording import explain, wait_words

CONFIRM_PAGE = "wallets/portal/quote_confirm.html"
STEP = "wallets/portal/_sca_step.html"
LOGIN_PAGE = "wallets/portal/sca_login.html"
CODE_PAGE = "wallets/portal/sca_login_code.html"
SECURITY_PAGE = "wallets/portal/sca_security.html"
LOGIN = "portal_sca_login"  # session: the SMS login in progress {challenge_id, resend_at, next}


def _origin(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _json(data: dict[str, Any], status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status)
    no_store(response)
    return response


def _login_redirect(quote: Quote) -> str:
    next_url = reverse("portal:quote-confirm", args=[quote.id])
    return f"{reverse('portal:sca-login')}?next={urlquote(next_url, safe='/:')}"


def _done_url(client: ServiceClient, quote: Quote) -> str:
    """The quote page while another step waits, else the live status of the payment."""
    if quote.status == "PENDING_AUTHORIZATION" or not quote.transaction_id:
        return reverse("portal:quote-confirm", args=[quote.id])
    return reverse("portal:transaction-status", args=[quote.transaction_id])


# --- approving a payment's steps -----------------------------------------------------------------


def _step_page(request: HttpRequest, quote: Quote, *, error: str = "", form: CodeForm | None = None):
    context = _quote_context(request, quote, step_error=error, form=form or CodeForm())
    return no_store(page(request, CONFIRM_PAGE, context, partial="quote-panel"))


@require_POST
@signed_in_service_view
def quote_authorize_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    """One approval: the SMS code (form) or the passkey assertion (the shim's JSON)."""
    account = _account(request)
    client = service_client()
    quote = _own_quote(client, account, quote_id)
    passkey = wants_json(request)
    form = None if passkey else CodeForm(request.POST)
    if form is not None and not form.is_valid():
        return _step_page(request, quote, form=form)
    wait = throttle.hit(throttle.CODE_PER_IP, throttle.client_ip(request))
    if wait:
        message = f"Too many attempts from your network. Please try again {wait_words(wait)}."
        return _json({"error": message}, 429) if passkey else _step_page(request, quote, error=message)
    proof: dict[str, Any] = {"end_user_ip_address": throttle.client_ip(request) or None}
    if passkey:
        proof.update(passkey_assertion=json_body(request).get("credential"), origin=_origin(request))
    else:
        proof["code"] = form.cleaned_data["code"]
    try:
        after = client.quotes.authorize(quote, **proof)
    except Conflict as exc:
        if exc.code == "SCA_SESSION_REQUIRED":
            sca_steps.login_until_set(request, None)
            messages.info(
                request,
                "Before you approve payments, confirm it’s you (needed once every 180 days). Then approve "
                "the step again"
                + ("." if passkey else ": the code you got for it still works until it expires."),
            )
            url = _login_redirect(quote)
            return _json({"redirect": url}) if passkey else go(request, url)
        quote = client.quotes.get(quote.id)  # nothing pending any more: show where the payment is
        return (
            _json({"redirect": _done_url(client, quote)})
            if passkey
            else go(request, _done_url(client, quote))
        )
    except (BadRequest, Locked) as exc:
        quote = client.quotes.get(quote.id)
        if quote.status != "PENDING_AUTHORIZATION":  # the step lapsed: the payment failed
            messages.error(request, explain(exc))
            url = _done_url(client, quote)
            return _json({"redirect": url}) if passkey else go(request, url)
        if passkey:
            return _json({"error": explain(exc)}, 400)
        return _step_page(request, quote, error=explain(exc))
    sca_steps.step_done(request, quote.id)
    url = _done_url(client, after)
    return _json({"redirect": url}) if passkey else go(request, url)


@require_POST
@signed_in_service_view
def quote_authorize_passkey_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    """The shim's first call for a PASSKEY step: the challenge's WebAuthn request options."""
    if not wants_json(request):
        return go(request, reverse("portal:quote-confirm", args=[quote_id]))
    quote = _own_quote(service_client(), _account(request), quote_id)
    challenge = quote.sca_challenge
    if (
        quote.status != "PENDING_AUTHORIZATION"
        or challenge is None
        or not challenge.passkey_assertion_options
    ):
        return _json({"redirect": reverse("portal:quote-confirm", args=[quote.id])})
    post = reverse("portal:quote-authorize", args=[quote.id])
    return _json({"mode": "get", "publicKey": challenge.passkey_assertion_options, "post": post})


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def quote_authorize_resend_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    """POST: a new code for the current SMS step (after the cool-down). GET (htmx, when the cool-down
    ends): the resend button again."""
    client = service_client()
    quote = _own_quote(client, _account(request), quote_id)
    challenge = quote.sca_challenge
    notice = ""
    sms = quote.status == "PENDING_AUTHORIZATION" and challenge is not None and challenge.factor == "SMS_OTP"
    if request.method == "POST" and sms:
        if sca_steps.resend_wait(request, challenge.id) == 0:
            try:
                client.quotes.resend_authorization_code(quote)
            except RateLimited as exc:
                sca_steps.resend_at_set(request, challenge.id, exc.retry_after or 30)
                notice = "A new code can't be sent just yet."
            except Conflict:
                notice = "This step can no longer get a new code."
            else:
                sca_steps.resend_at_set(request, challenge.id, 30)
                notice = "We sent a new code. Use the newest one."
    context = _quote_context(request, quote, resend_notice=notice)
    if getattr(request, "htmx", False) and sms:
        return no_store(page(request, STEP, context, partial="sca-resend"))
    return go(request, reverse("portal:quote-confirm", args=[quote.id]))


# --- the SCA login --------------------------------------------------------------------------------


def login_next(request: HttpRequest) -> str:
    return safe_next(
        request, request.GET.get("next") or request.POST.get("next"), reverse("portal:money-home")
    )


def _login_started(request: HttpRequest, client: ServiceClient, customer_id: str, next_url: str) -> str:
    """Send a login code; '' or what stopped it."""
    state = dict(request.session.get(LOGIN) or {})
    try:
        started = client.sca.login_start(customer_id, "SMS_OTP")
    except RateLimited as exc:
        state.update(resend_at=time.time() + (exc.retry_after or 60), next=next_url)
        request.session[LOGIN] = state
        return explain(exc)
    except Locked as exc:
        return explain(exc)
    except BadRequest:
        return "No phone number is on file for text-message codes. Use your passkey instead."
    request.session[LOGIN] = {
        "challenge_id": started.challenge_id,
        "resend_at": time.time() + 30,
        "next": next_url,
    }
    return ""


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def sca_login_view(request: HttpRequest) -> HttpResponse:
    """Confirm it's you for payments: a code by text message (when there is a phone number), the
    payment passkey or the authenticator app (when there is one); with none, where to add one."""
    account = _account(request)
    next_url = login_next(request)
    client = service_client()
    try:
        factors = client.sca.factors(account.customer_id)
    except Conflict:
        return go(request, reverse("portal:sca-security"))  # nothing to confirm outside a region
    error = ""
    if request.method == "POST" and any(f.factor == "SMS_OTP" for f in factors):
        error = _login_started(request, client, account.customer_id, next_url)
        if not error:
            return go(request, reverse("portal:sca-login-code"))
    return login_page(request, client, factors, next_url, error=error)


def login_page(
    request: HttpRequest,
    client: ServiceClient,
    factors: list[ScaFactor],
    next_url: str,
    *,
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    """The "Confirm it's you" page: a way per factor the person has (`extra`: `error`, and the
    authenticator app's `app_form` and `app_error`)."""
    sms = any(f.factor == "SMS_OTP" for f in factors)
    phone = client.customers.get(_account(request).customer_id).phone_number if sms else None
    context = {
        "next": next_url,
        "sms": sms,
        "phone": sca_steps.phone_words(phone),
        "passkey": any(f.factor == "PASSKEY" for f in factors),
        "app": any(f.factor == "TOTP" for f in factors),
        "app_form": AppCodeForm(),
        **extra,
    }
    return no_store(page(request, LOGIN_PAGE, context, status=status))


def _code_context(request: HttpRequest, state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "wait": max(0, int(state.get("resend_at", 0) - time.time() + 0.999)),
        "form": extra.pop("form", None) or CodeForm(),
        "next": state.get("next", ""),
        "code_url": reverse("portal:sca-login-code"),
        "resend_url": reverse("portal:sca-login-code-resend"),
        "submit": "Confirm",
        **extra,
    }


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def sca_login_code_view(request: HttpRequest) -> HttpResponse:
    state = request.session.get(LOGIN)
    if not state or not state.get("challenge_id"):
        return go(request, reverse("portal:sca-login"))
    code = code_step_entry(
        request,
        CODE_PAGE,
        lambda **extra: _code_context(request, state, **extra),
        too_many="Too many attempts from your network. Please try again {wait}.",
    )
    if isinstance(code, HttpResponse):
        return code
    try:
        done = service_client().sca.login_complete(
            _account(request).customer_id,
            factor="SMS_OTP",
            challenge_id=state["challenge_id"],
            code=code,
            end_user_ip_address=throttle.client_ip(request),
        )
    except (BadRequest, Locked) as exc:
        reason = (exc.details or {}).get("reason")
        error = (
            "This code has expired. Ask for a new code below."
            if reason
            in (
                "CHALLENGE_EXPIRED",
                "NO_LOGIN_PENDING",
            )
            else explain(exc)
        )
        return code_step_page(
            request, CODE_PAGE, _code_context(request, state, error=error), part="code-form"
        )
    request.session.pop(LOGIN, None)
    sca_steps.login_until_set(request, done.session_expires_at)
    messages.success(request, "Thank you. You can approve payments now.")
    return go(request, safe_next(request, state.get("next"), reverse("portal:money-home")))


@require_POST
@signed_in_service_view
def sca_login_code_resend_view(request: HttpRequest) -> HttpResponse:
    state = request.session.get(LOGIN)
    if not state:
        return go(request, reverse("portal:sca-login"))
    notice = ""
    if time.time() >= state.get("resend_at", 0):
        error = _login_started(
            request, service_client(), _account(request).customer_id, state.get("next", "")
        )
        notice = error or "We sent a new code. Use the newest one."
        state = request.session.get(LOGIN) or state
    if getattr(request, "htmx", False):
        return code_step_page(request, CODE_PAGE, _code_context(request, state, notice=notice), part="resend")
    return go(request, reverse("portal:sca-login-code"))


@require_POST
@signed_in_service_view
def sca_login_passkey_view(request: HttpRequest) -> HttpResponse:
    """The shim: start a passkey SCA login (options), then complete it with the assertion."""
    if not wants_json(request):
        return go(request, reverse("portal:sca-login"))
    client = service_client()
    customer_id = _account(request).customer_id
    body = json_body(request)
    credential = body.get("credential")
    if credential is None:
        try:
            started = client.sca.login_start(customer_id, "PASSKEY")
        except BadRequest:
            return _json({"error": "You have no passkey for payments yet. Use a code by text message."}, 400)
        except Locked as exc:
            return _json({"error": explain(exc)}, 423)
        request.session[LOGIN] = {"next": safe_next(request, body.get("next"), reverse("portal:money-home"))}
        return _json(
            {
                "mode": "get",
                "publicKey": started.passkey_options,
                "post": reverse("portal:sca-login-passkey"),
            }
        )
    state = request.session.get(LOGIN) or {}
    try:
        done = client.sca.login_complete(
            customer_id,
            factor="PASSKEY",
            passkey_assertion=credential,
            origin=_origin(request),
            end_user_ip_address=throttle.client_ip(request),
        )
    except (BadRequest, Locked) as exc:
        return _json({"error": explain(exc)}, 400)
    request.session.pop(LOGIN, None)
    sca_steps.login_until_set(request, done.session_expires_at)
    sca_steps.preferred_factor_set(request, "PASSKEY")
    return _json({"redirect": safe_next(request, state.get("next"), reverse("portal:money-home"))})


# --- the payment passkey --------------------------------------------------------------------------


def _security_page(request: HttpRequest, *, phone_form: PhoneForm | None = None, status: int = 200):
    account = _account(request)
    client = service_client()
    try:
        factors = client.sca.factors(account.customer_id)
    except Conflict:
        factors = None  # not in an SCA region: payments need no extra approval
    sca_steps.region_set(request, account, factors is not None)
    phone = client.customers.get(account.customer_id).phone_number if factors is not None else None
    passkey = next((f for f in factors or [] if f.factor == "PASSKEY"), None)
    context = {
        "factors": None
        if factors is None
        else [
            {"item": f, "name": sca_steps.factor_name(request, f, phone)}
            for f in sorted(factors, key=lambda f: f.factor != "SMS_OTP")
        ],
        "has_sms": any(f.factor == "SMS_OTP" for f in factors or []),
        "phone": sca_steps.phone_words(phone) if phone else "",
        "phone_form": phone_form or PhoneForm(),
        "passkey": passkey,
        "totp": next((f for f in factors or [] if f.factor == "TOTP"), None),
        "fresh": auth_is_fresh(request),
    }
    return no_store(page(request, SECURITY_PAGE, context, status=status))


@require_http_methods(["GET"])
@signed_in_service_view
def sca_security_view(request: HttpRequest) -> HttpResponse:
    """Payment security: the factors that approve payments, the phone number for codes, and the
    payment passkey."""
    return _security_page(request)


@require_POST
@signed_in_service_view
def sca_phone_view(request: HttpRequest) -> HttpResponse:
    """Add or change the phone number that payment codes go to (the customer's `phoneNumber`). It
    needs a fresh sign-in; when the wallet signs in by text message too, the service asks the wallet
    to approve the change, stamped with the kept session key."""
    here = reverse("portal:sca-security")
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    form = PhoneForm(request.POST)
    if not form.is_valid():
        return _security_page(request, phone_form=form, status=400)
    account = _account(request)
    client = service_client()
    customer = client.customers.get(account.customer_id)
    number = form.cleaned_data["phone_number"]
    try:
        client.customers.update(
            account.customer_id,
            customer_type=customer.customer_type,
            phone_number=number,
            signer=session_signer(request),
        )
    except SignerRequired:
        return reauth_redirect(request, here)
    except ServiceError as exc:
        if session_key_rejected(request, exc):
            return reauth_redirect(request, here)
        if exc.status >= 500:
            raise
        taken = exc.code == "EMAIL_OTP_EMAIL_ALREADY_EXISTS"  # the service's code for emails and phones
        form.add_error("phone_number", "This number is used by another account." if taken else explain(exc))
        return _security_page(request, phone_form=form, status=400)
    changed = "added" if not customer.phone_number else "changed"
    messages.success(
        request, f"Your phone number was {changed}. Payment codes go to {sca_steps.phone_words(number)}."
    )
    return go(request, here)


@require_POST
@signed_in_service_view
def sca_passkey_add_view(request: HttpRequest) -> HttpResponse:
    """The shim: registration options for the payment passkey, then the credential to confirm."""
    if not wants_json(request):
        return go(request, reverse("portal:sca-security"))
    here = reverse("portal:sca-security")
    if not auth_is_fresh(request):
        return _json({"redirect": login_url(safe_next(request, here), reauth=True)})
    client = service_client()
    customer_id = _account(request).customer_id
    credential = json_body(request).get("credential")
    try:
        if credential is None:
            started = client.sca.start_passkey_enrollment(customer_id)
            post = reverse("portal:sca-passkey-add")
            return _json({"mode": "create", "publicKey": started.options, "post": post})
        factor = client.sca.confirm_passkey_enrollment(
            customer_id,
            credential=credential,
            origin=_origin(request),
            name=device_name(request.headers.get("User-Agent", "")) or None,
        )
    except Conflict as exc:
        if exc.code == "PASSKEY_ALREADY_ENROLLED":
            return _json(
                {"error": "You already have a payment passkey. Remove it first to add another."}, 409
            )
        return _json({"error": "Payments from your account need no extra approval."}, 409)
    except BadRequest as exc:
        return _json({"error": f"The passkey could not be added. {explain(exc)}"}, 400)
    sca_steps.preferred_factor_set(request, "PASSKEY")
    messages.success(request, "Your payment passkey is ready. Payments will ask for it.")
    response = _json({"redirect": here})
    sca_steps.passkey_here_set(response, request, factor.credential_id if factor else None)
    return response


@require_POST
@signed_in_service_view
def sca_passkey_remove_view(request: HttpRequest) -> HttpResponse:
    here = reverse("portal:sca-security")
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    credential_id = request.POST.get("credential_id", "")
    try:
        service_client().sca.delete_factor(_account(request).customer_id, credential_id)
    except ServiceError as exc:
        messages.error(request, f"The passkey could not be removed. {explain(exc)}")
    else:
        sca_steps.preferred_factor_set(request, None)
        messages.success(request, "Your payment passkey was removed. Payments will send you a code instead.")
    return go(request, here)
