"""Compiled statements (payments.query_plans): what they return is what the ORM returns."""

from __future__ import annotations

import pytest
from django.db.models import Value

from payments import query_plans
from payments.models import Platform
from payments.query_plans import Literal, plan_all, plan_count
from tests import factories

pytestmark = pytest.mark.django_db


def _named(name: str):
    return Platform.objects.filter(name=name).order_by("-pk")


def test_all_rows_count_and_values_as_the_orm_gives_them():
    made = [factories.PlatformFactory(name="plans-") for _ in range(3)]
    factories.PlatformFactory(name="other")

    def rows(name):
        return _named(name)[:2]

    got = plan_all("test-platforms", rows, "plans-")
    assert [p.pk for p in got] == [p.pk for p in made[::-1][:2]]
    assert got[0].name == "plans-" and not got[0]._state.adding
    keys = plan_all(
        "test-platform-keys", lambda name: _named(name).values_list("pk", flat=True)[:5], "plans-"
    )
    assert keys == list(_named("plans-").values_list("pk", flat=True))
    assert plan_count("test-platform-count", lambda name: _named(name).values_list("pk")[:2], "plans-") == 2
    assert plan_count("test-platform-count-all", lambda name: _named(name).values_list("pk"), "x") == 0


def test_named_rows_and_json_columns_as_the_orm_gives_them():
    """JSON columns are decoded a page at a time (one json.loads): SQL NULL, a JSON null, strings
    with commas and brackets, nesting and unicode come back as the ORM decodes them one by one."""
    factories.PlatformFactory(name="named", embedded_wallet_config=None, fee_configs=[])
    factories.PlatformFactory(
        name="named",
        embedded_wallet_config={"a": [1, {"b": "x, ]}"}], "é": None},
        card_tokenization_2fa_config="a string, [quoted]",
        fee_configs=[None, 1.5, True],
    )
    fields = ("pk", "name", "embedded_wallet_config", "card_tokenization_2fa_config", "fee_configs")

    def rows(name):
        return _named(name).values_list(*fields, named=True)[:5]

    got = plan_all("test-named-rows", rows, "named")
    assert got == list(rows("named")) and got[1].embedded_wallet_config is None
    assert [p.embedded_wallet_config for p in plan_all("test-json", lambda n: _named(n)[:5], "named")] == [
        p.embedded_wallet_config for p in _named("named")
    ]
    with pytest.raises(TypeError, match="named in order"):  # Django names values_list's columns alone
        plan_all(
            "test-named-late",
            lambda: _named("named").values_list(*fields, named=True).annotate(n=Value(1))[:1],
        )


def test_a_literal_is_written_into_the_statement_and_only_a_name_is_one():
    factories.PlatformFactory(name="LITERAL_1")
    got = plan_all("test-literal", lambda: Platform.objects.filter(name=Literal("LITERAL_1"))[:5])
    assert [p.name for p in got] == ["LITERAL_1"]
    with pytest.raises(ValueError):
        list(Platform.objects.filter(name=Literal("x' OR '1'='1")))


def test_plans_are_bounded(monkeypatch):
    monkeypatch.setattr(query_plans, "_plans", {})
    monkeypatch.setattr(query_plans, "MAX_PLANS", 3)
    factories.PlatformFactory(name="bounded")
    for i in range(5):
        assert len(plan_all(f"test-bounded-{i}", lambda name: _named(name)[:1], "bounded")) == 1
    assert list(query_plans._plans) == ["test-bounded-2", "test-bounded-3", "test-bounded-4"]
