"""Scenario 1: money races across nodes."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from project.multinode.api import Api, _node
from project.multinode.config import Report, say
from project.multinode.ledger_checks import _ledger_ok, _negative_balances


def money_races(api: Api, report: Report) -> None:
    say("1. money races across the three nodes")
    account = api.funded_account(_node(0), 1_000_000)
    quote = api.quote(_node(1), account, 10_000).json()
    key = str(uuid.uuid4())
    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(lambda i: api.execute(_node(i), quote["id"], key), range(50)))
    statuses = Counter(a.status_code for a in answers)
    txns = {a.json().get("transactionId") for a in answers if a.status_code < 300}
    debits = _debits_of(quote["transactionId"])
    report.figures["same_key_executes"] = {
        "answers": dict(statuses),
        "transactions": len(txns),
        "debits": debits,
    }
    report.check(
        len(txns) == 1 and debits == 1,
        f"50 same-key executes: {dict(statuses)} -> {len(txns)} transaction, {debits} debit",
    )

    # 200 quote+execute pairs draining one account that holds 100 of them.
    amount, holds = 1_000, 100
    account = api.funded_account(_node(2), amount * holds)

    def pair(i: int) -> tuple[int, str | None]:
        q = api.quote(_node(i), account, amount)
        if q.status_code >= 300:
            return q.status_code, None
        e = api.execute(_node(i + 1), q.json()["id"], str(uuid.uuid4()))
        return e.status_code, q.json()["transactionId"] if e.status_code < 300 else None

    started = time.monotonic()
    with ThreadPoolExecutor(40) as pool:
        results = list(pool.map(pair, range(200)))
    elapsed = time.monotonic() - started
    executed = [t for s, t in results if t]
    balance = _balance(account)
    ledger_ok, ledger = _ledger_ok()
    negatives = _negative_balances()
    once = all(_debits_of(t) == 1 for t in executed)
    report.figures["draining_pairs"] = {
        "answers": dict(Counter(s for s, _ in results)),
        "executed": len(executed),
        "balance_left": balance,
        "seconds": round(elapsed, 1),
        "negative_balances": negatives,
        **ledger,
    }
    report.check(
        len(executed) <= holds and balance == (holds - len(executed)) * amount and negatives == 0 and once,
        f"200 draining pairs: {len(executed)} executed of {holds} affordable, balance left {balance}, "
        f"no negative balance, one debit each ({elapsed:.1f} s)",
    )
    report.check(ledger_ok, f"ledger invariants hold: {ledger}")


def _balance(public_account_id: str) -> int:
    from payments import ids
    from payments.accounts import account_balance
    from payments.models import InternalAccount

    kind = public_account_id.split(":", 1)[0]
    return account_balance(InternalAccount.objects.get(pk=ids.parse(kind, public_account_id)))


def _debits_of(public_transaction_id: str) -> int:
    from payments import ids
    from payments.models import LedgerJournal

    pk = ids.parse("Transaction", public_transaction_id)
    return LedgerJournal.objects.filter(transaction_id=pk, kind="DEBIT").count()
