"""What the quote page shows while a payment waits for Strong Customer Authentication: before
Confirm, what approving will ask; then the current step in words; and what this browser remembers
about the person's SCA (kept in the Django session: the resend cool-down of each challenge, steps
done per quote, the factor they prefer, until when their SCA login holds, whether they are in an SCA
region at all). Also how factors read: "Text message to ··45 67", "Passkey on this device"."""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from payments.client import Conflict, Quote, ScaFactor, ServiceClient, ServiceClientError
from wallets.portal.auth import current_account
from wallets.portal.forms import CodeForm
from wallets.portal.models import PortalAccount
from wallets.portal.service import service_client

# session: {"resend_at": {challenge id: ts}, "done": {quote id: n}, "factor": str, "login_until": ts,
#           "region": [in a region?, account id, when asked], "trusted": {external account id: bool}}
SCA = "portal_sca"
_KEEP = 20  # entries per map, newest last
REGION_SECONDS = 600  # how long the answer to "are payments approved here?" is kept
PASSKEY_HERE_COOKIE = "portal_sca_passkey"  # signed: the payment passkey made in this browser
_PASSKEY_HERE_SALT = "payments.portal.sca-passkey-here"  # its old home: cookies already set keep working

# Step titles by `purpose`; any other value (the set is open) is a generic step.
TITLES = {
    "CURRENCY_CONVERSION": "Approve the currency conversion",
    "PAYOUT": "Approve the payout",
    "TRANSFER": "Approve the transfer",
}
GENERIC_TITLE = "Approve this payment"


def _state(request: HttpRequest) -> dict[str, Any]:
    return dict(request.session.get(SCA) or {})


def _save(request: HttpRequest, state: dict[str, Any]) -> None:
    request.session[SCA] = state


