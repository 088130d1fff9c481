"""Test helpers for money movement: consenting customers, funded accounts, external accounts, quotes."""

from __future__ import annotations

import json
import uuid
from typing import Any

import jsonschema

from payments import clock
from payments.external_accounts import external_account_create
from payments.models import Customer, ExternalAccount, InternalAccount, Platform
from payments.quotes import QuoteRequest
from payments.sandbox import sandbox_fund
from tests import factories
from tests.reference import reference_document

_SCHEMAS: dict[str, Any] = {}


def reference_validator(schema: str) -> jsonschema.Draft202012Validator:
    """A validator for one schema of the reference. Its PaymentAccountType enum lists 29 of the 49
    payment account types its own `oneOf` uses (a defect of the reference); the missing ones are added."""
    if not _SCHEMAS:
        doc = reference_document()
        components = doc["components"]
        variants = components["schemas"]["PaymentInstructions"]["properties"]["accountOrWalletInfo"]["oneOf"]
        types = set(components["schemas"]["PaymentAccountType"]["enum"])
        for ref in variants:
            variant = components["schemas"][ref["$ref"].rsplit("/", 1)[1]]
            types.update(_account_types(variant, components["schemas"]))
        components["schemas"]["PaymentAccountType"]["enum"] = sorted(types)
        _SCHEMAS["components"] = components
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/components/schemas/{schema}", "components": _SCHEMAS["components"]}
    )


def _account_types(schema: Any, schemas: dict) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            return set() if name == "BasePaymentAccountInfo" else _account_types(schemas[name], schemas)
        account_type = schema.get("properties", {}).get("accountType", {})
        found.update(account_type.get("enum", []))
        for key in ("allOf", "oneOf", "anyOf"):
            for item in schema.get(key, []):
                found |= _account_types(item, schemas)
    return found


def key(name: str) -> str:
    """An Idempotency-Key (a UUID) standing for `name`: the same name, the same key."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, name))


def on_the_wire(data: Any) -> Any:
    """As a client parses the response (Decimals become JSON numbers)."""
    return json.loads(json.dumps(data, default=float))


def consenting_customer(platform: Platform, **fields) -> tuple[Customer, InternalAccount]:
    """An APPROVED individual with accepted End User Terms; returns it and its embedded wallet."""
    customer, wallet = factories.approved_customer_with_wallet(platform=platform, **fields)
    customer.terms_accepted_at = clock.now()
    customer.terms_ip_address = "203.0.113.7"
    customer.terms_version = "2025-10-01"
    customer.terms_acceptance_method = Customer.AcceptanceMethod.CHECKBOX
    customer.save()
    return customer, wallet


def holding_account(customer: Customer, currency: str = "USD") -> InternalAccount:
    account, _ = InternalAccount.objects.get_or_create(
        platform=customer.platform,
        customer=customer,
        type=InternalAccount.Type.INTERNAL_CRYPTO
        if currency in ("USDC", "USDT", "BTC")
        else InternalAccount.Type.INTERNAL_FIAT,
        currency=currency,
    )
    return account


def funded_account(customer: Customer, amount: int, currency: str = "USD") -> InternalAccount:
    account = holding_account(customer, currency)
    sandbox_fund(platform=customer.platform, account_id=account.pk, amount=amount)
    return account


def fund(account: InternalAccount, amount: int) -> None:
    sandbox_fund(platform=account.platform, account_id=account.pk, amount=amount)


def usd_external(
    platform: Platform, customer: Customer | None, account_number: str = "9876543210"
) -> ExternalAccount:
    """A US bank account (ACH, wire, RTP, FedNow); the last 3 digits pick the sandbox outcome."""
    existing = ExternalAccount.objects.filter(
        platform=platform,
        customer=customer,
        deleted_at__isnull=True,
        account_info__accountNumber=account_number,
    ).first()
    if existing is not None:
        return existing
    return external_account_create(
        platform=platform,
        currency="USD",
        customer_id=customer.pk if customer else None,
        account_info={
            "accountType": "USD_ACCOUNT",
            "accountNumber": account_number,
            "routingNumber": "021000021",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        },
    )


def iban(country: str, bban: str) -> str:
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def eur_external(platform: Platform, customer: Customer | None, tail: str = "0532013000") -> ExternalAccount:
    return external_account_create(
        platform=platform,
        currency="EUR",
        customer_id=customer.pk if customer else None,
        account_info={
            "accountType": "EUR_ACCOUNT",
            "iban": iban("DE", "37040044" + tail),
            "beneficiary": {
                "beneficiaryType": "INDIVIDUAL",
                "fullName": "Hans Muster",
                "countryOfResidence": "DE",
            },
        },
    )


def quote_body(source: str, destination: str, amount: int, **extra) -> dict[str, Any]:
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": amount,
    }
    body.update(extra)
    return body


def account_quote_request(source: InternalAccount, payee, amount: int) -> QuoteRequest:
    """A domain-level quote request: `amount` (sending side locked) from an internal account to `payee`."""
    return QuoteRequest(
        source={"sourceType": "ACCOUNT", "accountId": source.public_id},
        destination={"destinationType": "ACCOUNT", "accountId": payee.public_id},
        locked_side="SENDING",
        locked_amount=amount,
    )
