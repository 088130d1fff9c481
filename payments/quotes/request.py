"""A parsed quote request and the two ends it resolves to (the bottom of the package)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from payments.models import Customer, ExternalAccount, InternalAccount, Quote

SourceKind = Quote.SourceKind
DestinationKind = Quote.DestinationKind


@dataclass(frozen=True)
class QuoteRequest:
    """A parsed `QuoteRequest` (wire names in `source` and `destination`)."""

    source: Mapping[str, Any]
    destination: Mapping[str, Any]
    locked_side: str
    locked_amount: int
    immediately_execute: bool = False
    description: str = ""
    remittance_information: str = ""
    purpose_of_payment: str = ""
    platform_fee_override: Mapping[str, Any] | None = None
    lookup_id: str | None = None
    sender_customer_info: Mapping[str, Any] = field(default_factory=dict)
    sca_factor: str | None = None  # preferred factor of an SCA challenge issued at creation
    same_currency: bool = False  # transfer-in/out: both ends must hold the same currency

    def texts(self) -> dict[str, str]:
        """The free texts the quote and its transaction both keep."""
        return {
            "description": self.description,
            "remittance_information": self.remittance_information,
            "purpose_of_payment": self.purpose_of_payment,
        }


@dataclass
class End:
    """One end of a transfer: its kind (a SourceKind or DestinationKind) and the internal or external
    account it is, if any (realtime funding and UMA addresses have none)."""

    kind: str = ""
    internal: InternalAccount | None = None
    external: ExternalAccount | None = None

    @property
    def account(self) -> InternalAccount | ExternalAccount | None:
        return self.internal or self.external

    def columns(self, side: str) -> dict[str, Any]:
        """This end as the quote's columns of `side` ("source" or "destination")."""
        return {
            f"{side}_kind": self.kind,
            f"{side}_internal_account": self.internal,
            f"{side}_external_account": self.external,
        }


@dataclass
class Ends:
    """Both ends of a transfer, resolved and checked."""

    source: End = field(default_factory=End)
    customer: Customer | None = None
    sending: str = ""
    funding_rail: str = ""
    network: str = ""
    destination: End = field(default_factory=End)
    uma_address: str = ""
    receiving: str = ""
    rail: str = ""
    rail_mode: str = ""

    def columns(self) -> dict[str, Any]:
        """Both ends as the quote's columns."""
        return {
            **self.source.columns("source"),
            **self.destination.columns("destination"),
            "customer": self.customer,
            "destination_uma_address": self.uma_address,
            "rail": self.rail,
            "rail_selection_mode": self.rail_mode,
            "funding_rail": self.funding_rail,
            "sending_currency": self.sending,
            "receiving_currency": self.receiving,
        }
