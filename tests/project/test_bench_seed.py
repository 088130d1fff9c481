"""`make bench` fills platforms with transactions by one SQL statement (project/bench/money.py): it
must keep up with the table, or the list cases fail before they measure anything."""

from __future__ import annotations

import pytest

from project.bench.money import _transactions_load

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_seeded_transactions_list_like_any_others(client):
    load = _transactions_load("Seeded platform", 25, "01900000-0009-7000-8000-")
    page = client.get(load.path, HTTP_AUTHORIZATION=load.headers["Authorization"])
    assert page.status_code == 200
    body = page.json()
    assert len(body["data"]) == 20
    assert body["hasMore"] is True
    assert {item["status"] for item in body["data"]} == {"COMPLETED"}
