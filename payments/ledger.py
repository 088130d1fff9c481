"""The ledger's rules: post a balanced journal, reverse one, read balances.

- Every movement is one `LedgerJournal` whose postings sum to zero per currency; a journal's `key`
  is unique, so a movement is recorded once (a second post of the same key is refused by the
  database, never recorded twice).
- Internal accounts never go below zero: `ledger_post` updates their balance rows in the same
  transaction as the postings with one conditional UPDATE each (`balance + amount >= 0`), in
  primary-key order so two journals touching the same accounts cannot deadlock. The UPDATE takes
  the row lock and PostgreSQL re-checks the condition on the locked row, so the check is made under
  the lock; no row matched means the funds were not there. A CHECK constraint backs the rule up.
- Every change of an internal account's balance records `INTERNAL_ACCOUNT.BALANCE_UPDATED` here, in
  the same transaction (once per account per transaction; see `payments.events`).
- System accounts (WORLD, SETTLEMENT, FX, FEES, PLATFORM_FEES, one each per platform and currency)
  may go negative (WORLD is negative by what came in from outside) and are not locked, so they are
  no hot row; their balance is the sum of their postings.
- A stablecoin's SUPPLY account (one per platform and token symbol) is kept like an internal
  account: a balance row updated under the same conditional UPDATE, never below zero, so a burn
  cannot take more than is in circulation (`payments.stablecoins`). Its ISSUANCE account is the other
  side and is not kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from django.db import connections, router, transaction
from django.db.models import Sum

from payments import ids
from payments.errors import InsufficientFunds
from payments.events import internal_account_balances_changed
from payments.models import InternalAccount, LedgerAccount, LedgerJournal, LedgerPosting, Transaction
from payments.query_plans import plan_insert

Kind = LedgerAccount.Kind
KEPT_KINDS = frozenset({Kind.INTERNAL, Kind.SUPPLY})  # accounts with a balance row, never negative


@dataclass(frozen=True, slots=True)
class Leg:
    """One side of a movement: `amount` (signed, smallest unit) on `account`, in the account's currency."""

    account: LedgerAccount
    amount: int


class UnbalancedJournal(ValueError):
    """A programming error: the legs of a journal do not sum to zero in some currency."""


# --- accounts -------------------------------------------------------------------------------------


# Which ledger account belongs to which owner never changes once created, so the ids are kept per
# process (bounded): money movement then needs no query to find its accounts. Keys hold time-ordered
# UUIDs of platforms and internal accounts, which are never reused, and an entry is kept only once
# its row is committed, so an entry cannot go stale.
_IDS: dict[tuple, tuple[int, UUID, str, str, UUID | None]] = {}
_IDS_MAX = 100_000


def _remember(account: LedgerAccount, key: tuple) -> LedgerAccount:
    """Keep the account's id once the transaction that found or created it commits (a row that a
    rollback takes away must not be remembered)."""
    entry = (account.pk, account.platform_id, account.kind, account.currency, account.internal_account_id)

    def keep() -> None:
        if len(_IDS) >= _IDS_MAX:
            _IDS.clear()
        _IDS[key] = entry

    transaction.on_commit(keep)
    return account


def _remembered(key: tuple) -> LedgerAccount | None:
    found = _IDS.get(key)
    if found is None:
        return None
    pk, platform_id, kind, currency, internal_account_id = found
    return LedgerAccount(
        pk=pk, platform_id=platform_id, kind=kind, currency=currency, internal_account_id=internal_account_id
    )


def ledger_internal_account(internal_account: InternalAccount) -> LedgerAccount:
    """The ledger account of an internal account (created on first use). Its `balance` is not read
    here: use `ledger_balance`."""
    key = ("internal", internal_account.pk)
    account = _remembered(key)
    if account is None:
        account, _ = LedgerAccount.objects.get_or_create(
            internal_account=internal_account,
            defaults={
                "platform_id": internal_account.platform_id,
                "kind": Kind.INTERNAL,
                "currency": internal_account.currency,
            },
        )
        _remember(account, key)
    return account


def ledger_internal_account_by_id(internal_account_id: UUID) -> LedgerAccount:
    """The same, by the internal account's id."""
    account = _remembered(("internal", internal_account_id))
    if account is None:
        account = LedgerAccount.objects.filter(internal_account_id=internal_account_id).first()
        if account is None:
            return ledger_internal_account(InternalAccount.objects.get(pk=internal_account_id))
        _remember(account, ("internal", internal_account_id))
    return account


