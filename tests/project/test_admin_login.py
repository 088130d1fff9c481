"""The admin's sign-in lock-out (django-axes, per user name and client address): wrong passwords
lock that user at that address for the cool-off, whatever comes next; an administrator can unlock;
nothing else is counted (the test client's logins, the API's HTTP Basic tokens)."""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.conftest import basic

pytestmark = pytest.mark.django_db

PASSWORD = "the right admin password"
HOME, OFFICE = "203.0.113.7", "198.51.100.20"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def root(db) -> User:
    return User.objects.create_superuser("root", "root@example.com", PASSWORD)


def sign_in(password: str, *, username: str = "root", address: str = HOME):
    return Client().post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def signed_in(response) -> bool:
    return response.status_code == 302 and response.wsgi_request.user.is_authenticated


def lock(username: str = "root", address: str = HOME) -> None:
    for _ in range(4):
        assert sign_in("wrong", username=username, address=address).status_code == 200
    locked = sign_in("wrong", username=username, address=address)
    assert locked.status_code == 429, locked


def test_wrong_passwords_lock_that_user_at_that_address(root):
    User.objects.create_superuser("other", "other@example.com", PASSWORD)
    lock()
    refused = sign_in(PASSWORD)
    assert refused.status_code == 429 and not refused.wsgi_request.user.is_authenticated
    page = refused.content.decode()
    assert "Too many wrong passwords for <strong>root</strong>" in page
    assert "Try again in 15 minutes" in page
    assert "Content-Security-Policy" in refused.headers
    assert signed_in(sign_in(PASSWORD, address=OFFICE))  # the same user elsewhere
    assert signed_in(sign_in(PASSWORD, username="other"))  # another user here


def test_the_lock_ends_after_the_cool_off(root):
    lock()
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - dt.timedelta(minutes=14)
    )
    assert sign_in(PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - dt.timedelta(minutes=2)
    )
    assert signed_in(sign_in(PASSWORD))


def test_an_administrator_unlocks_from_the_access_attempts_page(root):
    reviewer = User.objects.create_user("reviewer", password=PASSWORD, is_staff=True)
    lock(reviewer.username)
    admin = Client()
    admin.force_login(root)
    attempts = admin.get("/admin/axes/accessattempt/")
    assert attempts.status_code == 200 and "reviewer" in attempts.content.decode()
    attempt = AccessAttempt.objects.get(username="reviewer")
    deleted = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert signed_in(sign_in(PASSWORD, username="reviewer"))


def test_a_sign_in_starts_the_count_again(root):
    for _ in range(4):
        sign_in("wrong")
    assert signed_in(sign_in(PASSWORD))
    for _ in range(4):
        assert sign_in("wrong").status_code == 200
    assert signed_in(sign_in(PASSWORD))


def test_the_test_clients_logins_are_not_counted(root, client):
    assert client.login(username="root", password="wrong") is False
    assert client.login(username="root", password=PASSWORD) is True
    client.force_login(root)
    assert client.get("/admin/").status_code == 200
    assert not AccessAttempt.objects.exists()


def test_api_tokens_are_not_counted(api):
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION=basic(api.token.client_id, "not-the-secret"), REMOTE_ADDR=HOME)
    for _ in range(20):
        assert wrong.get("/api/2025-10-13/config").status_code == 401
    assert api.get("/config").status_code == 200
    assert not AccessAttempt.objects.exists()


LIMIT = 3


@hypothesis_settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from([HOME, OFFICE]), st.booleans()), max_size=10))
def test_any_sequence_of_attempts_follows_the_rule(root, settings, attempts):
    """Per address: the LIMIT-th wrong password in a row locks it (that answer is already the lock
    page), and a locked address gets the lock page for anything; a sign-in resets the count."""
    settings.AXES_FAILURE_LIMIT = LIMIT
    AccessAttempt.objects.all().delete()
    failures = {HOME: 0, OFFICE: 0}
    for address, right in attempts:
        response = sign_in(PASSWORD if right else "wrong", address=address)
        if failures[address] >= LIMIT:
            assert response.status_code == 429
        elif right:
            assert signed_in(response)
            failures[address] = 0
        else:
            failures[address] += 1
            assert response.status_code == (429 if failures[address] >= LIMIT else 200)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_burst_of_parallel_wrong_passwords_is_counted_in_full_and_locks(root):
    import threading

    from django.db import connection

    barrier = threading.Barrier(12)
    answers: list[int] = []

    def guess() -> None:
        try:
            barrier.wait()
            answers.append(sign_in("wrong").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 12 and set(answers) <= {200, 429}
    # Every wrong password answered 200 was counted (none lost to the race); attempts that arrived once
    # the pair was locked were refused without being counted.
    failures = AccessAttempt.objects.get().failures_since_start
    assert max(5, answers.count(200)) <= failures <= 12, (failures, answers)
    assert sign_in(PASSWORD).status_code == 429


@pytest.mark.django_db
def test_admin_pages_name_the_site_icon(client, admin_user):
    # Without it every admin page has the browser ask for /favicon.ico, a 404 in `make run`'s log.
    client.force_login(admin_user)
    for path in ("/admin/login/", "/admin/payments/customer/"):
        page = client.get(path, follow=True).content.decode()
        assert 'rel="icon" href="/static/favicon.svg"' in page, path
