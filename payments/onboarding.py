"""Hosted onboarding links (`POST /customers/{customerId}/kyc-link`) and the token checks the pages use.

A link is a random 256-bit token, shown once in the URL and stored only as its SHA-256 digest; it
belongs to one customer, expires after LINK_LIFETIME and is used up when the flow is submitted.
The pages (`/onboarding/<token>/`) call `onboarding_link_open` on every request, then the same
domain functions as the API (customer_update, document_upload, beneficial_owner_create, ...),
and finally `onboarding_link_complete`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from urllib.parse import urlsplit
from uuid import UUID

from django.db import transaction

from payments import clock
from payments.contact_verification import contact_verification_require_verified
from payments.customers import customer_get, customer_get_for_update
from payments.errors import FieldError, Gone, InvalidInput, ResourceNotFound
from payments.models import OnboardingLink, Platform, Verification
from payments.platform_clock import platform_time_enter
from payments.verifications import verification_submit

LINK_LIFETIME = dt.timedelta(hours=24)
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


class OnboardingLinkError(ResourceNotFound):
    """Base of the link errors; the pages show each as its own page, the API never raises them."""

    def __init__(self, message: str) -> None:
        super().__init__("OnboardingLink", message)


class OnboardingLinkUnknown(OnboardingLinkError):
    def __init__(self) -> None:
        super().__init__("This onboarding link is not valid")


class OnboardingLinkExpired(OnboardingLinkError, status=410):
    def __init__(self) -> None:
        super().__init__("This onboarding link has expired; ask for a new one")


class OnboardingLinkUsed(OnboardingLinkError, status=410):
    def __init__(self) -> None:
        super().__init__("This onboarding link has already been used")


def onboarding_link_path(token: str) -> str:
    """Where the hosted pages for `token` live (the pages' URLconf must serve this path)."""
    return f"/onboarding/{token}/"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def redirect_uri_error(uri: str) -> str | None:
    """`https://` anywhere, `http://` only to this machine (local development), as the reference says."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "Not a valid URI"
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        return None
    return "Must start with https:// (or http:// to localhost for local development)"


@transaction.atomic
def onboarding_link_create(
    *, platform: Platform, customer_id: UUID, redirect_uri: str = ""
) -> tuple[OnboardingLink, str]:
    """A new link for the customer; returns the link and its token (the only time the token exists in
    clear). Earlier links stay valid until they expire or are used. The customer's status is unchanged."""
    if redirect_uri and (problem := redirect_uri_error(redirect_uri)):
        raise InvalidInput(errors=[FieldError("redirectUri", problem, {"format": "uri"})])
    customer = customer_get(platform=platform, customer_id=customer_id)
    contact_verification_require_verified(customer)
    token = secrets.token_urlsafe(32)
    link = OnboardingLink.objects.create(
        customer=customer,
        token_digest=_digest(token),
        redirect_uri=redirect_uri,
        expires_at=clock.now() + LINK_LIFETIME,
    )
    return link, token


def _find(token: str, *, lock: bool) -> OnboardingLink:
    if not isinstance(token, str) or not 16 <= len(token) <= 128:
        raise OnboardingLinkUnknown()
    digest = _digest(token)
    links = OnboardingLink.objects.select_related("customer", "customer__platform")
    if lock:
        links = links.select_for_update(of=("self",))
    link = links.filter(token_digest=digest).first()
    # The lookup is by digest, so its timing says nothing about the token; the compare is belt and braces.
    if link is None or not hmac.compare_digest(link.token_digest, digest):
        raise OnboardingLinkUnknown()
    platform_time_enter(link.customer.platform)  # a hosted page runs on the link's platform's clock
    if link.used_at is not None:
        raise OnboardingLinkUsed()
    if link.expires_at <= clock.now():
        raise OnboardingLinkExpired()
    if link.customer.is_deleted:
        raise Gone("This customer no longer exists")
    return link


def onboarding_link_open(token: str) -> OnboardingLink:
    """The link for `token`, with `link.customer` loaded; raises OnboardingLinkUnknown (404),
    OnboardingLinkExpired (410), OnboardingLinkUsed (410) or Gone (customer deleted)."""
    return _find(token, lock=False)


@transaction.atomic
def onboarding_link_complete(token: str) -> Verification:
    """Submit the customer for verification from the hosted flow and use the link up.

    Returns the verification. When it is RESOLVE_ERRORS the link stays usable so the customer can fix
    what is listed and submit again; any other outcome marks the link used."""
    link = _find(token, lock=True)
    customer = customer_get_for_update(platform=link.customer.platform, customer_id=link.customer_id)
    if customer.status in ("APPROVED", "REJECTED"):
        verification = customer.verifications.order_by("-pk").first()
        if verification is None:
            verification = Verification.objects.create(
                platform=customer.platform, customer=customer, status=customer.status
            )
    else:
        verification = verification_submit(
            platform=customer.platform, customer_id=customer.pk, actor="onboarding"
        )
    if verification.status != Verification.Status.RESOLVE_ERRORS:
        link.used_at = clock.now()
        link.touch()
        link.save(update_fields=["used_at", "updated_at"])
    return verification
