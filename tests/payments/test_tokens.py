import pytest
from rest_framework.test import APIClient

from tests.conftest import API, basic

pytestmark = pytest.mark.django_db


def test_created_token_shows_its_secret_once_and_it_works(api):
    response = api.post("/tokens", {"name": "Read only", "permissions": ["VIEW"]})
    assert response.status_code == 201
    created = response.json()
    assert created["id"].startswith("Token:")
    assert created["permissions"] == ["VIEW"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(created["clientId"], created["clientSecret"]))
    assert client.get(f"{API}/config").status_code == 200
    fetched = api.get(f"/tokens/{created['id']}").json()
    assert "clientSecret" not in fetched
    assert fetched["clientId"] == created["clientId"]
    assert all("clientSecret" not in t for t in api.get("/tokens").json()["data"])


def test_create_validates_every_field(api):
    response = api.post("/tokens", {"name": "", "permissions": ["VIEW", "ROOT"]})
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"name", "permissions[1]"}


def test_list_filters_by_name(api):
    api.post("/tokens", {"name": "ci", "permissions": ["VIEW"]})
    body = api.get("/tokens", {"name": "ci"}).json()
    assert [t["name"] for t in body["data"]] == ["ci"]
    assert body["totalCount"] == 1


def test_delete_revokes_the_token(api):
    created = api.post("/tokens", {"name": "temp", "permissions": ["VIEW"]}).json()
    assert api.delete(f"/tokens/{created['id']}").status_code == 204
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(created["clientId"], created["clientSecret"]))
    assert client.get(f"{API}/config").status_code == 401
    response = api.get(f"/tokens/{created['id']}")
    assert response.status_code == 404
    assert response.json()["code"] == "TOKEN_NOT_FOUND"


def test_the_last_token_cannot_be_deleted(api):
    response = api.delete(f"/tokens/{api.token.public_id}")
    assert response.status_code == 400
    assert api.get("/config").status_code == 200


@pytest.mark.parametrize("token_id", ["nope", "Token:123", "Customer:01a20122-f0e3-70f7-afba-63a9ce5cb6ab"])
def test_unknown_ids_answer_token_not_found(api, token_id):
    response = api.get(f"/tokens/{token_id}")
    assert response.status_code == 404
    assert response.json()["code"] == "TOKEN_NOT_FOUND"


def test_list_filters_by_creation_time_inclusively(api):
    first = api.post("/tokens", {"name": "first", "permissions": ["VIEW"]}).json()
    second = api.post("/tokens", {"name": "second", "permissions": ["VIEW"]}).json()
    since = api.get("/tokens", {"createdAfter": first["createdAt"]}).json()["data"]
    assert sorted(t["name"] for t in since) == ["first", "second"]
    before = api.get("/tokens", {"createdBefore": first["createdAt"]}).json()["data"]
    assert "first" in {t["name"] for t in before}  # the bound copied from it, milliseconds and all
    if second["createdAt"] != first["createdAt"]:
        assert "second" not in {t["name"] for t in before}
