"""One factory per model. Records with secrets come with their secret, since it is shown only once."""

from __future__ import annotations

import datetime as dt

import factory

from payments.models import ApiToken, BeneficialOwner, Customer, InternalAccount, Platform
from payments.platforms import ALL_PERMISSIONS, token_create


class PlatformFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Platform

    name = factory.Sequence(lambda n: f"Platform {n}")
    supported_currencies = factory.LazyFunction(
        lambda: [{"currencyCode": "USD", "minAmount": 1, "maxAmount": 10**11}]
    )


def api_token(
    *, platform: Platform | None = None, permissions=None, name="Test token"
) -> tuple[ApiToken, str]:
    return token_create(
        platform=platform or PlatformFactory(), name=name, permissions=permissions or ALL_PERMISSIONS
    )


def platform_with_token(*, name: str | None = None, permissions=None) -> tuple[Platform, ApiToken, str]:
    platform = PlatformFactory(**({"name": name} if name else {}))
    token, secret = api_token(platform=platform, permissions=permissions)
    return platform, token, secret


class CustomerFactory(factory.django.DjangoModelFactory):
    """A customer row as is (no sandbox rules, no accounts); pass `status=` or use the helpers below."""

    class Meta:
        model = Customer

    platform = factory.SubFactory(PlatformFactory)
    customer_type = Customer.Type.INDIVIDUAL
    platform_customer_id = factory.Sequence(lambda n: f"cust-{n}")
    uma_address = factory.Sequence(lambda n: f"$user{n}@sandbox.uma.example")
    email = factory.Sequence(lambda n: f"user{n}@example.com")
    full_name = "Jane Doe"
    birth_date = dt.date(1990, 1, 15)
    nationality = "GB"
    address = factory.LazyFunction(
        lambda: {"line1": "1 High Street", "postalCode": "SW1A 1AA", "country": "GB"}
    )


class BeneficialOwnerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BeneficialOwner

    customer = factory.SubFactory(
        CustomerFactory,
        customer_type=Customer.Type.BUSINESS,
        full_name="",
        business_info={"legalName": "Acme Ltd", "country": "US"},
    )
    platform = factory.LazyAttribute(lambda o: o.customer.platform)
    roles = factory.LazyFunction(lambda: ["UBO"])
    ownership_percentage = 50
    personal_info = factory.LazyFunction(
        lambda: {
            "firstName": "Ada",
            "lastName": "Owner",
            "birthDate": "1980-02-03",
            "nationality": "US",
            "address": {"line1": "1 Main St", "postalCode": "94105", "country": "US"},
            "idType": "SSN",
        }
    )


class InternalAccountFactory(factory.django.DjangoModelFactory):
    """A customer's USD account by default; `customer=None` makes a platform account."""

    class Meta:
        model = InternalAccount

    customer = factory.SubFactory(CustomerFactory, status=Customer.Status.APPROVED)
    platform = factory.LazyAttribute(lambda o: o.customer.platform if o.customer else PlatformFactory())
    type = InternalAccount.Type.INTERNAL_FIAT
    currency = "USD"
    status = InternalAccount.Status.ACTIVE


def approved_customer_with_wallet(
    *, platform: Platform | None = None, **fields
) -> tuple[Customer, InternalAccount]:
    """An APPROVED individual customer provisioned the way approval does it (holding accounts and the
    embedded-wallet Global Account), and that wallet."""
    from payments.customers import customer_status_transition

    customer = CustomerFactory(platform=platform or PlatformFactory(), **fields)
    customer_status_transition(customer, Customer.Status.APPROVED, actor="test", reason="test fixture")
    wallet = customer.internal_accounts.get(type=InternalAccount.Type.EMBEDDED_WALLET)
    return customer, wallet
