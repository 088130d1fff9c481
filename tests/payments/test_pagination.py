import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from payments import ids
from payments.api.pagination import decode_cursor, encode_cursor
from tests import factories

pytestmark = pytest.mark.django_db


def _walk(api, limit=None):
    seen, cursor, pages = [], None, 0
    while True:
        params = {}
        if limit is not None:
            params["limit"] = limit
        if cursor:
            params["cursor"] = cursor
        body = api.get("/tokens", params).json()
        pages += 1
        seen += [t["id"] for t in body["data"]]
        if not body["hasMore"]:
            assert "nextCursor" not in body
            return seen, pages
        cursor = body["nextCursor"]


def test_default_limit_is_20_and_pages_cover_everything_once(api):
    for i in range(24):
        factories.api_token(platform=api.platform, name=f"t{i}")
    first = api.get("/tokens").json()
    assert len(first["data"]) == 20
    assert first["hasMore"] is True
    assert first["totalCount"] == 25
    seen, pages = _walk(api)
    assert pages == 2
    assert len(seen) == len(set(seen)) == 25


def test_pages_are_newest_first(api):
    for i in range(3):
        factories.api_token(platform=api.platform, name=f"t{i}")
    names = [t["name"] for t in api.get("/tokens").json()["data"]]
    assert names == ["t2", "t1", "t0", api.token.name]


@pytest.mark.parametrize("limit", ["0", "101", "-1", "abc", "1.5"])
def test_limit_out_of_bounds_is_refused(api, limit):
    response = api.get("/tokens", {"limit": limit})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "limit"


def test_limit_bounds_are_accepted(api):
    factories.api_token(platform=api.platform)
    assert len(api.get("/tokens", {"limit": 1}).json()["data"]) == 1
    assert api.get("/tokens", {"limit": 100}).status_code == 200


def test_garbage_cursor_is_refused(api):
    response = api.get("/tokens", {"cursor": "%%%"})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "cursor"


def test_records_added_while_paging_do_not_shift_pages(api):
    for i in range(5):
        factories.api_token(platform=api.platform, name=f"t{i}")
    first = api.get("/tokens", {"limit": 3}).json()
    factories.api_token(platform=api.platform, name="late")
    second = api.get("/tokens", {"limit": 3, "cursor": first["nextCursor"]}).json()
    ids_seen = [t["id"] for t in first["data"] + second["data"]]
    assert len(set(ids_seen)) == 6
    assert "late" not in [t["name"] for t in second["data"]]


@settings(max_examples=50)
@given(st.uuids())
def test_cursor_round_trips(value):
    assert decode_cursor(encode_cursor(value)) == value


def test_uuid7_ids_sort_in_creation_order():
    made = [ids.uuid7() for _ in range(5000)]
    assert made == sorted(made)
    assert len(set(made)) == len(made)
    assert all(u.version == 7 for u in made[:10])
