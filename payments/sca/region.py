"""Who is in an SCA region (the customer's address in the EU/EEA) and so needs SCA."""

from __future__ import annotations

from uuid import UUID

from payments.customers import customer_get
from payments.models import Customer, Platform, Quote
from payments.sca.errors import NotInScaRegion

# EU member states and the other EEA countries (Iceland, Liechtenstein, Norway), ISO 3166-1 alpha-2.
SCA_COUNTRIES = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO".split()
)


def sca_applies(customer: Customer | None) -> bool:
    """Whether the customer is in an SCA region (see the package docstring). Reads no other row."""
    if customer is None:
        return False
    country = (customer.address or {}).get("country")
    return isinstance(country, str) and country.upper() in SCA_COUNTRIES


def sca_required(quote: Quote) -> bool:
    """Whether this quote's transfer needs authorization. Uses the quote's customer as already
    loaded with it, so the answer costs no query for anyone outside an SCA region."""
    return quote.source_kind != Quote.SourceKind.EXTERNAL and sca_applies(quote.customer)


def _sca_customer(platform: Platform, customer_id: UUID) -> Customer:
    customer = customer_get(platform=platform, customer_id=customer_id)
    if not sca_applies(customer):
        raise NotInScaRegion(customer)
    return customer
