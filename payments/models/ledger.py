"""The double-entry ledger: accounts, journals (one per movement) and their postings.

A journal's postings sum to zero per currency; an account's balance is the sum of its postings.
Internal accounts also keep that sum in `LedgerAccount.balance`, updated in the same database
transaction as the postings under a row lock, so a balance read is one row and the non-negative
rule can be checked (and is enforced by a CHECK constraint). The rules live in `payments/ledger.py`.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from payments import clock, ids
from payments.models.base import currency_code


class LedgerAccount(models.Model):
    """Where money sits: a platform's or customer's internal account, or one of a platform's system
    accounts per currency (the outside world, money in flight, currency positions, fees)."""

    class Kind(models.TextChoices):
        INTERNAL = "INTERNAL"  # an InternalAccount; never negative
        WORLD = "WORLD"  # outside the service: banks, chains, payers and payees
        SETTLEMENT = "SETTLEMENT"  # debited from a source, not yet delivered
        FX = "FX"  # the service's currency positions (conversions, rounding)
        FEES = "FEES"  # the service's fees
        PLATFORM_FEES = "PLATFORM_FEES"  # fees collected for the platform
        SUPPLY = "SUPPLY"  # a stablecoin's tokens in circulation (its symbol is the currency); never negative
        ISSUANCE = "ISSUANCE"  # the issuer's side of a stablecoin's supply: minus what is in circulation

    platform = models.ForeignKey("payments.Platform", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    currency = currency_code()
    internal_account = models.OneToOneField(
        "payments.InternalAccount",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_account",
    )
    # The sum of this account's postings; kept for INTERNAL and SUPPLY accounts only (the other system
    # accounts are hot rows every movement touches, so their balance is summed on demand instead).
    balance = models.BigIntegerField(default=0)
    # What open card authorizations hold of an INTERNAL account's balance (the sum of its card
    # transactions' `held`): its available balance is `balance - held`, never negative.
    held = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "kind", "currency"],
                condition=~Q(kind="INTERNAL"),
                name="ledger_system_account_unique",
            ),
            models.CheckConstraint(
                condition=Q(balance__gte=0) | ~Q(kind__in=["INTERNAL", "SUPPLY"]),
                name="ledger_internal_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=(Q(held__gte=0) & Q(balance__gte=F("held"))) | ~Q(kind="INTERNAL"),
                name="ledger_internal_available_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(kind="INTERNAL", internal_account__isnull=False)
                | (~Q(kind="INTERNAL") & Q(internal_account__isnull=True)),
                name="ledger_account_kind_matches_owner",
            ),
        ]

    def __str__(self) -> str:
        if self.internal_account_id:
            return f"internal {self.internal_account_id} {self.currency}"
        return f"{self.kind.lower()} {self.currency} (platform {self.platform_id})"


class LedgerJournal(models.Model):
    """One movement of money. `key` names the movement (e.g. `txn:<id>:debit`) and is unique, so a
    movement is posted once however often the code that posts it runs."""

    class Kind(models.TextChoices):
        FUNDING = "FUNDING"  # money arrives from outside (sandbox fund, realtime funding)
        DEBIT = "DEBIT"  # a quote's source is debited (amount, fees, platform fees)
        DELIVERY = "DELIVERY"  # the debited amount reaches the destination
        PULL = "PULL"  # a pull from an external account is collected and delivered
        INCOMING = "INCOMING"  # an incoming payment is credited
        REFUND = "REFUND"  # a debit or funding is given back
        RETURN = "RETURN"  # a delivered payout comes back
        CARD_SETTLEMENT = "CARD_SETTLEMENT"  # a card clearing is paid from the card's account
        CARD_RETURN = "CARD_RETURN"  # a merchant's return credits the card's account (or is taken back)
        STABLECOIN_MINT = "STABLECOIN_MINT"  # a mint completes: ISSUANCE → SUPPLY
        STABLECOIN_BURN = "STABLECOIN_BURN"  # a burn is accepted: SUPPLY → ISSUANCE (a REFUND undoes it)

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    platform = models.ForeignKey("payments.Platform", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=120)
    transaction = models.ForeignKey(
        "payments.Transaction", null=True, blank=True, on_delete=models.PROTECT, related_name="journals"
    )
    description = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=clock.now, editable=False)

    class Meta:
        # A constraint rather than `unique=True`, which on PostgreSQL adds a second (LIKE) index that
        # every posting would keep up for lookups nobody makes.
        constraints = [models.UniqueConstraint(fields=["key"], name="ledger_journal_key_unique")]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


class LedgerPosting(models.Model):
    """One leg of a journal: a signed amount on one account (positive credits, negative debits)."""

    journal = models.ForeignKey(LedgerJournal, on_delete=models.PROTECT, related_name="postings")
    # Indexed by `ledger_posting_account` (account, id), which serves every lookup by account.
    account = models.ForeignKey(
        LedgerAccount, on_delete=models.PROTECT, related_name="postings", db_index=False
    )
    currency = currency_code()
    amount = models.BigIntegerField()
    created_at = models.DateTimeField(default=clock.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["account", "id"], name="ledger_posting_account")]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="ledger_posting_not_zero")]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.currency} on {self.account_id}"
