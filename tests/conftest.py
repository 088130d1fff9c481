from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, settings
from rest_framework.test import APIClient

from payments import clock, service_keys
from payments.api.throttles import DeviceCodeRedeemThrottle
from tests import factories

API = "/api/2025-10-13"

# Property tests check behaviour, not speed (make bench measures that): no per-example time limit,
# which a loaded CI machine overran on tests that pass in milliseconds when it is quiet.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture(autouse=True)
def _reset_clock():
    clock.reset()
    with clock.served():  # a platform's clock entered by code the test calls directly ends with it
        yield
    clock.reset()


@pytest.fixture(autouse=True)
def _publish_in_the_callers_thread(settings):
    """Tasks go to the broker from the thread that asks (project/publishing.py), so a test sees them at
    once and its database rows are visible to the failure path; tests/project/test_publishing.py
    covers the background thread."""
    settings.CELERY_PUBLISH_IN_BACKGROUND = False


@pytest.fixture(autouse=True)
def _forget_rate_limits(_reset_clock):
    """The service's throttles count in the cache, which a test's rollback does not empty."""
    DeviceCodeRedeemThrottle().forget("127.0.0.1")


@pytest.fixture(autouse=True)
def _no_session_cache(settings):
    """A test's rollback discards the notifications that keep the stamp check's session cache true;
    tests/wallets/test_session_cache.py turns it on over committed transactions."""
    settings.WALLET_SESSION_CACHE = False


@pytest.fixture(autouse=True)
def _forget_service_public_keys():
    service_keys.forget_cached_public_keys()  # the rows they came from are rolled back with each test


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


class Api:
    """An API client bound to one platform's token, with paths relative to the API base."""

    def __init__(self, platform, token, secret):
        self.platform, self.token, self.secret = platform, token, secret
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=basic(token.client_id, secret))

    def __getattr__(self, method):
        if method not in ("get", "post", "patch", "put", "delete"):
            raise AttributeError(method)

        def call(path, data=None, **kwargs):
            if data is not None and method != "get":
                kwargs.setdefault("format", "json")
            return getattr(self.client, method)(API + path, data, **kwargs)

        return call


@pytest.fixture
def api(db) -> Api:
    return Api(*factories.platform_with_token())


@pytest.fixture
def other_api(db) -> Api:
    return Api(*factories.platform_with_token(name="Other platform"))


pytest_plugins = ["tests.browser", "tests.wallets.portal_support"]


def pytest_collection_modifyitems(config, items):
    from django.db import connection

    # Long files first (the Makefile turns off xdist's reordering by file size, which put them last).
    items.sort(key=lambda item: item.get_closest_marker("long") is None)

    if connection.vendor != "postgresql":
        skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL); row locks and concurrency")
        for item in items:
            if "postgres" in item.keywords:
                item.add_marker(skip)
