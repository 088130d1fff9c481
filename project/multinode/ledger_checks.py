"""Checks in the database (this process, Django set up against the cluster's PgBouncer)."""

from __future__ import annotations

import os

from project.multinode.cluster import Cluster


def _django(cluster: Cluster) -> None:
    os.environ.update(cluster.env, CELERY_PUBLISH_IN_BACKGROUND="0")
    import django

    django.setup()


def _ledger_ok() -> tuple[bool, dict]:
    from payments.ledger import ledger_balance_mismatches, ledger_currency_totals

    totals = ledger_currency_totals()
    mismatches = ledger_balance_mismatches()
    return all(v == 0 for v in totals.values()) and not mismatches, {
        "currency_totals": totals,
        "balance_mismatches": len(mismatches),
    }


def _negative_balances() -> int:
    from payments.accounts import account_balance
    from payments.models import InternalAccount

    return sum(1 for account in InternalAccount.objects.all() if account_balance(account) < 0)
