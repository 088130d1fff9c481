"""Contact verification: the customer's email and phone, each proved with a one-time code."""

from __future__ import annotations

from django.db import models

from payments.models.base import PublicRecord


class ContactVerification(PublicRecord):
    """One channel (EMAIL or PHONE) of one customer: its current code (digest only), failed attempts,
    lock, resend window, and the contact value last proved. The channel reads VERIFIED while
    `verified_contact` is the customer's current email or phone; changing it makes it PENDING again."""

    ID_KIND = "ContactVerification"
    Channel = models.TextChoices("Channel", "EMAIL PHONE")

    customer = models.ForeignKey("payments.Customer", on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    contact = models.CharField(max_length=254, blank=True)  # where the current code was sent
    code_digest = models.CharField(max_length=64, blank=True)
    code_expires_at = models.DateTimeField(null=True, blank=True)
    failed_attempts = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    window_started_at = models.DateTimeField(null=True, blank=True)
    codes_in_window = models.PositiveIntegerField(default=0)
    verified_contact = models.CharField(max_length=254, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "channel"], name="contact_verification_channel_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.channel} of {self.customer_id}"
