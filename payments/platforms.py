"""Platforms, their configuration and their API tokens."""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit
from uuid import UUID

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import DomainNameValidator
from django.db import transaction
from django.db.models import QuerySet

from payments import clock, currencies
from payments.errors import (
    BadRequest,
    FieldError,
    InvalidInput,
    ResourceNotFound,
    first_or_404,
)
from payments.models import ApiToken, Platform
from payments.query_plans import plan_first
from payments.secret_digests import secret_digest, secret_matches
from payments.wire.time import last_instant_rendered_as

ALL_PERMISSIONS = [p.value for p in ApiToken.Permission]

DEFAULT_SUPPORTED_CURRENCIES = [
    {
        "currencyCode": code,
        "minAmount": 1,
        "maxAmount": 100_000_000_000,
        "enabledTransactionTypes": ["OUTGOING", "INCOMING"],
    }
    for code in ("USD", "EUR", "GBP", "MXN", "BRL", "INR", "USDC", "BTC")
]


TOKEN_SECRET = "payments.api-token"  # the secret digests' purpose


@transaction.atomic
def platform_create(*, name: str) -> tuple[Platform, ApiToken, str]:
    """A new sandbox platform with one token holding every permission. The secret is returned once."""
    platform = Platform.objects.create(name=name, supported_currencies=DEFAULT_SUPPORTED_CURRENCIES)
    token, secret = token_create(platform=platform, name="Default token", permissions=ALL_PERMISSIONS)
    return platform, token, secret


CLIENT_ID_BYTES = 16
_CLIENT_ID = re.compile(f"[0-9a-f]{{{2 * CLIENT_ID_BYTES}}}")


def token_create(*, platform: Platform, name: str, permissions: list[str]) -> tuple[ApiToken, str]:
    secret = secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        platform=platform,
        name=name,
        permissions=sorted(set(permissions), key=ALL_PERMISSIONS.index),
        client_id=secrets.token_hex(CLIENT_ID_BYTES),
        secret_digest=secret_digest(TOKEN_SECRET, secret),
    )
    return token, secret


def token_authenticate(*, client_id: str, secret: str) -> ApiToken | None:
    """The token whose client id is exactly `client_id` (the shape token_create issues; nothing is
    trimmed or cut) and whose secret digest matches."""
    token = _token_with_platform(client_id) if _CLIENT_ID.fullmatch(client_id) else None
    matches = secret_matches(TOKEN_SECRET, secret, token.secret_digest if token else None)
    return token if matches else None


def _token_rows(client_id: str):
    return ApiToken.objects.select_related("platform").filter(client_id=client_id)[:1]


def _token_with_platform(client_id: str) -> ApiToken | None:
    # Every API request runs this: a precompiled statement (payments/query_plans.py).
    return plan_first("api-token", _token_rows, client_id)


_TOKEN_LOOKUPS = {
    "name": "name",
    "created_after": "created_at__gte",
    "created_before": "created_at__lte",
    "updated_after": "updated_at__gte",
    "updated_before": "updated_at__lte",
}


def token_list(*, platform: Platform, filters: Mapping[str, Any]) -> QuerySet[ApiToken]:
    """Filters (all optional): name, created_after/before, updated_after/before (inclusive)."""
    bounds = {
        name: last_instant_rendered_as(value) if name.endswith("_before") else value
        for name, value in filters.items()
    }
    return ApiToken.objects.for_platform(platform).filter(
        **{_TOKEN_LOOKUPS[name]: value for name, value in bounds.items()}
    )


def token_get(*, platform: Platform, token_id: UUID) -> ApiToken:
    return first_or_404(ApiToken.objects.for_platform(platform).filter(pk=token_id), "Token")


@transaction.atomic
def token_delete(*, platform: Platform, token_id: UUID) -> None:
    tokens = list(ApiToken.objects.for_platform(platform).select_for_update().order_by("id"))
    token = next((t for t in tokens if t.pk == token_id), None)
    if token is None:
        raise ResourceNotFound("Token")
    if len(tokens) == 1:
        raise BadRequest("A platform must keep at least one API token; create another one first")
    token.delete()


def _sendable_url(url: str) -> SplitResult | None:
    """`url` split, or None when the webhook sender could not use it: a broken IPv6 literal, a port that
    is not one, a host name IDNA cannot encode, or whitespace or control characters in the host part."""
    try:
        parts = urlsplit(url)
        port = parts.port
        (parts.hostname or "").encode("idna")
    except (ValueError, UnicodeError):
        return None
    if port == 0 or any(c.isspace() or not c.isprintable() for c in parts.netloc):
        return None
    return parts


