"""More ways to confirm it's you for payments (people in an SCA region): an authenticator app (TOTP),
the SCA login with its codes, and resetting a lost one through the service's liveness-gated factor
reset. Everything goes through the service client.

The app's secret comes from the service; the page shows its `otpauth://` URI as a QR code (an inline
SVG made here with segno, so no script and no request elsewhere) and the secret as text to type in.
The secret waits in the person's (server-side) session until the first code confirms it; the
recovery codes the service answers then are shown once and kept nowhere here.
"""

from __future__ import annotations

from typing import Any

import segno
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import BadRequest, Conflict, Locked, RateLimited, ServiceError
from wallets.portal import sca_steps, throttle
from wallets.portal.auth import auth_is_fresh, reauth_redirect, signed_in_service_view
from wallets.portal.devices import device_name
from wallets.portal.forms import AppCodeForm, CodeForm
from wallets.portal.http import go, no_store, page
from wallets.portal.service import service_client
from wallets.portal.views.money import _account
from wallets.portal.views.sca import login_next, login_page
from wallets.portal.wording import explain

TOTP_PAGE = "wallets/portal/sca_totp.html"
RESET_PAGE = "wallets/portal/sca_reset.html"
TOTP = "portal_sca_totp"  # session: the enrollment waiting for its first code {secret, base32, uri}
RESET = "portal_sca_reset"  # session: the factor reset in progress {reset_id, factor}
RESETTABLE = {"TOTP": "authenticator app", "PASSKEY": "payment passkey"}
APP_CODE_WRONG = (
    "That code isn’t right. Check the code your app shows now, or your recovery code, and try again."
)
_RESTART_REASONS = ("NO_ENROLLMENT_PENDING", "SECRET_MISMATCH", "CHALLENGE_EXPIRED")


def _qr_svg(uri: str) -> str:
    """The QR code of `uri` as inline SVG, labelled for screen readers (segno escapes nothing of
    ours into it: the SVG carries only paths)."""
    svg = segno.make(uri, error="m").svg_inline(scale=4, border=2, dark="#111", light="#fff")
    return svg.replace("<svg ", '<svg role="img" aria-label="QR code for your authenticator app" ', 1)


def _grouped(secret: str) -> str:
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def _totp_started(request: HttpRequest) -> dict[str, str] | None:
    """A new secret from the service (kept in the session), or None when there is an app already."""
    try:
        started = service_client().sca.start_totp_enrollment(_account(request).customer_id)
    except Conflict:
        return None
    state = {"secret": started.secret, "base32": started.secret_base32_encoded, "uri": started.totp_uri}
    request.session[TOTP] = state
    return state


def _totp_page(request: HttpRequest, state: dict[str, str], **extra: Any) -> HttpResponse:
    context = {
        "qr": mark_safe(_qr_svg(state["uri"])),  # noqa: S308 - segno's own SVG of a URI, no input of ours
        "secret_text": _grouped(state["base32"]),
        "uri": state["uri"],
        "form": extra.pop("form", None) or CodeForm(),
        "code_url": reverse("portal:sca-totp"),
        "submit": "Add the app",
        **extra,
    }
    return no_store(page(request, TOTP_PAGE, context, partial="totp-form"))


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def sca_totp_view(request: HttpRequest) -> HttpResponse:
    """Add an authenticator app: GET shows the QR code and the secret, POST takes the first code and
    shows the recovery codes once. Adding needs a fresh sign-in."""
    here = reverse("portal:sca-totp")
    security = reverse("portal:sca-security")
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    state = request.session.get(TOTP)
    if request.method == "GET" or not state:
        state = _totp_started(request)
        if state is None:
            messages.info(request, "You already have an authenticator app for payments.")
            return go(request, security)
        return _totp_page(request, state)
    form = CodeForm(request.POST)
    if not form.is_valid():
        return _totp_page(request, state, form=form)
    wait = throttle.hit(throttle.CODE_PER_IP, throttle.client_ip(request))
    if wait:
        return _totp_page(
            request, state, error="Too many attempts from your network. Please try again later."
        )
    try:
        codes = service_client().sca.confirm_totp_enrollment(
            _account(request).customer_id,
            secret=state["secret"],
            code=form.cleaned_data["code"],
            name=device_name(request.headers.get("User-Agent", "")) or None,
        )
    except BadRequest as exc:
        if (exc.details or {}).get("reason") in _RESTART_REASONS:
            state = _totp_started(request) or state
            return _totp_page(request, state, error="That took too long. Scan this new code and try again.")
        return _totp_page(request, state, error=explain(exc))
    except (Locked, Conflict) as exc:
        request.session.pop(TOTP, None)
        messages.error(request, explain(exc))
        return go(request, security)
    request.session.pop(TOTP, None)
    return no_store(page(request, TOTP_PAGE, {"recovery_codes": codes}))


