"""Who is in the EU/EEA: the region where SCA and contact verification apply (`payments.sca.region`,
`payments.contact_verification`). Reads only the customer's own row."""

from __future__ import annotations

from payments.models import Customer

# EU member states and the other EEA countries (Iceland, Liechtenstein, Norway), ISO 3166-1 alpha-2.
EEA_COUNTRIES = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO".split()
)


def customer_in_eea(customer: Customer | None) -> bool:
    """Whether the country of the customer's `address` is in the EU/EEA."""
    if customer is None:
        return False
    country = (customer.address or {}).get("country")
    return isinstance(country, str) and country.upper() in EEA_COUNTRIES
