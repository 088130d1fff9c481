"""UMA invitations: a code a customer shares so someone can join (and be paid) through a link."""

from __future__ import annotations

from django.db import models

from payments.models.base import PlatformScoped


class Invitation(PlatformScoped):
    """Made by the inviter's platform; any platform may read or claim it by its code (the code is the
    secret), only the inviter's platform may cancel it. EXPIRED is never stored: a PENDING
    invitation past `expires_at` reads as EXPIRED."""

    ID_KIND = "Invitation"
    Status = models.TextChoices("Status", "PENDING CLAIMED EXPIRED CANCELLED")

    code = models.CharField(max_length=32, unique=True)
    inviter = models.ForeignKey("payments.Customer", on_delete=models.PROTECT, related_name="+")
    inviter_uma = models.CharField(max_length=320)
    invitee_uma = models.CharField(max_length=320, blank=True)
    first_name = models.CharField(max_length=255, blank=True)
    amount_to_send = models.BigIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=8, blank=True)
    # Change only through payments.invitations (row lock, one move out of PENDING).
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    expires_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by_platform = models.ForeignKey(
        "payments.Platform", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cancelled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.code} from {self.inviter_uma}"
