from __future__ import annotations

import pytest
from django.db import DatabaseError

from payments.cards.authorizations import card_hold_mismatches
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals

_DB_FIXTURES = ("db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback")


def _uses_database(request) -> str | None:
    marker = request.node.get_closest_marker("django_db")
    if marker is not None:
        return "transactional_db" if marker.kwargs.get("transaction") else "db"
    return next((name for name in _DB_FIXTURES if name in request.fixturenames), None)


@pytest.fixture(autouse=True)
def _ledger_stays_balanced(request):
    """After every test that used the database: the postings of each currency sum to zero, and every
    internal account's balance row equals the sum of its postings, and what it holds equals what its
    card transactions hold."""
    database = _uses_database(request)
    if database is None:
        yield
        return
    request.getfixturevalue(database)  # set up first, so this check runs before the rollback or flush
    yield
    try:
        totals = ledger_currency_totals()
        mismatches = ledger_balance_mismatches()
        holds = card_hold_mismatches()
    except DatabaseError:
        return  # the test left the connection unusable (it asserted on a database error); nothing to read
    assert all(total == 0 for total in totals.values()), f"ledger does not sum to zero: {totals}"
    assert not mismatches, f"balance rows differ from their postings: {mismatches}"
    assert not holds, f"held amounts differ from what card transactions hold: {holds}"