# --- resetting a lost factor ------------------------------------------------------------------------


def _reset_context(request: HttpRequest) -> dict[str, Any] | None:
    state = request.session.get(RESET)
    if not state:
        return None
    try:
        reset = service_client().sca.factor_reset(_account(request).customer_id, state["reset_id"])
    except ServiceError:
        request.session.pop(RESET, None)
        return None
    return {"reset": reset, "what": RESETTABLE.get(reset.factor, "factor")}


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def sca_reset_view(request: HttpRequest) -> HttpResponse:
    """Reset a lost authenticator app or payment passkey. POST `factor`: open the reset; GET: where
    it stands (htmx polls the status partial while the identity check runs); POST `complete`: clear
    the factor once the check has passed."""
    here = reverse("portal:sca-reset")
    security = reverse("portal:sca-security")
    if request.method == "POST" and not auth_is_fresh(request):
        return reauth_redirect(request, security)
    client = service_client()
    customer_id = _account(request).customer_id
    if request.method == "POST" and request.POST.get("factor") in RESETTABLE:
        try:
            started = client.sca.start_factor_reset(customer_id, request.POST["factor"])
        except (BadRequest, RateLimited, Conflict) as exc:
            messages.error(request, f"The reset could not start. {explain(exc)}")
            return go(request, security)
        request.session[RESET] = {"reset_id": started.reset_id}
        return go(request, here)
    context = _reset_context(request)
    if context is None:
        return go(request, security)
    if request.method == "POST" and "complete" in request.POST:
        try:
            client.sca.complete_factor_reset(customer_id, request.session[RESET]["reset_id"])
        except BadRequest as exc:
            messages.error(request, explain(exc))
            return go(request, here)
        request.session.pop(RESET, None)
        messages.success(request, f"Your {context['what']} was removed. You can add a new one now.")
        return go(request, security)
    if context["reset"].terminal:
        request.session.pop(RESET, None)
    return no_store(page(request, RESET_PAGE, context, partial="reset-status"))


# --- the SCA login with the app -----------------------------------------------------------------


@require_POST
@signed_in_service_view
def sca_login_app_view(request: HttpRequest) -> HttpResponse:
    """Confirm it's you with a code from the authenticator app (or a recovery code)."""
    client = service_client()
    customer_id = _account(request).customer_id
    next_url = login_next(request)
    form = AppCodeForm(request.POST)
    error = ""
    if form.is_valid():
        wait = throttle.hit(throttle.CODE_PER_IP, throttle.client_ip(request))
        if wait:
            error = "Too many attempts from your network. Please try again later."
        else:
            try:
                client.sca.login_start(customer_id, "TOTP")
                done = client.sca.login_complete(
                    customer_id,
                    factor="TOTP",
                    code=form.cleaned_data["code"],
                    end_user_ip_address=throttle.client_ip(request),
                )
            except (BadRequest, Locked) as exc:
                wrong = (exc.details or {}).get("reason") == "INVALID_CODE"
                error = APP_CODE_WRONG if wrong else explain(exc)
            else:
                sca_steps.login_until_set(request, done.session_expires_at)
                messages.success(request, "Thank you. You can approve payments now.")
                return go(request, next_url)
    try:
        factors = client.sca.factors(customer_id)
    except Conflict:
        return go(request, reverse("portal:sca-security"))
    return login_page(request, client, factors, next_url, app_form=form, app_error=error, status=400)
