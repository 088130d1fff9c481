import pytest

pytestmark = pytest.mark.django_db


def test_a_platform_sees_only_its_own_tokens(api, other_api):
    theirs = other_api.token.public_id
    assert api.get(f"/tokens/{theirs}").status_code == 404
    assert api.delete(f"/tokens/{theirs}").status_code == 404
    assert theirs not in [t["id"] for t in api.get("/tokens").json()["data"]]
    assert api.get("/tokens").json()["totalCount"] == 1


def test_a_platform_sees_and_changes_only_its_own_config(api, other_api):
    api.patch("/config", {"umaDomain": "mine.example"})
    assert other_api.get("/config").json()["umaDomain"] == ""
    assert other_api.get("/config").json()["id"] == other_api.platform.public_id
