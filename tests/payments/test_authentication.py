import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from payments.models import ApiToken
from tests import factories
from tests.conftest import API, basic

pytestmark = pytest.mark.django_db


def _get_config(authorization: str | None):
    client = APIClient()
    if authorization is not None:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client.get(f"{API}/config")


def _assert_unauthorized(response):
    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == 401
    assert body["code"] == "UNAUTHORIZED"
    assert body["message"]
    assert response["WWW-Authenticate"].startswith("Basic")


def test_valid_credentials_reach_the_platform_config():
    platform, token, secret = factories.platform_with_token()
    response = _get_config(basic(token.client_id, secret))
    assert response.status_code == 200
    assert response.json()["id"] == platform.public_id


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer abc",
        "Basic",
        "Basic !!!not-base64!!!",
        "Basic " + base64.b64encode(b"no-colon-here").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe:\xff").decode(),
    ],
    ids=["missing", "empty", "bearer", "no-credentials", "bad-base64", "no-colon", "not-utf8"],
)
def test_malformed_or_missing_credentials_are_refused(authorization):
    factories.platform_with_token()
    _assert_unauthorized(_get_config(authorization))


def test_unknown_client_id_is_refused():
    _platform, _token, secret = factories.platform_with_token()
    _assert_unauthorized(_get_config(basic("0" * 32, secret)))


@pytest.mark.parametrize(
    "alter",
    [
        lambda c: c + "x",
        lambda c: c + "\x00",
        lambda c: c + "\x00" + "x" * 10,
        lambda c: c[:-1],
        lambda c: c.upper(),
        lambda c: " " + c,
        lambda c: c[:10] + "\x00" + c[11:],
    ],
    ids=["suffix", "nul-suffix", "nul-and-more", "prefix", "upper", "leading-space", "nul-inside"],
)
def test_the_client_id_must_match_exactly(alter):
    _platform, token, secret = factories.platform_with_token()
    _assert_unauthorized(_get_config(basic(alter(token.client_id), secret)))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.text(max_size=3), suffix=st.text(max_size=3))
def test_with_the_right_secret_only_the_exact_client_id_authenticates(prefix, suffix):
    _platform, token, secret = factories.platform_with_token()
    response = _get_config(basic(prefix + token.client_id + suffix, secret))
    assert response.status_code == (200 if prefix + suffix == "" else 401)


def test_wrong_secret_is_refused():
    _platform, token, secret = factories.platform_with_token()
    _assert_unauthorized(_get_config(basic(token.client_id, secret + "x")))
    _assert_unauthorized(_get_config(basic(token.client_id, "")))


def test_secret_of_another_token_is_refused():
    platform, token, _secret = factories.platform_with_token()
    _other, other_secret = factories.api_token(platform=platform)
    _assert_unauthorized(_get_config(basic(token.client_id, other_secret)))


def test_deleted_token_no_longer_authenticates():
    platform, token, secret = factories.platform_with_token()
    factories.api_token(platform=platform)
    token.delete()
    _assert_unauthorized(_get_config(basic(token.client_id, secret)))


def test_secret_is_stored_only_as_a_keyed_digest():
    _platform, token, secret = factories.platform_with_token()
    stored = ApiToken.objects.get(pk=token.pk)
    assert secret not in stored.secret_digest
    assert len(stored.secret_digest) == 64
    assert secret not in repr(stored.__dict__)


def test_view_only_token_cannot_change_config():
    _platform, token, secret = factories.platform_with_token(permissions=["VIEW"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(token.client_id, secret))
    assert client.get(f"{API}/config").status_code == 200
    response = client.patch(f"{API}/config", {"umaDomain": "x.example"}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "FORBIDDEN"
