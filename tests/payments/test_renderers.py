"""The API's JSON renderer writes DRF's bytes (orjson underneath), for what the API renders."""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal

from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from payments.api.renderers import JsonRenderer

ours, drfs = JsonRenderer(), JSONRenderer()

INT64 = st.integers(min_value=-(2**63), max_value=2**64 - 1)
documents = st.recursive(
    st.none() | st.booleans() | INT64 | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(documents)
def test_json_documents_render_as_drf_renders_them(document):
    assert ours.render(document) == drfs.render(document)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_renders_the_same_number(number):
    assert json.loads(ours.render({"rate": number})) == {"rate": number}


def test_what_orjson_does_not_know_goes_through_drfs_encoder():
    moment = dt.datetime(2026, 11, 27, 9, 30, 15, 123456, tzinfo=dt.UTC)
    document = {
        "at": moment,
        "day": moment.date(),
        "time": moment.time(),
        "amount": Decimal("12.50"),
        "id": uuid.UUID(int=7),
        "label": gettext_lazy("Transactions"),
        "separators": "line\u2028paragraph\u2029end",
        "ids": (n for n in range(3)),
    }
    expected = drfs.render({**document, "ids": [0, 1, 2]})
    assert ours.render(document) == expected
    assert b"\\u2028" in expected and b'"at":"2026-11-27T09:30:15.123456Z"' in expected


def test_what_orjson_refuses_drf_renders():
    assert (
        ours.render({1: "an integer key"}) == drfs.render({1: "an integer key"}) == b'{"1":"an integer key"}'
    )
    assert ours.render({"big": 2**70}) == b'{"big":1180591620717411303424}'


def test_a_float_that_is_no_number_is_null_rather_than_an_error():
    assert ours.render({"rate": math.nan, "cap": math.inf}) == b'{"rate":null,"cap":null}'


def test_indented_output_is_drfs(api):
    response = api.get("/config", HTTP_ACCEPT="application/json; indent=2")
    assert response.status_code == 200
    assert response.content.startswith(b'{\n  "')


def test_nothing_renders_as_nothing():
    assert ours.render(None) == b""
