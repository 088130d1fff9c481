"""The portal's session engine (wallets.portal.session_store): Django's database sessions in fewer
statements, with the same behaviour."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wallets.portal.session_store import SessionStore


def _statements(queries) -> list[str]:
    """The statements sent, without the savepoints of the test's transaction."""
    verbs = [q["sql"].split()[0] for q in queries]
    return [v for v in verbs if v not in ("SAVEPOINT", "RELEASE")]


pytestmark = pytest.mark.django_db


def test_a_new_session_is_one_insert():
    store = SessionStore()
    store["a"] = 1
    with CaptureQueriesContext(connection) as queries:
        store.save()
    assert _statements(queries) == ["INSERT"]
    assert SessionStore(session_key=store.session_key)["a"] == 1


def test_a_cycled_key_keeps_the_data_and_its_row_is_written_once_at_save():
    store = SessionStore()
    store["a"] = 1
    store.save()
    old = store.session_key
    with CaptureQueriesContext(connection) as queries:
        store.cycle_key()
        store["b"] = 2
        store.save()
    assert _statements(queries) == ["DELETE", "INSERT"]
    assert store.session_key != old
    assert not Session.objects.filter(session_key=old).exists()
    assert SessionStore(session_key=store.session_key).load() == {"a": 1, "b": 2}
    store["c"] = 3
    store.save()  # the row exists now: an update
    assert SessionStore(session_key=store.session_key).load() == {"a": 1, "b": 2, "c": 3}


def test_a_cycled_key_taken_meanwhile_interrupts_the_request():
    store = SessionStore()
    store.cycle_key()
    Session.objects.create(
        session_key=store.session_key,
        session_data=SessionStore().encode({"x": 1}),
        expire_date=store.get_expiry_date(),
    )
    with pytest.raises(UpdateError):
        store.save()
    assert SessionStore(session_key=store.session_key).load() == {"x": 1}


def test_a_new_key_that_is_taken_is_drawn_again(monkeypatch):
    taken = SessionStore()
    taken.save()
    keys = iter([taken.session_key, "k" * 32])
    monkeypatch.setattr(SessionStore, "_get_new_session_key", lambda self: next(keys))
    store = SessionStore()
    store.save()
    assert store.session_key == "k" * 32
    assert Session.objects.count() == 2


def test_delete_is_one_statement_and_ignores_a_missing_row():
    store = SessionStore()
    store.save()
    with CaptureQueriesContext(connection) as queries:
        store.delete()
        store.delete("missing" + "0" * 25)
    assert _statements(queries) == ["DELETE", "DELETE"]
    assert not Session.objects.exists()
