"""One factory per model. Records with secrets come with their secret, since it is shown only once."""

from __future__ import annotations

import factory

from payments.models import ApiToken, Platform
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