def ledger_system_accounts(
    *, platform_id: UUID, currency: str, kinds: Iterable[str]
) -> dict[str, LedgerAccount]:
    """The platform's system accounts of `kinds` in `currency`, by kind (created on first use)."""
    wanted = set(kinds)
    found = {}
    for kind in wanted:
        account = _remembered(("system", platform_id, kind, currency))
        if account is not None:
            found[kind] = account
    missing = wanted - set(found)
    if missing:
        for account in LedgerAccount.objects.filter(
            platform_id=platform_id, currency=currency, kind__in=missing
        ):
            found[account.kind] = _remember(account, ("system", platform_id, account.kind, currency))
        for kind in sorted(wanted - set(found)):
            account, _ = LedgerAccount.objects.get_or_create(
                platform_id=platform_id, kind=kind, currency=currency
            )
            found[kind] = _remember(account, ("system", platform_id, kind, currency))
    return found


def ledger_system_account(*, platform_id: UUID, kind: str, currency: str) -> LedgerAccount:
    return ledger_system_accounts(platform_id=platform_id, currency=currency, kinds=[kind])[kind]


# --- posting --------------------------------------------------------------------------------------


def _merged(legs: Iterable[Leg]) -> list[Leg]:
    """Legs on the same account added up; zero legs dropped; checked to balance per currency."""
    by_account: dict[int, Leg] = {}
    totals: dict[str, int] = defaultdict(int)
    for leg in legs:
        if isinstance(leg.amount, bool) or not isinstance(leg.amount, int):
            raise TypeError(f"a posting amount is an integer of smallest units, not {leg.amount!r}")
        totals[leg.account.currency] += leg.amount
        previous = by_account.get(leg.account.pk)
        by_account[leg.account.pk] = Leg(leg.account, leg.amount + (previous.amount if previous else 0))
    unbalanced = {currency: total for currency, total in totals.items() if total}
    if unbalanced:
        raise UnbalancedJournal(f"journal legs do not sum to zero: {unbalanced}")
    return [leg for leg in by_account.values() if leg.amount]


_BALANCE_ADD = (
    "UPDATE payments_ledgeraccount SET balance = balance + %s WHERE id = %s AND balance - held >= %s "
    "RETURNING balance, held"
)
# By the internal account: a hold needs no lookup of its ledger row first (an account without one has
# nothing to hold).
_HELD_ADD = (
    "UPDATE payments_ledgeraccount SET held = held + %s WHERE internal_account_id = %s "
    "AND balance - held >= %s AND held + %s >= 0 RETURNING balance, held"
)


def _row_add(statement: str, params: list[object]) -> tuple[int, int] | None:
    with connections[router.db_for_write(LedgerAccount)].cursor() as cursor:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


def _balance_add(pk: int, amount: int) -> tuple[int, int] | None:
    """Add `amount` to an internal account's balance row unless that takes its available balance
    (balance - held) below zero: the one conditional UPDATE (it takes the row lock). The new
    (balance, held), or None when the funds are not there."""
    return _row_add(_BALANCE_ADD, [amount, pk, -amount])


def _insufficient(pk: int, required: int) -> InsufficientFunds:
    return _insufficient_funds(LedgerAccount.objects.get(pk=pk), required)


def _insufficient_funds(account: LedgerAccount, required: int) -> InsufficientFunds:
    owner = {"accountId": ids.render("InternalAccount", account.internal_account_id)}
    if account.internal_account_id is None:  # a SUPPLY account: the caller names its stablecoin
        owner = {}
    return InsufficientFunds(
        **owner,
        available=account.balance - account.held,
        required=required,
        currency=account.currency,
    )


@transaction.atomic(savepoint=False)
def ledger_post(
    *,
    platform_id: UUID,
    kind: str,
    key: str,
    legs: Iterable[Leg],
    txn: Transaction | None = None,
    description: str = "",
    accounts: Iterable[InternalAccount] = (),
) -> LedgerJournal:
    """Record one movement, inside the caller's transaction (whose rollback undoes it all).
    `accounts`: internal accounts of the legs the caller has loaded with their platform (the
    balance events read the others).

    Raises InsufficientFunds when an internal account would go below zero, UnbalancedJournal for
    legs that do not sum to zero per currency, and an IntegrityError when a journal with this `key`
    exists (a movement is posted once). After any of these the caller's transaction must roll back.
    """
    merged = _merged(legs)
    kept = sorted(
        (leg.account.pk, leg.account.internal_account_id, leg.amount)
        for leg in merged
        if leg.account.kind in KEPT_KINDS
    )
    balances = {}
    for pk, internal_account_id, amount in kept:
        row = _balance_add(pk, amount)
        if row is None:
            raise _insufficient(pk, -amount)
        if internal_account_id is not None:
            balances[internal_account_id] = row
    journal = LedgerJournal(
        platform_id=platform_id, kind=kind, key=key, transaction=txn, description=description[:255]
    )
    plan_insert([journal])
    plan_insert(
        [
            LedgerPosting(
                journal=journal, account=leg.account, currency=leg.account.currency, amount=leg.amount
            )
            for leg in merged
        ]
    )
    internal_account_balances_changed(balances, accounts=accounts)
    return journal


