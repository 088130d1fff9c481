"""UMA invitations: create, read, claim, cancel (README "Invitations").

Decisions where the reference leaves room:

- **Configured**: a platform makes invitations once its config has a `umaDomain`; before that,
  create answers 400 INVITATIONS_NOT_CONFIGURED. The inviter is a customer of the platform, named by
  its `umaAddress`.
- **Who sees what**: an invitation is shared as a link, so its code (12 random characters) is the
  secret: any platform may read or claim it by code (the invitee's platform claims); only the
  platform that made it may cancel it (403 otherwise). INVITATION.CLAIMED goes to the maker.
- **Lifecycle**: PENDING → CLAIMED or CANCELLED, once, under the row lock, so of many concurrent
  claims exactly one wins; the others answer 400 INVITATION_ALREADY_CLAIMED. A PENDING invitation
  past its `expiresAt` reads EXPIRED and can be neither claimed nor cancelled (400 INVALID_INPUT).
"""

from __future__ import annotations

import datetime as dt
import secrets
import string

from django.db import IntegrityError, transaction

from payments import clock
from payments.accounts import platform_currency_codes
from payments.errors import BadRequest, FieldError, Forbidden, InvalidInput, first_or_404
from payments.models import Customer, Invitation, Platform
from payments.rails import uma_parse
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from payments.wire.invitations import invitation_status, render_invitation

CODE_LENGTH = 12
_CODE_ALPHABET = string.ascii_lowercase + string.digits


def _uma_checked(address: str, field: str) -> str:
    if uma_parse(address) is None:
        raise BadRequest(
            f"{field} must look like $user@domain.example",
            code="INVALID_UMA_ADDRESS",
            errors=[FieldError(field, "is not a UMA address", {"pattern": "$user@domain"}).as_dict()],
        )
    return address.strip()


def invitation_create(
    *,
    platform: Platform,
    inviter_uma: str,
    first_name: str = "",
    amount_to_send: int | None = None,
    expires_at: dt.datetime | None = None,
) -> Invitation:
    if not platform.uma_domain:
        raise BadRequest(
            "Invitations are not configured: set umaDomain with PATCH /config first",
            code="INVITATIONS_NOT_CONFIGURED",
        )
    inviter_uma = _uma_checked(inviter_uma, "inviterUma")
    if expires_at is not None and expires_at <= clock.now():
        raise InvalidInput(errors=[FieldError("expiresAt", "must be in the future", {"minimum": "now"})])
    inviter = (
        Customer.objects.for_platform(platform)
        .filter(uma_address__iexact=inviter_uma, deleted_at__isnull=True)
        .first()
    )
    if inviter is None:
        raise InvalidInput(
            errors=[FieldError("inviterUma", "is not the UMA address of a customer of this platform", {})]
        )
    currency = next(iter(inviter.currencies or platform_currency_codes(platform)), "")
    for _ in range(3):  # a collision of 62 random bits is not expected; a retry costs nothing
        try:
            with transaction.atomic():
                return Invitation.objects.create(
                    platform=platform,
                    code="".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH)),
                    inviter=inviter,
                    inviter_uma=inviter.uma_address,
                    first_name=first_name,
                    amount_to_send=amount_to_send,
                    currency=currency if amount_to_send is not None else "",
                    expires_at=expires_at,
                )
        except IntegrityError:
            continue
    raise RuntimeError("could not find a free invitation code")


def invitation_get(*, code: str) -> Invitation:
    return first_or_404(Invitation.objects.filter(code=code), "Invitation")


def _for_update(code: str) -> Invitation:
    return first_or_404(Invitation.objects.select_for_update().filter(code=code), "Invitation")


def _pending_check(invitation: Invitation) -> None:
    """400 unless the (locked) invitation is still PENDING: claimed, cancelled and expired each say so."""
    status = invitation_status(invitation)
    if status == Invitation.Status.CLAIMED:
        raise BadRequest("This invitation has already been claimed", code="INVITATION_ALREADY_CLAIMED")
    if status == Invitation.Status.CANCELLED:
        raise BadRequest("This invitation has been cancelled", code="INVITATION_CANCELLED")
    if status == Invitation.Status.EXPIRED:
        raise InvalidInput("This invitation has expired")


@transaction.atomic
def invitation_claim(*, platform: Platform, code: str, invitee_uma: str) -> Invitation:
    """Claim for `invitee_uma` (by the invitee's platform, any platform); the maker is told by an
    INVITATION.CLAIMED webhook committed with the claim."""
    invitee_uma = _uma_checked(invitee_uma, "inviteeUma")
    invitation = _for_update(code)
    _pending_check(invitation)
    if invitee_uma.lower() == invitation.inviter_uma.lower():
        raise InvalidInput(errors=[FieldError("inviteeUma", "is the inviter's own UMA address", {})])
    invitation.status = Invitation.Status.CLAIMED
    invitation.invitee_uma = invitee_uma
    invitation.claimed_at = clock.now()
    invitation.claimed_by_platform = platform
    invitation.touch()
    invitation.save()
    webhook_emit(
        platform=invitation.platform, type=WebhookType.INVITATION_CLAIMED, data=render_invitation(invitation)
    )
    return invitation


@transaction.atomic
def invitation_cancel(*, platform: Platform, code: str) -> Invitation:
    invitation = _for_update(code)
    if invitation.platform_id != platform.pk:
        raise Forbidden("Only the platform which created the invitation can cancel it")
    _pending_check(invitation)
    invitation.status = Invitation.Status.CANCELLED
    invitation.cancelled_at = clock.now()
    invitation.touch()
    invitation.save()
    return invitation
