"""Who is in an SCA region (the customer's address in the EU/EEA) and so needs SCA."""

from __future__ import annotations

from uuid import UUID

from payments.customers import customer_get
from payments.eea import EEA_COUNTRIES, customer_in_eea
from payments.models import Customer, Platform, Quote
from payments.sca.errors import NotInScaRegion

SCA_COUNTRIES = EEA_COUNTRIES


def sca_applies(customer: Customer | None) -> bool:
    """Whether the customer is in an SCA region (see the package docstring). Reads no other row."""
    return customer_in_eea(customer)


def sca_required(quote: Quote) -> bool:
    """Whether this quote's transfer needs authorization: not a pull, a customer in an SCA region,
    and not a payment to one of the customer's trusted beneficiaries (`payments.sca.trust`). Uses the
    quote's customer and payee as already loaded with it (execute locks them together), so the
    answer costs no query for anyone outside an SCA region."""
    return (
        quote.source_kind != Quote.SourceKind.EXTERNAL
        and sca_applies(quote.customer)
        and not _trusted_payee(quote)
    )


def _trusted_payee(quote: Quote) -> bool:
    payee = quote.destination_external_account if quote.destination_external_account_id else None
    return payee is not None and payee.sca_trusted_at is not None and payee.customer_id == quote.customer_id


def _sca_customer(platform: Platform, customer_id: UUID) -> Customer:
    customer = customer_get(platform=platform, customer_id=customer_id)
    if not sca_applies(customer):
        raise NotInScaRegion(customer)
    return customer