def ledger_journal_key(txn: Transaction, kind: str) -> str:
    """The key of `txn`'s journal of `kind` (a `LedgerJournal.Kind`): a transaction posts each kind once."""
    return f"txn:{txn.pk}:{kind.lower()}"


def ledger_post_transaction(
    txn: Transaction,
    *,
    kind: str,
    legs: Iterable[Leg],
    description: str = "",
    accounts: Iterable[InternalAccount] = (),
) -> LedgerJournal:
    """`ledger_post` of `txn`'s journal of `kind`, keyed by `ledger_journal_key`."""
    return ledger_post(
        platform_id=txn.platform_id,
        kind=kind,
        key=ledger_journal_key(txn, kind),
        legs=legs,
        txn=txn,
        description=description,
        accounts=accounts,
    )


def ledger_journal_legs(key: str) -> list[Leg] | None:
    """The legs of the journal `key`, or None when no such journal was posted."""
    postings = list(LedgerPosting.objects.filter(journal__key=key).select_related("account").order_by("pk"))
    if not postings:
        return None
    return [Leg(p.account, p.amount) for p in postings]


@transaction.atomic
def ledger_reverse(
    *, journal_key: str, key: str, kind: str, txn: Transaction | None = None, description: str = ""
) -> LedgerJournal | None:
    """Post the exact opposite of journal `journal_key` as `key`; None when the original does not exist."""
    legs = ledger_journal_legs(journal_key)
    if legs is None:
        return None
    return ledger_post(
        platform_id=legs[0].account.platform_id,
        kind=kind,
        key=key,
        legs=[Leg(leg.account, -leg.amount) for leg in legs],
        txn=txn,
        description=description or f"reversal of {journal_key}",
    )


# --- holds ----------------------------------------------------------------------------------------


def ledger_hold(internal_account: InternalAccount, amount: int) -> None:
    """Hold `amount` more (negative: release that much) of the internal account's balance, inside the
    caller's transaction: its available balance (balance - held) drops, its balance does not. One
    conditional UPDATE, which takes the account's row lock, so racing holds cannot together hold more
    than the balance. Raises InsufficientFunds when the available balance does not cover a hold (the
    caller's transaction then rolls back). Records INTERNAL_ACCOUNT.BALANCE_UPDATED."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"a hold is an integer of smallest units, not {amount!r}")
    if amount == 0:
        return
    connection = connections[router.db_for_write(LedgerAccount)]
    key = LedgerAccount._meta.get_field("internal_account").get_db_prep_value(internal_account.pk, connection)
    row = _row_add(_HELD_ADD, [amount, key, max(amount, 0), amount])
    if row is None:
        raise _insufficient_funds(ledger_internal_account(internal_account), amount)
    internal_account_balances_changed({internal_account.pk: row}, accounts=[internal_account])


# --- reading --------------------------------------------------------------------------------------


def ledger_balance(internal_account: InternalAccount) -> int:
    """The internal account's balance (its balance row, which equals the sum of its postings)."""
    balance = (
        LedgerAccount.objects.filter(internal_account=internal_account)
        .values_list("balance", flat=True)
        .first()
    )
    return balance or 0


def ledger_balances(internal_account: InternalAccount) -> tuple[int, int]:
    """The internal account's (balance, held): its available balance is the difference."""
    row = (
        LedgerAccount.objects.filter(internal_account=internal_account).values_list("balance", "held").first()
    )
    return row or (0, 0)


def ledger_posting_sum(account: LedgerAccount) -> int:
    """The sum of the account's postings (what its balance is by definition)."""
    return LedgerPosting.objects.filter(account=account).aggregate(total=Sum("amount"))["total"] or 0


def ledger_currency_totals() -> dict[str, int]:
    """The sum of all postings per currency; every value is 0 in a consistent ledger."""
    rows = LedgerPosting.objects.values("currency").annotate(total=Sum("amount")).order_by("currency")
    return {row["currency"]: row["total"] for row in rows}


def ledger_balance_mismatches() -> list[tuple[LedgerAccount, int]]:
    """Kept ledger accounts (internal, supply) whose balance row differs from the sum of their postings."""
    sums = dict(
        LedgerPosting.objects.filter(account__kind__in=KEPT_KINDS)
        .values("account")
        .annotate(total=Sum("amount"))
        .values_list("account", "total")
    )
    return [
        (account, sums.get(account.pk, 0))
        for account in LedgerAccount.objects.filter(kind__in=KEPT_KINDS)
        if account.balance != sums.get(account.pk, 0)
    ]
