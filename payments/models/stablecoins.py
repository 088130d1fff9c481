"""Stablecoin issuance: a platform's links to a stablecoin provider account, the stablecoins it
registered with one, and the mint and burn operations on them (rules in `payments.stablecoins`).

A stablecoin's circulating supply is a ledger account (`LedgerAccount.Kind.SUPPLY`, its symbol as the
currency), so it is never negative and every mint and burn is a journal.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from payments.models.base import PlatformScoped, currency_code
from payments.secret_box import sealed_text

StablecoinProvider = models.TextChoices("StablecoinProvider", "BRALE")
StablecoinProviderEnvironment = models.TextChoices("StablecoinProviderEnvironment", "SANDBOX PRODUCTION")
StablecoinOperationStatus = models.TextChoices(
    "StablecoinOperationStatus",
    "CREATED PENDING_FUNDING PENDING_PROVIDER PROCESSING COMPLETED FAILED EXPIRED",
)


class StablecoinProviderAccount(PlatformScoped):
    ID_KIND = "StablecoinProviderAccount"
    Provider = StablecoinProvider
    Environment = StablecoinProviderEnvironment
    Status = models.TextChoices("StablecoinProviderAccountStatus", "ACTIVE INVALID REVOKED")

    provider = models.CharField(max_length=16, choices=Provider.choices)
    provider_account_id = models.CharField(max_length=255)
    provider_environment = models.CharField(max_length=16, choices=Environment.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    api_client_id = models.CharField(max_length=255)
    # The provider API client secret, sealed for `stablecoin-provider-secret`; never shown.
    api_client_secret_sealed = models.TextField()
    api_client_secret = sealed_text(field="api_client_secret_sealed", purpose="stablecoin-provider-secret")
    last_verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "provider", "provider_environment", "provider_account_id"],
                condition=Q(status="ACTIVE"),
                name="stablecoin_provider_account_active_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.provider_account_id} ({self.status})"


class Stablecoin(PlatformScoped):
    ID_KIND = "Stablecoin"
    IssuanceStatus = models.TextChoices(
        "StablecoinIssuanceStatus", "PENDING_REVIEW PROVISIONING PROVISIONED REJECTED FAILED"
    )
    OperationsStatus = models.TextChoices(
        "StablecoinServiceOperationsStatus", "NOT_ENABLED PENDING_APPROVAL ENABLING ENABLED DISABLED"
    )
    Network = models.TextChoices("StablecoinNetwork", "SPARK")

    provider_account = models.ForeignKey(
        StablecoinProviderAccount, on_delete=models.PROTECT, related_name="stablecoins"
    )
    provider = models.CharField(max_length=16, choices=StablecoinProvider.choices)
    provider_environment = models.CharField(max_length=16, choices=StablecoinProviderEnvironment.choices)
    provider_token_identifier = models.CharField(max_length=64)
    network = models.CharField(max_length=8, choices=Network.choices)
    network_token_identifier = models.CharField(max_length=128)
    name = models.CharField(max_length=100)
    # The token's symbol: also the currency of its ledger accounts.
    symbol = currency_code()
    base_currency = currency_code()
    decimals = models.PositiveSmallIntegerField()
    issuance_status = models.CharField(max_length=16, choices=IssuanceStatus.choices)
    service_operations_status = models.CharField(max_length=16, choices=OperationsStatus.choices)
    currency = currency_code(blank=True)  # set once enabled for Service operations

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "symbol"], name="stablecoin_platform_symbol_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.symbol})"


class StablecoinOperation(PlatformScoped):
    """A mint or burn. Its timeline at the provider is due `steps` (`payments.due_steps`); the
    statuses and their moves are the table in `payments.stablecoins.OPERATION_TRANSITIONS`."""

    ID_KIND = "StablecoinOperation"
    Type = models.TextChoices("StablecoinOperationType", "MINT BURN")
    Status = StablecoinOperationStatus

    stablecoin = models.ForeignKey(Stablecoin, on_delete=models.PROTECT, related_name="operations")
    provider_account = models.ForeignKey(
        StablecoinProviderAccount, on_delete=models.PROTECT, related_name="+"
    )
    operation_type = models.CharField(max_length=8, choices=Type.choices)
    status = models.CharField(max_length=16, choices=StablecoinOperationStatus.choices)
    amount = models.BigIntegerField()  # in the stablecoin's smallest unit
    # The wire's source, destination, fundingInstructions and estimatedDelivery, as rendered.
    source = models.JSONField()
    provider_status = models.CharField(max_length=32, blank=True)
    destination = models.JSONField()
    expires_at = models.DateTimeField(null=True, blank=True)
    funding_instructions = models.JSONField(null=True, blank=True)
    failure_reason = models.CharField(max_length=64, blank=True)
    estimated_delivery = models.JSONField(null=True, blank=True)
    description = models.CharField(max_length=1024, blank=True)
    # The timeline at the provider (payments.due_steps).
    steps = models.JSONField(default=list, blank=True)
    next_step_at = models.DateTimeField(null=True, blank=True)
    step_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="stablecoin_operation_amount_positive")
        ]
        indexes = [
            models.Index(fields=["platform", "stablecoin", "id"], name="stablecoin_op_platform_coin"),
            models.Index(
                fields=["next_step_at"],
                condition=Q(next_step_at__isnull=False),
                name="stablecoin_op_due_steps",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operation_type} {self.amount} ({self.status})"
