"""`counterpartyInformation`: what the other side of a UMA payment tells about its customer, limited
to the fields the platform asks for.

A platform asks per currency, in `supportedCurrencies[].requiredCounterpartyFields` of its
configuration (`PATCH /config`): the currency its own side of the payment is in, so a quote's
sending currency and an incoming payment's receiving currency. Without a request there is no
`counterpartyInformation`. The values come from the counterparty: the rail's answer for another
VASP's customer (`Rail.uma_counterparty`), or, for the UMA address of one of the platform's own
customers (a book transfer), that customer's record. A field the counterparty does not know is left
out, `mandatory` or not.
"""

from __future__ import annotations

from typing import Any, Final

from payments.models import Customer, Platform
from payments.rails import rail_adapter

# The reference's CustomerInfoFieldName: the fields a platform may ask about a counterparty.
FIELD_NAMES: Final = (
    "FULL_NAME",
    "BIRTH_DATE",
    "NATIONALITY",
    "PHONE_NUMBER",
    "EMAIL",
    "POSTAL_ADDRESS",
    "TAX_ID",
    "REGISTRATION_NUMBER",
    "USER_TYPE",
    "COUNTRY_OF_RESIDENCE",
    "ACCOUNT_IDENTIFIER",
    "FI_LEGAL_ENTITY_NAME",
    "FI_ADDRESS",
    "PURPOSE_OF_PAYMENT",
    "ULTIMATE_INSTITUTION_COUNTRY",
    "IDENTIFIER",
    "BUSINESS_TYPE",
    "COMPANY_LEGAL_NAME",
    "ID_TYPE",
    "ID_NUMBER",
)


def requested_fields(platform: Platform, currency: str) -> list[str]:
    """The counterparty fields the platform asks for in `currency`, in its order."""
    for entry in platform.supported_currencies or []:
        if entry.get("currencyCode") == currency:
            return [f["name"] for f in entry.get("requiredCounterpartyFields") or [] if f.get("name")]
    return []


def _postal_address(address: dict[str, Any] | None) -> str:
    parts = (address or {}).get
    return ", ".join(
        p for p in (parts(k) for k in ("line1", "line2", "city", "state", "postalCode", "country")) if p
    )


def _customer_info(customer: Customer) -> dict[str, Any]:
    """What the service knows of its own customer, by field name."""
    address = customer.address or {}
    info: dict[str, Any] = {
        "FULL_NAME": customer.display_name,
        "EMAIL": customer.email,
        "PHONE_NUMBER": customer.phone_number,
        "POSTAL_ADDRESS": _postal_address(address),
        "COUNTRY_OF_RESIDENCE": address.get("country", ""),
        "USER_TYPE": customer.customer_type,
        "ACCOUNT_IDENTIFIER": customer.uma_address,
    }
    if customer.is_business:
        business = customer.business_info or {}
        info.update(
            COMPANY_LEGAL_NAME=business.get("legalName", ""),
            REGISTRATION_NUMBER=business.get("registrationNumber", ""),
            BUSINESS_TYPE=business.get("businessType", ""),
        )
    else:
        info.update(
            BIRTH_DATE=customer.birth_date.isoformat() if customer.birth_date else "",
            NATIONALITY=customer.nationality,
        )
    return info


def counterparty_information(
    *, platform: Platform, currency: str, uma_address: str, customer: Customer | None = None
) -> dict[str, Any] | None:
    """The platform's requested fields about the counterparty at `uma_address` (`customer`: it is one
    of the platform's own customers), or None when it requests none or none is known."""
    fields = requested_fields(platform, currency)
    if not fields:
        return None
    known = _customer_info(customer) if customer is not None else rail_adapter().uma_counterparty(uma_address)
    found = {name: known[name] for name in fields if known.get(name) not in (None, "")}
    return found or None
