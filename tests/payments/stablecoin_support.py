"""Helpers for the stablecoin tests: a linked provider account, a registered stablecoin, the
accounts mints and burns name, and the supply in the ledger."""

from __future__ import annotations

import uuid

from payments import bech32
from payments.external_accounts import external_account_create
from payments.models import ExternalAccount, LedgerAccount, Platform
from payments.stablecoins import provider_account_link, stablecoin_register
from tests import factories
from tests.payments.money_support import usd_external

TOKEN = bech32.encode("btkn", bech32.to_five_bit(bytes(range(32))), bech32.Encoding.BECH32M)
SPARK = bech32.encode(
    "spark", bech32.to_five_bit(bytes([0x0A, 0x21, 0x02]) + bytes(range(1, 33))), bech32.Encoding.BECH32M
)
UNIT = 10_000  # one cent of a 6-decimal token


def keyed(key: str | None = None) -> dict[str, str]:
    return {"HTTP_IDEMPOTENCY_KEY": key or str(uuid.uuid4())}


def link(api, **body):
    return api.post(
        "/stablecoin-provider-accounts",
        {"provider": "BRALE", "apiClientId": "client-1", "apiClientSecret": "secret-1", **body},
        **keyed(),
    )


def register(api, symbol: str = "ACME", **body):
    return api.post(
        "/stablecoins",
        {"providerTokenIdentifier": symbol, "networkTokenIdentifier": TOKEN, "network": "SPARK", **body},
        **keyed(),
    )


def spark_wallet(platform: Platform) -> ExternalAccount:
    account = external_account_create(
        platform=platform,
        currency="BTC",
        customer_id=None,
        account_info={"accountType": "SPARK_WALLET", "address": SPARK},
    )
    account.status = ExternalAccount.Status.ACTIVE
    account.save(update_fields=["status"])
    return account


def issuer(api, symbol: str = "ACME") -> dict:
    """A linked provider account, a registered stablecoin and the issuer's accounts: its id ("coin"),
    the Spark wallet mints go to ("wallet") and the bank account that funds and receives ("bank")."""
    assert link(api).status_code == 201
    coin = register(api, symbol)
    assert coin.status_code == 201, coin.json()
    return {
        "coin": coin.json()["id"],
        "wallet": spark_wallet(api.platform).public_id,
        "bank": usd_external(api.platform, None).public_id,
    }


def mint_body(setup: dict, amount: int, funding: str = "ACH_DEBIT") -> dict:
    source = {"type": funding} if funding == "WIRE" else {"type": funding, "externalAccountId": setup["bank"]}
    return {"amount": str(amount), "fundingSource": source, "destination": {"accountId": setup["wallet"]}}


def burn_body(
    setup: dict, amount: int, source: str = "PROVIDER_INTERNAL_BALANCE", rail: str = "ACH_CREDIT"
) -> dict:
    return {
        "amount": str(amount),
        "source": {"type": source},
        "destination": {"type": "EXTERNAL_ACCOUNT", "externalAccountId": setup["bank"], "rail": rail},
    }


def supply(platform: Platform, symbol: str = "ACME") -> int:
    row = LedgerAccount.objects.filter(platform=platform, kind="SUPPLY", currency=symbol).first()
    return row.balance if row else 0


def issuer_rows():
    """The same through the domain functions: (platform, stablecoin, wallet id, bank account id)."""
    platform = factories.PlatformFactory()
    provider_account_link(platform=platform, provider="BRALE", api_client_id="c", api_client_secret="s")
    coin = stablecoin_register(
        platform=platform,
        provider_token_identifier="ACME",
        network_token_identifier=TOKEN,
        network="SPARK",
        link_id=None,
    )
    return platform, coin, spark_wallet(platform).public_id, usd_external(platform, None).public_id
