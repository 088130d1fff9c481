"""Quotes (a locked price for one transfer) and receiver lookups. Rules: `payments/quotes.py`."""

from __future__ import annotations

from typing import Any

from django.db import models

from payments.models.base import PlatformScoped, currency_code, optional_ref

QuoteStatus = models.TextChoices(
    "QuoteStatus", "PENDING PENDING_AUTHORIZATION PROCESSING COMPLETED FAILED EXPIRED"
)


class Quote(PlatformScoped):
    ID_KIND = "Quote"
    Status = QuoteStatus

    class SourceKind(models.TextChoices):
        INTERNAL = "INTERNAL"  # an internal account is debited at execution
        EXTERNAL = "EXTERNAL"  # an external account is pulled from (ACH/SEPA debit)
        REALTIME = "REALTIME"  # the payer pays paymentInstructions just in time

    DestinationKind = models.TextChoices("DestinationKind", "INTERNAL EXTERNAL UMA")

    # Change only through payments.quote_status.quote_transition.
    status = models.CharField(max_length=24, choices=QuoteStatus.choices, default=QuoteStatus.PENDING)
    expires_at = models.DateTimeField()
    # On whose behalf (null: the platform itself).
    customer = optional_ref("payments.Customer")
    # The request's source and destination in their wire shape (what GET shows).
    source = models.JSONField()
    destination = models.JSONField()
    source_kind = models.CharField(max_length=8, choices=SourceKind.choices)
    source_internal_account = optional_ref("payments.InternalAccount")
    source_external_account = optional_ref("payments.ExternalAccount")
    destination_kind = models.CharField(max_length=8, choices=DestinationKind.choices)
    destination_internal_account = optional_ref("payments.InternalAccount")
    destination_external_account = optional_ref("payments.ExternalAccount")
    destination_uma_address = models.CharField(max_length=320, blank=True)
    # The rail the transfer is priced and paid out on (a PaymentRail or a crypto network), how it
    # was chosen (MANUAL/AUTO, blank for book transfers), and the rail that funds it (pull/realtime).
    rail = models.CharField(max_length=32)
    rail_selection_mode = models.CharField(max_length=8, blank=True)
    funding_rail = models.CharField(max_length=32, blank=True)

    sending_currency = currency_code()
    receiving_currency = currency_code()
    locked_side = models.CharField(max_length=16)
    locked_amount = models.BigIntegerField()
    total_sending_amount = models.BigIntegerField()
    total_receiving_amount = models.BigIntegerField()
    fees_included = models.BigIntegerField()
    platform_fees_included = models.BigIntegerField(default=0)
    converted_amount = models.BigIntegerField()
    counterparty_fee = models.BigIntegerField(default=0)  # receiving currency (rateDetails)
    exchange_rate = models.CharField(max_length=64)  # a Decimal, kept exact as text
    rate_details = models.JSONField(default=dict)
    # As issued, never re-rendered: the embedded-wallet payloadToSign is stamped byte for byte.
    payment_instructions = models.JSONField(default=list, blank=True)
    payload_to_sign = models.TextField(blank=True)

    description = models.CharField(max_length=1024, blank=True)
    remittance_information = models.CharField(max_length=80, blank=True)
    purpose_of_payment = models.CharField(max_length=32, blank=True)
    sender_customer_info = models.JSONField(default=dict, blank=True)
    lookup = models.ForeignKey(
        "payments.ReceiverLookup", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    immediately_execute = models.BooleanField(default=False)
    executed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.public_id} {self.total_sending_amount} {self.sending_currency} ({self.status})"

    @property
    def is_embedded_wallet_source(self) -> bool:
        return bool(self.payload_to_sign)

    def transaction_amounts(self) -> dict[str, Any]:
        """The figures a transaction of this quote shows, as the quote priced them (both sides of a
        book transfer show the same)."""
        return {
            "sent_amount": self.total_sending_amount,
            "sent_currency": self.sending_currency,
            "received_amount": self.total_receiving_amount,
            "received_currency": self.receiving_currency,
            "exchange_rate": self.exchange_rate,
            "fees": self.fees_included,
        }


class ReceiverLookup(PlatformScoped):
    """A receiver lookup (`GET /receiver/...`); its id is the `lookupId` a quote may quote back."""

    ID_KIND = "Lookup"

    uma_address = models.CharField(max_length=320, blank=True)
    external_account = models.ForeignKey(
        "payments.ExternalAccount", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    customer = models.ForeignKey(
        "payments.Customer", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    supported_currencies = models.JSONField(default=list)

    def __str__(self) -> str:
        return self.uma_address or str(self.external_account_id)
