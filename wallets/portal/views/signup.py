"""Sign up: email, name and the End User Terms → a customer of the service → the identity decision
(sandbox: by the name's last digits) → the hosted identity check when more is needed → once approved,
the wallet (Global Account) exists and the person signs in with a code sent to their email."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import BadRequest
from project.csp import allow_form_redirect
from wallets.portal import throttle
from wallets.portal.forms import SignupForm
from wallets.portal.http import page, service_errors
from wallets.portal.models import PortalAccount
from wallets.portal.service import service_client
from wallets.portal.views.login import account_wallet_refresh, otp_start
from wallets.portal.wording import explain, explain_field, wait_words

SIGNUP = "portal_signup_account"
SIGNUP_PAGE = "wallets/portal/signup.html"
STATUS_PAGE = "wallets/portal/signup_status.html"
ACCEPTANCE_METHOD = "CHECKBOX"  # a checkbox the person ticks (the reference's acceptanceMethod enum)
# The service's field names → the form's.
_FIELDS = {"email": "email", "fullName": "full_name"}


@service_errors
@require_http_methods(["GET", "POST"])
def signup_view(request: HttpRequest) -> HttpResponse:
    client = service_client()
    terms = client.customers.end_user_terms()
    form = SignupForm(request.POST or None, initial={"terms_version": terms["version"]})
    context = {"form": form, "terms": terms}
    if request.method == "GET" or not form.is_valid():
        return page(request, SIGNUP_PAGE, context)
    if form.cleaned_data["terms_version"] != terms["version"]:
        form.add_error("terms", "The End User Terms have just changed. Please read them and accept again.")
        form.data = {**form.data.dict(), "terms_version": terms["version"]}
        return page(request, SIGNUP_PAGE, context)
    wait = throttle.hit(throttle.SIGNUP_PER_IP, throttle.client_ip(request))
    if wait:
        form.add_error(None, f"Too many sign-ups from your network. Please try again {wait_words(wait)}.")
        return page(request, SIGNUP_PAGE, context, status=429)

    email = form.cleaned_data["email"]
    if PortalAccount.objects.filter(email=email).exists():
        # Already signed up: carry on as a sign-in (a code goes to the address's owner).
        return otp_start(request, email=email, channel="email", next_url=reverse("portal:home"))
    consent = {
        "acceptedAt": timezone.now().isoformat().replace("+00:00", "Z"),
        "ipAddress": throttle.client_ip(request),
        "termsVersion": terms["version"],
        "acceptanceMethod": ACCEPTANCE_METHOD,
    }
    try:
        customer = client.customers.create(
            customer_type="INDIVIDUAL",
            full_name=form.cleaned_data["full_name"],
            email=email,
            platform_customer_id=f"portal-{uuid.uuid4().hex}",
            end_user_terms_consent=consent,
        )
    except BadRequest as exc:
        for error in exc.field_errors:
            field = _FIELDS.get(str(error.get("field", "")).split(".")[0])
            form.add_error(field, explain_field(error) if field else explain(exc))
        if not exc.field_errors:
            form.add_error(None, explain(exc))
        return page(request, SIGNUP_PAGE, context)
    try:
        account = PortalAccount.objects.create(email=email, customer_id=customer.id)
    except IntegrityError:  # the same address signed up at the same moment in another tab
        return otp_start(request, email=email, channel="email", next_url=reverse("portal:home"))
    account_wallet_refresh(client, account)
    request.session[SIGNUP] = account.pk
    return redirect("portal:signup-status")


def _signup_account(request: HttpRequest) -> PortalAccount | None:
    account_id = request.session.get(SIGNUP)
    return PortalAccount.objects.filter(pk=account_id).first() if account_id else None


@service_errors
@require_http_methods(["GET"])
def signup_status_view(request: HttpRequest) -> HttpResponse:
    """The identity decision, read fresh from the service (it changes after the hosted check)."""
    account = _signup_account(request)
    if account is None:
        return redirect("portal:signup")
    client = service_client()
    customer = client.customers.get(account.customer_id)
    status = customer.kyc_status or "PENDING"
    wallet_ready = status == "APPROVED" and bool(account_wallet_refresh(client, account))
    response = page(
        request,
        STATUS_PAGE,
        {"account": account, "status": status, "wallet_ready": wallet_ready, "full_name": customer.full_name},
    )
    # "Verify my identity" posts here and is redirected to the service's hosted check, which `make run`
    # serves on another origin (127.0.0.1) than the portal's (localhost): the browser checks that
    # redirect against this page's form-action.
    return allow_form_redirect(response, settings.PORTAL_SERVICE_BASE_URL)


@service_errors
@require_POST
def signup_verify_view(request: HttpRequest) -> HttpResponse:
    """Off to the service's hosted identity check, which sends the person back to the status page."""
    account = _signup_account(request)
    if account is None:
        return redirect("portal:signup")
    link = service_client().customers.kyc_link(
        account.customer_id, redirect_url=request.build_absolute_uri(reverse("portal:signup-status"))
    )
    return redirect(link.kyc_url)
