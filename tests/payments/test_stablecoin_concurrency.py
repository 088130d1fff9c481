"""Burns racing for a stablecoin's last supply on PostgreSQL: each takes its amount under the SUPPLY
account's row lock, so exactly as many are accepted as the supply affords and it never goes negative.
Links racing for one provider account: one links it, the others answer 409."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.errors import Conflict, InsufficientFunds
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import StablecoinOperation, StablecoinProviderAccount
from payments.stablecoins import (
    provider_account_link,
    stablecoin_operation_create,
    stablecoin_operation_list,
    stablecoin_supply,
)
from tests import factories
from tests.payments.stablecoin_support import UNIT, issuer_rows

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 20


def test_twenty_concurrent_burns_against_a_supply_for_seven_accept_exactly_seven():
    platform, coin, wallet, bank = issuer_rows()
    funding = {"type": "ACH_DEBIT", "externalAccountId": bank}
    stablecoin_operation_create(
        operation_type="MINT",
        platform=platform,
        stablecoin_id=coin.pk,
        amount=str(70 * UNIT),
        source=funding,
        destination={"accountId": wallet},
    )
    stablecoin_operation_list(platform=platform, stablecoin_id=coin.pk)  # the mint completes
    assert stablecoin_supply(coin) == 70 * UNIT
    barrier = threading.Barrier(WORKERS)
    destination = {"type": "EXTERNAL_ACCOUNT", "externalAccountId": bank, "rail": "ACH_CREDIT"}

    def burn(_i):
        try:
            barrier.wait(timeout=10)
            stablecoin_operation_create(
                operation_type="BURN",
                platform=platform,
                stablecoin_id=coin.pk,
                amount=str(10 * UNIT),
                source={"type": "PROVIDER_INTERNAL_BALANCE"},
                destination=destination,
            )
            return True
        except InsufficientFunds:
            return False
        finally:
            connection.close()

    with ThreadPoolExecutor(WORKERS) as pool:
        accepted = sum(pool.map(burn, range(WORKERS)))
    assert accepted == 7
    assert StablecoinOperation.objects.filter(operation_type="BURN").count() == 7
    assert stablecoin_supply(coin) == 0
    stablecoin_operation_list(platform=platform, stablecoin_id=coin.pk)  # the burns complete
    assert set(StablecoinOperation.objects.values_list("status", flat=True)) == {"COMPLETED"}
    assert ledger_currency_totals()["ACME"] == 0 and ledger_balance_mismatches() == []


def test_concurrent_links_of_one_provider_account_link_it_once_and_the_rest_are_409():
    platform = factories.PlatformFactory()
    barrier = threading.Barrier(8)

    def link(_i):
        try:
            barrier.wait(timeout=10)
            provider_account_link(
                platform=platform, provider="BRALE", api_client_id="c", api_client_secret="s"
            )
            return "linked"
        except Conflict:
            return "conflict"
        finally:
            connection.close()

    with ThreadPoolExecutor(8) as pool:
        outcomes = sorted(pool.map(link, range(8)))
    assert outcomes == ["conflict"] * 7 + ["linked"]
    assert StablecoinProviderAccount.objects.count() == 1
