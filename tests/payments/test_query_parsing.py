"""`parse_query` reads a plain query string itself and leaves everything else to the serializer; both
ways must give the same answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from payments.api import parsing
from payments.api.pagination import PageQuery
from payments.api.parsing import parse_query
from payments.api.transactions import TransactionQuerySerializer

SERIALIZERS = [TransactionQuerySerializer, PageQuery]
NAMES = sorted({name for cls in SERIALIZERS for name in cls().fields} | {"other"})
TRICKY = [
    "", " ", "x", " x", "x ", "INCOMING", "incoming", "OUTGOING", "PENDING", "asc", "desc", "ASC",
    "0", "1", "20", "100", "101", "007", "-1", "+5", "1.0", "1.5", " 5", "٣", "1" * 1001,
    "a\x00b", "\ud800", "2024-01-01T00:00:00Z", "Customer:x", "é", "ÿ" * 70,
]  # fmt: skip


def _serializer_answer(cls: type[serializers.Serializer], params: dict) -> dict | None:
    serializer = cls(data=params)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@settings(max_examples=400)
@given(
    st.dictionaries(
        st.sampled_from(NAMES), st.one_of(st.sampled_from(TRICKY), st.text(max_size=6)), max_size=5
    )
)
def test_the_short_way_answers_what_the_serializer_answers(params):
    for cls in SERIALIZERS:
        plain = parsing._plain_query(cls, params)
        if plain is not None:
            assert plain == _serializer_answer(cls, params)
            assert list(plain) == list(_serializer_answer(cls, params))


def test_plain_list_queries_skip_the_serializer(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("the serializer ran")

    monkeypatch.setattr(serializers.Serializer, "is_valid", refuse)
    assert parse_query(PageQuery, {"limit": "5", "other": "x"}) == {"limit": 5}
    assert parse_query(PageQuery, {}) == {"limit": 20}
    assert parse_query(TransactionQuerySerializer, {"type": "INCOMING", "customerId": "Customer:x"}) == {
        "customerId": "Customer:x",
        "type": "INCOMING",
        "sortOrder": "desc",
    }


def test_a_serializer_with_checks_of_its_own_always_runs():
    class Checked(serializers.Serializer):
        name = serializers.CharField()

        def validate_name(self, value):
            return value.upper()

    assert parsing._plain_query(Checked, {"name": "x"}) is None
    assert parse_query(Checked, {"name": "x"}) == {"name": "X"}
