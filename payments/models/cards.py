"""Cards issued to customers against their internal accounts, and the card transactions (authorizations
and what reconciles against them: clearings, returns) made with them.

A card's number and CVV are kept sealed (`payments.secret_box`, purpose `card-secrets`): only the last
four digits are in clear, and the full number is shown only through a reveal (`payments.cards`).
States and their moves are the table in `payments.cards.CARD_STATES`; a card transaction's statuses
the table in `payments.cards.CARD_TRANSACTION_STATUSES`.
"""

from __future__ import annotations

import datetime as dt

from django.db import models
from django.db.models import Q

from payments.models.base import PlatformScoped, currency_code
from payments.secret_box import sealed_text

CardState = models.TextChoices("CardState", "PENDING_KYC PROCESSING ACTIVE FROZEN CLOSED")
CardStateReason = models.TextChoices(
    "CardStateReason", "ISSUER_REJECTED CLOSED_BY_PLATFORM CLOSED_BY_SERVICE"
)
CardTransactionStatus = models.TextChoices(
    "CardTransactionStatus", "AUTHORIZED PARTIALLY_SETTLED SETTLED REFUNDED EXCEPTION"
)


class Card(PlatformScoped):
    ID_KIND = "Card"
    State = CardState
    StateReason = CardStateReason
    Brand = models.TextChoices("Brand", "VISA MASTERCARD")
    Form = models.TextChoices("Form", "VIRTUAL")

    customer = models.ForeignKey("payments.Customer", on_delete=models.PROTECT, related_name="cards")
    platform_card_id = models.CharField(max_length=255)
    # The card's `state` on the wire; named `status` for `payments.state_machines`. Change only through
    # `payments.cards`.
    status = models.CharField(max_length=16, choices=CardState.choices)
    state_reason = models.CharField(max_length=24, choices=CardStateReason.choices, blank=True)
    brand = models.CharField(max_length=16, choices=Brand.choices)
    form = models.CharField(max_length=16, choices=Form.choices)
    currency = currency_code()
    last4 = models.CharField(max_length=4)
    exp_month = models.PositiveSmallIntegerField()
    exp_year = models.PositiveSmallIntegerField()
    max_spend_per_transaction = models.BigIntegerField(null=True, blank=True)
    processor_ref = models.CharField(max_length=64)
    issuer_ref = models.CharField(max_length=64)
    # JSON {"pan": ..., "cvv": ...} sealed for `card-secrets`; read through `secrets`.
    secrets_sealed = models.TextField()
    secrets = sealed_text(field="secrets_sealed", purpose="card-secrets")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "platform_card_id"], name="card_platform_card_id_unique"
            ),
            models.CheckConstraint(
                condition=Q(max_spend_per_transaction__isnull=True) | Q(max_spend_per_transaction__gte=1),
                name="card_max_spend_positive",
            ),
        ]
        indexes = [models.Index(fields=["platform", "customer", "id"], name="card_platform_customer")]

    def __str__(self) -> str:
        return f"{self.brand} •••• {self.last4} ({self.status})"


class CardFundingSource(models.Model):
    """One internal account bound to a card, at its place in the card's priority order (0 first)."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="funding_links")
    account = models.ForeignKey("payments.InternalAccount", on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["card", "position"]
        constraints = [
            models.UniqueConstraint(fields=["card", "position"], name="card_funding_source_position_unique"),
            models.UniqueConstraint(fields=["card", "account"], name="card_funding_source_account_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.position}: {self.account_id}"


class CardTransaction(PlatformScoped):
    """An approved authorization and everything reconciled against it. `held` is what its open hold
    keeps from the account's available balance (`LedgerAccount.held` is the sum over the account's
    card transactions); settled and refunded amounts are posted to the ledger."""

    ID_KIND = "CardTransaction"
    Status = CardTransactionStatus

    card = models.ForeignKey(Card, on_delete=models.PROTECT, related_name="transactions")
    account = models.ForeignKey("payments.InternalAccount", on_delete=models.PROTECT, related_name="+")
    customer = models.ForeignKey("payments.Customer", on_delete=models.PROTECT, related_name="+")
    platform_customer_id = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=20, choices=CardTransactionStatus.choices)
    kind = models.CharField(max_length=40, default="AUTHORIZATION")
    direction = models.CharField(max_length=8, default="DEBIT")
    merchant = models.JSONField()
    currency = currency_code()
    authorized_amount = models.BigIntegerField()
    held = models.BigIntegerField(default=0)
    settled_amount = models.BigIntegerField(default=0)
    refunded_amount = models.BigIntegerField(default=0)
    settlement_count = models.PositiveIntegerField(default=0)
    refund_count = models.PositiveIntegerField(default=0)
    pull_count = models.PositiveIntegerField(default=0)
    pull_total = models.BigIntegerField(default=0)
    issuer_transaction_token = models.CharField(max_length=64)
    last_return_key = models.CharField(max_length=120, blank=True)  # the journal a return reversal undoes
    authorized_at = models.DateTimeField()
    last_event_at = models.DateTimeField(null=True, blank=True)
    # A pull still PENDING at the issuer until then (the sandbox's delayed pull); CONFIRMED after it.
    pull_pending_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(held__gte=0), name="card_transaction_held_not_negative"),
            models.CheckConstraint(
                condition=Q(refunded_amount__lte=models.F("settled_amount")),
                name="card_transaction_refund_within_settled",
            ),
        ]
        indexes = [
            models.Index(fields=["platform", "card", "id"], name="card_txn_platform_card"),
            # The pages of GET /transactions, which lists card transactions with the others by key.
            models.Index(fields=["platform", "id"], name="card_txn_platform_id"),
            models.Index(fields=["platform", "customer", "id"], name="card_txn_platform_customer"),
        ]

    def __str__(self) -> str:
        return f"{self.status} {self.authorized_amount} {self.currency} on card {self.card_id}"

    def pending_pulls(self, now: dt.datetime) -> int:
        """How many of its pulls are still PENDING at `now` (a delayed pull confirms by itself when
        its time comes, so a read needs no worker to have run)."""
        return int(self.pull_pending_until is not None and self.pull_pending_until > now)

    def last_event(self, now: dt.datetime) -> dt.datetime | None:
        """When the latest event about it happened, a delayed pull's confirmation included."""
        confirmed = self.pull_pending_until
        if confirmed is None or confirmed > now or (self.last_event_at and self.last_event_at >= confirmed):
            return self.last_event_at
        return confirmed