def _remember(mapping: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    kept = dict(list(mapping.items())[-(_KEEP - 1) :])
    kept.pop(key, None)
    kept[key] = value
    return kept


def resend_wait(request: HttpRequest, challenge_id: str) -> int:
    """Seconds until a new code may be asked for (the first code went out when the step began)."""
    state = _state(request)
    resend_at = state.get("resend_at", {}).get(challenge_id)
    if resend_at is None:
        resend_at = time.time() + settings.PORTAL_OTP_RESEND_SECONDS
        state["resend_at"] = _remember(state.get("resend_at", {}), challenge_id, resend_at)
        _save(request, state)
    return max(0, int(resend_at - time.time() + 0.999))


def resend_at_set(request: HttpRequest, challenge_id: str, seconds: float) -> None:
    state = _state(request)
    state["resend_at"] = _remember(state.get("resend_at", {}), challenge_id, time.time() + seconds)
    _save(request, state)


def step_done(request: HttpRequest, quote_id: str) -> None:
    state = _state(request)
    done = state.get("done", {})
    state["done"] = _remember(done, quote_id, int(done.get(quote_id, 0)) + 1)
    _save(request, state)


def preferred_factor(request: HttpRequest) -> str | None:
    """PASSKEY once this person enrolled (or signed in with) a payment passkey here; else the
    service's default (SMS_OTP)."""
    return _state(request).get("factor")


def preferred_factor_set(request: HttpRequest, factor: str | None) -> None:
    state = _state(request)
    state["factor"] = factor
    _save(request, state)


def login_until_set(request: HttpRequest, until: dt.datetime | None) -> None:
    """The SCA login just completed holds until `until` (the service's `sessionExpiresAt`)."""
    state = _state(request)
    state["login_until"] = until.timestamp() if until else None
    _save(request, state)


def login_known_fresh(request: HttpRequest) -> bool:
    """True when this browser saw the person's SCA login complete and it still holds. Otherwise the
    service may ask for one (once every 180 days) when they approve, and the page says so first."""
    until = _state(request).get("login_until")
    return isinstance(until, int | float) and until > time.time()


def trusted_set(request: HttpRequest, account_id: str, trusted: bool) -> None:
    """The person just trusted (or stopped trusting) this recipient, as the service confirmed."""
    state = _state(request)
    state["trusted"] = _remember(state.get("trusted", {}), account_id, trusted)
    _save(request, state)


PAYMENT_FACTORS = ("SMS_OTP", "PASSKEY")  # the service's default first


def upcoming(
    request: HttpRequest, client: ServiceClient, customer_id: str, payee_id: str | None = None
) -> dict[str, Any] | None:
    """For the Confirm page: None when payments from this account need no approval (or go to a
    recipient the person trusted here); else how the person will approve (`factor`: "" when they
    have no way to yet) and whether they may first be asked to confirm it's them."""
    if payee_id and _state(request).get("trusted", {}).get(payee_id):
        return None
    try:
        factors = {f.factor for f in client.sca.factors(customer_id)}
    except Conflict:
        return None  # not in an SCA region
    usable = factors & set(PAYMENT_FACTORS)  # an authenticator app cannot approve a payment
    preferred = preferred_factor(request)
    factor = preferred if preferred in usable else next((f for f in PAYMENT_FACTORS if f in usable), "")
    return {"factor": factor, "confirm_first": not login_known_fresh(request)}


def sca_region(request: HttpRequest) -> bool:
    """Whether payments from the signed-in person need their approval (their address is in the
    EU/EEA), as the service said within REGION_SECONDS (the menu asks on every page)."""
    account = current_account(request)
    if account is None:
        return False
    state = _state(request)
    known = state.get("region")
    if known and known[1] == account.pk and time.time() - known[2] < REGION_SECONDS:
        return bool(known[0])
    try:
        service_client().sca.factors(account.customer_id)
        inside = True
    except Conflict:
        inside = False
    except ServiceClientError:
        return False  # not known now: no link, asked again on the next page
    region_set(request, account, inside)
    return inside


def region_set(request: HttpRequest, account: PortalAccount, inside: bool) -> None:
    state = _state(request)
    state["region"] = [inside, account.pk, time.time()]
    _save(request, state)


def phone_words(number: str | None) -> str:
    """A phone number as the factor names show it: its last four digits, "··45 67"."""
    digits = re.sub(r"\D", "", number or "")[-4:]
    return f"··{digits[:2]} {digits[2:]}" if len(digits) == 4 else "your phone"


def passkey_here(request: HttpRequest) -> str | None:
    return request.get_signed_cookie(PASSKEY_HERE_COOKIE, default=None, salt=_PASSKEY_HERE_SALT)


def passkey_here_set(response: HttpResponse, request: HttpRequest, credential_id: str | None) -> None:
    if not credential_id:
        return
    response.set_signed_cookie(
        PASSKEY_HERE_COOKIE,
        credential_id,
        salt=_PASSKEY_HERE_SALT,
        max_age=365 * 86400,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def factor_name(request: HttpRequest, factor: ScaFactor, phone: str | None) -> str:
    if factor.factor == "SMS_OTP":
        return f"Text message to {phone_words(phone)}"
    if factor.factor == "PASSKEY":
        if factor.credential_id and factor.credential_id == passkey_here(request):
            return "Passkey on this device"
        return f"Passkey on {factor.name}" if factor.name else "Passkey on another device"
    if factor.factor == "TOTP":
        return f"Authenticator app on {factor.name}" if factor.name else "Authenticator app"
    return "Another way"


def sca_context(request: HttpRequest, quote: Quote) -> dict[str, Any]:
    """The `sca` context of the quote page: None unless the quote waits for an approval step."""
    challenge = quote.sca_challenge
    if quote.status != "PENDING_AUTHORIZATION" or challenge is None:
        return {"sca": None}
    number = int(_state(request).get("done", {}).get(quote.id, 0)) + 1
    account = current_account(request)
    sms = challenge.factor == "SMS_OTP"
    phone = service_client().customers.get(account.customer_id).phone_number if sms and account else None
    return {
        "sca": {
            "title": TITLES.get(challenge.purpose or "", GENERIC_TITLE),
            "number": number,
            "factor": challenge.factor,
            "expires_at": challenge.expires_at,
            "challenge_id": challenge.id,
            "wait": resend_wait(request, challenge.id) if sms else 0,
            "confirm_first": not login_known_fresh(request),
            "phone": phone_words(phone),
        },
        "form": CodeForm(),
    }