def webhook_endpoint_errors(url: str) -> list[str]:
    """Production endpoints must be https and must not point into private or loopback networks."""
    if url == "":
        return []
    parts = _sendable_url(url)
    problems = []
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        return ["must be an absolute http(s) URL"]
    if settings.PRODUCTION:
        if parts.scheme != "https":
            problems.append("must use https in production mode")
        host = parts.hostname
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        if (
            host == "localhost"
            or host.endswith(".localhost")
            or (address is not None and (address.is_private or address.is_loopback or address.is_link_local))
        ):
            problems.append("must not point at a private or loopback address in production mode")
    return problems


_UMA_DOMAIN_PORT = re.compile(r"(?P<host>[^:]+)(?::(?P<port>[1-9][0-9]{0,4}))?")


def uma_domain_errors(domain: str) -> list[str]:
    """A host name (Django's validator; `localhost` too), optionally with a port for local testing."""
    match = _UMA_DOMAIN_PORT.fullmatch(domain)
    if match is None or (match["port"] and int(match["port"]) > 65535):
        return ["must be a domain name, optionally with a port (pay.example.com, localhost:8000)"]
    if match["host"] == "localhost":
        return []
    try:
        DomainNameValidator()(match["host"])
    except ValidationError:
        return ["must be a domain name, optionally with a port (pay.example.com, localhost:8000)"]
    return []


def _supported_currency_errors(items: list[dict[str, Any]]) -> list[FieldError]:
    problems = []
    seen = set()
    for i, item in enumerate(items):
        code = item["currencyCode"]
        path = f"supportedCurrencies[{i}]"
        if currencies.get(code) is None:
            problems.append(
                FieldError(
                    f"{path}.currencyCode",
                    f"Unknown currency {code!r}",
                    {"enum": list(currencies.CURRENCIES)},
                )
            )
        if code in seen:
            problems.append(FieldError(f"{path}.currencyCode", f"{code} is listed twice", {}))
        seen.add(code)
        low, high = item.get("minAmount"), item.get("maxAmount")
        if low is not None and high is not None and low > high:
            problems.append(FieldError(f"{path}.minAmount", "minAmount must not exceed maxAmount", {}))
    return problems


def _fee_configs_merge(current: list[dict], changes: list[dict]) -> list[dict]:
    """Upsert by (feeType, sourceCurrency); a change with both amounts 0 removes that fee."""
    merged = {(f["feeType"], f["sourceCurrency"]): f for f in current}
    for fee in changes:
        key = (fee["feeType"], fee["sourceCurrency"])
        if fee["variableFeeBps"] == 0 and fee["fixedFee"]["amount"] == 0:
            merged.pop(key, None)
        else:
            merged[key] = {
                "feeType": fee["feeType"],
                "sourceCurrency": fee["sourceCurrency"],
                "variableFeeBps": fee["variableFeeBps"],
                "fixedFee": {"amount": fee["fixedFee"]["amount"], "currency": fee["fixedFee"]["currency"]},
            }
    return list(merged.values())


@transaction.atomic
def config_update(*, platform_id: UUID, changes: dict[str, Any]) -> Platform:
    """Apply a `PATCH /config`: plain fields replace, nested configs merge, fee configs upsert by key."""
    platform = Platform.objects.select_for_update().get(pk=platform_id)
    problems: list[FieldError] = []
    if "webhook_endpoint" in changes:
        for msg in webhook_endpoint_errors(changes["webhook_endpoint"]):
            problems.append(FieldError("webhookEndpoint", f"Webhook endpoint {msg}", {"format": "uri"}))
    if "uma_domain" in changes:
        for msg in uma_domain_errors(changes["uma_domain"]):
            problems.append(FieldError("umaDomain", f"UMA domain {msg}", {"format": "hostname"}))
    if "supported_currencies" in changes:
        problems += _supported_currency_errors(changes["supported_currencies"])
    fee_configs = changes.get("fee_configs", [])
    for i, fee in enumerate(fee_configs):
        if fee["sourceCurrency"] != "USD":
            problems.append(
                FieldError(
                    f"feeConfigs[{i}].sourceCurrency",
                    "Platform fees are supported for USD source currency only",
                    {"enum": ["USD"]},
                )
            )
        elif fee["fixedFee"]["currency"] != fee["sourceCurrency"]:
            problems.append(
                FieldError(
                    f"feeConfigs[{i}].fixedFee.currency",
                    "The fixed fee must be in the source currency",
                    {"enum": [fee["sourceCurrency"]]},
                )
            )
    if problems:
        raise InvalidInput(errors=problems)
    for name in ("uma_domain", "proxy_uma_subdomain", "webhook_endpoint", "supported_currencies"):
        if name in changes:
            setattr(platform, name, changes[name])
    for name in ("embedded_wallet_config", "card_tokenization_2fa_config"):
        if name in changes:
            setattr(platform, name, {**(getattr(platform, name) or {}), **changes[name]})
    if fee_configs:
        platform.fee_configs = _fee_configs_merge(platform.fee_configs, fee_configs)
    platform.updated_at = clock.now()
    platform.save()
    return platform
