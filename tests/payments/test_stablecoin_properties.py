"""Property: whatever mints and burns a platform asks for, in any order and however they end, the
supply in circulation is what completed mints added less what standing burns took, it is never
negative, a refused burn moves nothing, and the ledger stays balanced."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments import clock
from payments.errors import InsufficientFunds, ServiceUnavailable
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import StablecoinOperation
from payments.stablecoins import (
    FUNDING_WINDOW,
    stablecoin_operation_create,
    stablecoin_operation_list,
    stablecoin_supply,
)
from tests.payments.stablecoin_support import UNIT, issuer_rows

pytestmark = pytest.mark.django_db

# (what, whole dollars, cents: 02 fails at the provider, 03 never funded, else completes; whole
# cents ending in 503 find the provider unavailable)
steps = st.lists(
    st.tuples(
        st.sampled_from(["mint", "wire-mint", "burn", "external-burn", "advance"]),
        st.integers(min_value=1, max_value=50),
        st.sampled_from([0, 2, 3, 7]),
    ),
    max_size=20,
)


def _expected(platform) -> int:
    """Completed mints, less burns that neither failed nor expired."""
    ops = StablecoinOperation.objects.filter(platform=platform)
    minted = sum(op.amount for op in ops if op.operation_type == "MINT" and op.status == "COMPLETED")
    burned = sum(
        op.amount for op in ops if op.operation_type == "BURN" and op.status not in ("FAILED", "EXPIRED")
    )
    return minted - burned


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_any_sequence_of_mints_and_burns_keeps_the_supply_and_the_books(db, steps):
    clock.reset()  # each example starts at the real time
    platform, coin, wallet, bank = issuer_rows()
    for what, dollars, cents in steps:
        amount = str((dollars * 100 + cents) * UNIT)
        before = stablecoin_supply(coin)
        count = StablecoinOperation.objects.count()
        try:
            if what == "advance":
                clock.advance(FUNDING_WINDOW / 2)
            elif what.endswith("mint"):
                funding = (
                    {"type": "WIRE"}
                    if what == "wire-mint"
                    else {"type": "ACH_DEBIT", "externalAccountId": bank}
                )
                stablecoin_operation_create(
                    operation_type="MINT",
                    platform=platform,
                    stablecoin_id=coin.pk,
                    amount=amount,
                    source=funding,
                    destination={"accountId": wallet},
                )
            else:
                source = {
                    "type": "EXTERNAL_ACCOUNT" if what == "external-burn" else "PROVIDER_INTERNAL_BALANCE"
                }
                destination = {"type": "EXTERNAL_ACCOUNT", "externalAccountId": bank, "rail": "WIRE"}
                stablecoin_operation_create(
                    operation_type="BURN",
                    platform=platform,
                    stablecoin_id=coin.pk,
                    amount=amount,
                    source=source,
                    destination=destination,
                )
                assert int(amount) <= before
        except (InsufficientFunds, ServiceUnavailable) as refused:
            assert isinstance(refused, ServiceUnavailable) or int(amount) > before
            assert stablecoin_supply(coin) == before and StablecoinOperation.objects.count() == count
        stablecoin_operation_list(platform=platform, stablecoin_id=coin.pk)  # applies the due steps
        assert 0 <= stablecoin_supply(coin) == _expected(platform)
        assert ledger_currency_totals().get("ACME", 0) == 0
        assert ledger_balance_mismatches() == []
