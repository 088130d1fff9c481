"""Stablecoin issuance, the records: a platform's links to a stablecoin provider account and the
stablecoins it registers with one, and a stablecoin's supply in circulation (rules in the package
docstring)."""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from payments import bech32, clock
from payments.errors import BadRequest, Conflict, FieldError, InvalidInput, ResourceNotFound, first_or_404
from payments.ledger import ledger_system_accounts
from payments.models import LedgerAccount, Platform, Stablecoin, StablecoinProviderAccount

Link = StablecoinProviderAccount
Kind = LedgerAccount.Kind
SANDBOX_DECIMALS = 6
_TOKEN_HRPS = frozenset({"btkn", "btknt", "btknrt", "btkns", "btknl"})


def provider_environment() -> str:
    return Link.Environment.SANDBOX if settings.SANDBOX else Link.Environment.PRODUCTION


def _created[R: Stablecoin | StablecoinProviderAccount](row: R, conflict: Conflict) -> R:
    """Insert `row`; a concurrent request that inserted its twin first (a unique constraint) makes
    this one the `conflict`, never a 500."""
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        raise conflict from None
    return row


# --- provider account links ------------------------------------------------------------------------


def _sandbox_provider_account_id(api_client_id: str) -> str:
    """The one provider account the sandbox provider shows for a client id."""
    return "sbx" + hashlib.sha256(api_client_id.encode()).hexdigest()[:24]


@transaction.atomic
def provider_account_link(
    *,
    platform: Platform,
    provider: str,
    api_client_id: str,
    api_client_secret: str,
    provider_account_id: str = "",
) -> StablecoinProviderAccount:
    if settings.SANDBOX and api_client_secret.startswith("invalid"):
        raise BadRequest(
            "The provider refused these API credentials", code="STABLECOIN_PROVIDER_ACCOUNT_INVALID"
        )
    account_id = provider_account_id or _sandbox_provider_account_id(api_client_id)
    environment = provider_environment()
    live = (
        Link.objects.for_platform(platform)
        .select_for_update()
        .filter(
            provider=provider,
            provider_environment=environment,
            provider_account_id=account_id,
            status=Link.Status.ACTIVE,
        )
    )
    if live.exists():
        raise Conflict("This provider account is linked already", providerAccountId=account_id)
    link = Link(
        platform=platform, provider=provider, provider_account_id=account_id, api_client_id=api_client_id
    )
    link.provider_environment, link.last_verified_at = environment, clock.now()
    link.api_client_secret = api_client_secret
    _created(link, Conflict("This provider account is linked already", providerAccountId=account_id))
    return link


def provider_account_get(*, platform: Platform, link_id: UUID) -> StablecoinProviderAccount:
    return first_or_404(Link.objects.for_platform(platform).filter(pk=link_id), "StablecoinProviderAccount")


def provider_account_list(
    *, platform: Platform, filters: dict[str, Any]
) -> QuerySet[StablecoinProviderAccount]:
    return Link.objects.for_platform(platform).filter(**filters)


def link_usable(link: StablecoinProviderAccount) -> StablecoinProviderAccount:
    if link.status == Link.Status.REVOKED:
        raise BadRequest(
            "The stablecoin provider account link has been revoked",
            code="STABLECOIN_PROVIDER_ACCOUNT_REVOKED",
        )
    if link.status == Link.Status.INVALID:
        raise BadRequest(
            "The stablecoin provider account link is not usable", code="STABLECOIN_PROVIDER_ACCOUNT_INVALID"
        )
    return link


def _link_for(platform: Platform, link_id: UUID | None) -> StablecoinProviderAccount:
    if link_id is not None:
        return link_usable(provider_account_get(platform=platform, link_id=link_id))
    active = list(
        Link.objects.for_platform(platform).filter(
            status=Link.Status.ACTIVE, provider_environment=provider_environment()
        )[:2]
    )
    if not active:
        raise ResourceNotFound(
            "StablecoinProviderAccount", "No active stablecoin provider account link; link one first"
        )
    if len(active) > 1:
        raise BadRequest(
            "Several provider account links are active: name one in stablecoinProviderAccountId",
            code="STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
        )
    return active[0]


# --- stablecoins -----------------------------------------------------------------------------------


def _token_identifier_checked(value: str) -> str:
    decoded = bech32.decode(value, max_length=None)
    if decoded is None or decoded[0] not in _TOKEN_HRPS or decoded[2] != bech32.Encoding.BECH32M:
        raise InvalidInput(
            errors=[
                FieldError(
                    "networkTokenIdentifier",
                    "must be a Spark token identifier (btkn1…, bech32m)",
                    {"format": "spark-token"},
                )
            ]
        )
    return value


@transaction.atomic
def stablecoin_register(
    *,
    platform: Platform,
    provider_token_identifier: str,
    network_token_identifier: str,
    network: str,
    link_id: UUID | None,
) -> Stablecoin:
    network_token_identifier = _token_identifier_checked(network_token_identifier)
    link = _link_for(platform, link_id)
    symbol = provider_token_identifier.upper()
    if Stablecoin.objects.for_platform(platform).filter(symbol=symbol).exists():
        raise Conflict(f"A stablecoin with symbol {symbol} is registered already", symbol=symbol)
    coin = Stablecoin(
        platform=platform,
        provider_account=link,
        provider=link.provider,
        provider_environment=link.provider_environment,
        provider_token_identifier=provider_token_identifier,
        network=network,
        network_token_identifier=network_token_identifier,
        name=f"{symbol} Dollar",
        symbol=symbol,
        base_currency="USD",
        decimals=SANDBOX_DECIMALS,
        issuance_status=Stablecoin.IssuanceStatus.PROVISIONED,
        service_operations_status=Stablecoin.OperationsStatus.NOT_ENABLED,
    )
    return _created(coin, Conflict(f"A stablecoin with symbol {symbol} is registered already", symbol=symbol))


def stablecoin_get(*, platform: Platform, stablecoin_id: UUID) -> Stablecoin:
    rows = (
        Stablecoin.objects.for_platform(platform).select_related("provider_account").filter(pk=stablecoin_id)
    )
    return first_or_404(rows, "Stablecoin")


def stablecoin_list(*, platform: Platform, filters: dict[str, Any]) -> QuerySet[Stablecoin]:
    return Stablecoin.objects.for_platform(platform).select_related("provider_account").filter(**filters)


def supply_accounts(coin: Stablecoin) -> dict[str, LedgerAccount]:
    return ledger_system_accounts(
        platform_id=coin.platform_id, currency=coin.symbol, kinds=[Kind.SUPPLY, Kind.ISSUANCE]
    )


def stablecoin_supply(coin: Stablecoin) -> int:
    """What is in circulation and not being burned (its SUPPLY account's balance row)."""
    return (
        LedgerAccount.objects.filter(platform_id=coin.platform_id, kind=Kind.SUPPLY, currency=coin.symbol)
        .values_list("balance", flat=True)
        .first()
        or 0
    )
