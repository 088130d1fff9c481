"""Trusting a recipient (people whose address is in the EU/EEA): on the send page they tick "Trust this
recipient"; once the quote is made, this page confirms the trust with the code sent by text message
(or their payment passkey), then goes on to the quote. Payments to a trusted recipient need no
approval step. Everything goes through the service client (`sca.trust_start` / `trust_confirm`).
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import BadRequest, Conflict, Locked, ServiceClient
from wallets.portal import sca_steps, throttle
from wallets.portal.auth import signed_in_service_view
from wallets.portal.code_step import code_step_entry, code_step_page
from wallets.portal.forms import CodeForm
from wallets.portal.http import go, json_body, wants_json
from wallets.portal.service import service_client
from wallets.portal.views.sca import _json, _origin
from wallets.portal.wording import explain

PAGE = "wallets/portal/payee_trust.html"
TRUST = "portal_trust"  # session: the trust being confirmed {account_id, label, challenge_id, factor, options, next}
_EXPIRED = ("CHALLENGE_EXPIRED", "NO_CHALLENGE_PENDING", "CHALLENGE_MISMATCH")


def _start(request: HttpRequest, client: ServiceClient, state: dict[str, Any]) -> bool:
    """Ask for a (new) trust challenge; False when the recipient is already trusted."""
    started = client.sca.trust_start(state["account_id"])
    challenge = started.sca_challenge
    if challenge is None:
        return False
    state.update(
        challenge_id=challenge.id, factor=challenge.factor, options=challenge.passkey_assertion_options
    )
    request.session[TRUST] = state
    return True


def trust_begin(
    request: HttpRequest, client: ServiceClient, *, account_id: str, label: str, next_url: str
) -> str:
    """Called by the send page once the quote is made: where to go next, the trust page, or
    `next_url` when there is nothing to confirm (already trusted, or trust does not apply)."""
    state = {"account_id": account_id, "label": label, "next": next_url}
    try:
        if not _start(request, client, state):
            sca_steps.trusted_set(request, account_id, True)
            messages.info(request, f"You already trust {label}.")
            return next_url
    except Conflict as exc:  # not in an SCA region (any more), or no way to approve
        messages.info(request, f"{label} could not be marked trusted: {explain(exc)}")
        return next_url
    return reverse("portal:payee-trust")


def _with_trust(view):
    """The view gets the trust being confirmed; without one, back to the send page."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        state = request.session.get(TRUST)
        return view(request, state) if state else go(request, reverse("portal:send"))

    return wrapper


def _context(request: HttpRequest, state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "trust": state,
        "form": CodeForm(),  # the code field; a refused code brings its own bound form in `extra`
        "code_url": reverse("portal:payee-trust"),
        "resend_url": reverse("portal:payee-trust-resend"),
        "submit": "Trust this recipient",
        "wait": sca_steps.resend_wait(request, state["challenge_id"]) if state["factor"] == "SMS_OTP" else 0,
        **extra,
    }


@require_http_methods(["GET", "POST"])
@signed_in_service_view
@_with_trust
def payee_trust_view(request: HttpRequest, state: dict[str, Any]) -> HttpResponse:
    """The code (form) or the passkey assertion (the shim's JSON) that confirms the trust."""
    passkey = request.method == "POST" and wants_json(request)
    proof: dict[str, Any]
    if passkey:
        proof = {"passkey_assertion": json_body(request).get("credential"), "origin": _origin(request)}
    else:
        code = code_step_entry(request, PAGE, functools.partial(_context, request, state))
        if isinstance(code, HttpResponse):
            return code
        proof = {"code": code}
    try:
        service_client().sca.trust_confirm(state["account_id"], challenge_id=state["challenge_id"], **proof)
    except (BadRequest, Locked) as exc:
        reason = (exc.details or {}).get("reason")
        error = "This code has expired. Ask for a new code below." if reason in _EXPIRED else explain(exc)
        if passkey:
            return _json({"error": error}, 400)
        return code_step_page(request, PAGE, _context(request, state, error=error), part="code-form")
    request.session.pop(TRUST, None)
    sca_steps.trusted_set(request, state["account_id"], True)
    messages.success(
        request, f"You now trust {state['label']}. Payments to them will not need your approval."
    )
    return _json({"redirect": state["next"]}) if passkey else go(request, state["next"])


@require_POST
@signed_in_service_view
@_with_trust
def payee_trust_passkey_view(request: HttpRequest, state: dict[str, Any]) -> HttpResponse:
    """The shim's first call when the trust is confirmed with a passkey: its WebAuthn request options."""
    if not state.get("options") or not wants_json(request):
        return go(request, reverse("portal:payee-trust"))
    return _json({"mode": "get", "publicKey": state["options"], "post": reverse("portal:payee-trust")})


@require_POST
@signed_in_service_view
@_with_trust
def payee_trust_resend_view(request: HttpRequest, state: dict[str, Any]) -> HttpResponse:
    """A new code: a new trust challenge (the service has no resend for it), after the cool-down."""
    notice = ""
    if sca_steps.resend_wait(request, state["challenge_id"]) == 0:
        wait = throttle.hit(throttle.CODE_PER_IP, throttle.client_ip(request))
        if wait:
            notice = "Too many attempts from your network. Please try again later."
        elif _start(request, service_client(), state):
            notice = "We sent a new code."
        else:
            return go(request, state["next"])
    return code_step_page(request, PAGE, _context(request, state, notice=notice), part="resend")
