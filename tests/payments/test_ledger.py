"""The ledger: balanced journals, balances derived from postings, never negative, each movement once."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.accounts import account_balance
from payments.errors import InsufficientFunds
from payments.ledger import (
    Leg,
    UnbalancedJournal,
    ledger_balance_mismatches,
    ledger_currency_totals,
    ledger_internal_account,
    ledger_post,
    ledger_posting_sum,
    ledger_reverse,
    ledger_system_account,
)
from payments.models import LedgerAccount, LedgerJournal, LedgerPosting, Transaction
from payments.quotes import QuoteRequest, quote_create, quote_execute
from payments.transactions import transaction_advance, transaction_fail, transaction_lock
from tests import factories
from tests.payments.money_support import (
    consenting_customer,
    fund,
    funded_account,
    holding_account,
    usd_external,
)

pytestmark = pytest.mark.django_db

Kind = LedgerAccount.Kind


def _world(account):
    return ledger_system_account(platform_id=account.platform_id, kind=Kind.WORLD, currency=account.currency)


def test_a_journal_moves_money_and_the_balance_row_equals_the_sum_of_postings():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    world = _world(account)
    ledger_post(
        platform_id=account.platform_id, kind="FUNDING", key="k1", legs=[Leg(world, -500), Leg(ledger, 500)]
    )
    ledger_post(
        platform_id=account.platform_id, kind="FUNDING", key="k2", legs=[Leg(world, -250), Leg(ledger, 250)]
    )
    ledger.refresh_from_db()
    assert account_balance(account) == ledger.balance == ledger_posting_sum(ledger) == 750
    assert ledger_posting_sum(world) == -750
    assert ledger_currency_totals() == {"USD": 0}
    assert ledger_balance_mismatches() == []


def test_legs_must_balance_per_currency():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    eur_world = ledger_system_account(platform_id=account.platform_id, kind=Kind.WORLD, currency="EUR")
    with pytest.raises(UnbalancedJournal), transaction.atomic():
        ledger_post(
            platform_id=account.platform_id,
            kind="FUNDING",
            key="k",
            legs=[Leg(_world(account), -5), Leg(ledger, 4)],
        )
    with pytest.raises(UnbalancedJournal), transaction.atomic():  # 5 USD in is not 5 EUR out
        ledger_post(
            platform_id=account.platform_id,
            kind="FUNDING",
            key="k",
            legs=[Leg(eur_world, -5), Leg(ledger, 5)],
        )
    assert not LedgerJournal.objects.exists()


def test_legs_on_one_account_are_added_up_and_zero_legs_dropped():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    world = _world(account)
    journal = ledger_post(
        platform_id=account.platform_id,
        kind="FUNDING",
        key="k",
        legs=[Leg(world, -7), Leg(ledger, 3), Leg(ledger, 4), Leg(world, 0)],
    )
    assert sorted(journal.postings.values_list("amount", flat=True)) == [-7, 7]


def test_a_debit_below_zero_raises_and_records_nothing():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    world = _world(account)
    ledger_post(
        platform_id=account.platform_id, kind="FUNDING", key="in", legs=[Leg(world, -100), Leg(ledger, 100)]
    )
    with pytest.raises(InsufficientFunds) as raised, transaction.atomic():
        ledger_post(
            platform_id=account.platform_id,
            kind="DEBIT",
            key="out",
            legs=[Leg(world, 101), Leg(ledger, -101)],
        )
    assert raised.value.status == 400 and raised.value.code == "INSUFFICIENT_FUNDS"
    assert raised.value.details["available"] == 100 and raised.value.details["required"] == 101
    assert not LedgerJournal.objects.filter(key="out").exists()
    assert account_balance(account) == 100
    ledger_post(
        platform_id=account.platform_id, kind="DEBIT", key="out", legs=[Leg(world, 100), Leg(ledger, -100)]
    )
    assert account_balance(account) == 0


def test_a_movement_is_posted_once():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    legs = [Leg(_world(account), -1), Leg(ledger, 1)]
    ledger_post(platform_id=account.platform_id, kind="FUNDING", key="once", legs=legs)
    with pytest.raises(IntegrityError), transaction.atomic():
        ledger_post(platform_id=account.platform_id, kind="FUNDING", key="once", legs=legs)
    assert account_balance(account) == 1


def test_the_database_refuses_a_negative_internal_balance():
    ledger = ledger_internal_account(factories.InternalAccountFactory())
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerAccount.objects.filter(pk=ledger.pk).update(balance=-1)


def test_a_supply_account_is_kept_like_an_internal_one_and_never_goes_negative():
    platform = factories.PlatformFactory()
    supply = ledger_system_account(platform_id=platform.pk, kind=Kind.SUPPLY, currency="ACME")
    issuance = ledger_system_account(platform_id=platform.pk, kind=Kind.ISSUANCE, currency="ACME")
    ledger_post(
        platform_id=platform.pk, kind="STABLECOIN_MINT", key="m", legs=[Leg(issuance, -5), Leg(supply, 5)]
    )
    with pytest.raises(InsufficientFunds) as refused, transaction.atomic():
        ledger_post(
            platform_id=platform.pk, kind="STABLECOIN_BURN", key="b", legs=[Leg(supply, -6), Leg(issuance, 6)]
        )
    assert refused.value.details == {"available": 5, "required": 6, "currency": "ACME"}
    supply.refresh_from_db()
    assert supply.balance == ledger_posting_sum(supply) == 5 and ledger_posting_sum(issuance) == -5
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerAccount.objects.filter(pk=supply.pk).update(balance=-1)


def test_system_accounts_may_go_negative_and_are_one_per_platform_kind_and_currency():
    account = factories.InternalAccountFactory()
    world = _world(account)
    assert _world(account).pk == world.pk
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerAccount.objects.create(platform_id=account.platform_id, kind=Kind.WORLD, currency="USD")


def test_a_reversal_is_the_exact_opposite():
    account = factories.InternalAccountFactory()
    ledger = ledger_internal_account(account)
    ledger_post(
        platform_id=account.platform_id,
        kind="FUNDING",
        key="f",
        legs=[Leg(_world(account), -40), Leg(ledger, 40)],
    )
    assert ledger_reverse(journal_key="f", key="f-back", kind="REFUND") is not None
    assert account_balance(account) == 0
    assert ledger_reverse(journal_key="missing", key="x", kind="REFUND") is None


def test_funding_through_the_api_credits_the_account(api):
    account = factories.InternalAccountFactory(customer__platform=api.platform)
    response = api.post(f"/sandbox/internal-accounts/{account.public_id}/fund", {"amount": 12550})
    assert response.status_code == 200, response.content
    assert response.json()["balance"]["amount"] == 12550
    assert api.get("/customers/internal-accounts").json()["data"][0]["balance"]["amount"] == 12550


def test_a_transfer_posts_debit_delivery_and_fees_that_add_up(api):
    api.platform.fee_configs = [
        {
            "feeType": "CROSS_CURRENCY_TRANSACTION",
            "sourceCurrency": "USD",
            "variableFeeBps": 100,
            "fixedFee": {"amount": 30, "currency": "USD"},
        }
    ]
    api.platform.save()
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 1_000_000)
    euros = holding_account(customer, "EUR")
    quote = quote_create(
        platform=api.platform,
        request=QuoteRequest(
            source={"sourceType": "ACCOUNT", "accountId": source.public_id},
            destination={"destinationType": "ACCOUNT", "accountId": euros.public_id},
            locked_side="SENDING",
            locked_amount=100_000,
        ),
    )
    quote_execute(platform=api.platform, quote_id=quote.pk)
    transaction_advance(transaction_id=quote.transaction.pk)
    assert account_balance(source) == 900_000
    assert account_balance(euros) == quote.total_receiving_amount
    fees = ledger_system_account(platform_id=api.platform.pk, kind=Kind.FEES, currency="USD")
    platform_fees = ledger_system_account(
        platform_id=api.platform.pk, kind=Kind.PLATFORM_FEES, currency="USD"
    )
    assert ledger_posting_sum(platform_fees) == quote.platform_fees_included > 0
    assert ledger_posting_sum(fees) + ledger_posting_sum(platform_fees) <= quote.fees_included
    settlement = ledger_system_account(platform_id=api.platform.pk, kind=Kind.SETTLEMENT, currency="USD")
    assert ledger_posting_sum(settlement) == 0  # delivered
    assert set(LedgerJournal.objects.filter(transaction__quote=quote).values_list("kind", flat=True)) == {
        "DEBIT",
        "DELIVERY",
    }


# --- property: random sequences of fund / execute / settle / refund --------------------------------

_operations = st.lists(
    st.tuples(
        st.sampled_from(["fund", "send", "settle", "refund"]),
        st.integers(min_value=0, max_value=2),  # which account / transaction
        st.integers(min_value=1, max_value=50_000),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=_operations)
def test_ledger_invariants_hold_under_random_money_movement(db, operations):
    with transaction.atomic():
        platform = factories.PlatformFactory()
        customers = [consenting_customer(platform)[0] for _ in range(3)]
        accounts = [holding_account(c) for c in customers]
        payee = usd_external(platform, customers[0], account_number="5550001234")
        started: list[Transaction] = []
        for operation, which, amount in operations:
            account = accounts[which]
            if operation == "fund":
                fund(account, amount)
            elif operation == "send":
                quote = quote_create(
                    platform=platform,
                    request=QuoteRequest(
                        source={"sourceType": "ACCOUNT", "accountId": account.public_id},
                        destination={"destinationType": "ACCOUNT", "accountId": payee.public_id},
                        locked_side="SENDING",
                        locked_amount=max(amount, 100),
                    ),
                )
                try:
                    with transaction.atomic():
                        quote_execute(platform=platform, quote_id=quote.pk)
                    started.append(quote.transaction)
                except InsufficientFunds:
                    pass
            elif started:
                txn = started[which % len(started)]
                if operation == "settle":
                    transaction_advance(transaction_id=txn.pk)
                else:
                    with transaction.atomic():
                        quote, locked = transaction_lock(txn.pk)
                        if locked.status == Transaction.Status.PROCESSING:
                            transaction_fail(quote, locked, failure_reason="QUOTE_EXECUTION_FAILED")
            for account_ in accounts:
                assert account_balance(account_) >= 0
            assert all(total == 0 for total in ledger_currency_totals().values())
            assert ledger_balance_mismatches() == []
        refunded = [
            t for t in started if Transaction.objects.get(pk=t.pk).status == Transaction.Status.FAILED
        ]
        for txn in refunded:  # every refund gave back exactly what the debit took
            debit = LedgerPosting.objects.get(journal__key=f"txn:{txn.pk}:debit", account__kind=Kind.INTERNAL)
            refund = LedgerPosting.objects.get(
                journal__key=f"txn:{txn.pk}:refund", account__kind=Kind.INTERNAL
            )
            assert refund.amount == -debit.amount
        transaction.set_rollback(True)
