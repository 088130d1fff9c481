"""Idempotency-Key on every operation that takes it: the first answer replayed byte for byte, the key
bound to its request, what is kept and what is not, expiry, and key reuse as a state machine."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from payments import clock
from payments.errors import ServiceError
from payments.models import IdempotencyKey, LedgerJournal, OnboardingLink, Quote, Transaction
from payments.tasks import idempotency_keys_sweep_task
from tests import factories
from tests.conftest import API
from tests.payments.money_support import consenting_customer, funded_account, key, quote_body, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE, sca_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def sender(api):
    customer, _ = consenting_customer(api.platform)
    return customer, funded_account(customer, 1_000_000), usd_external(api.platform, customer)


def _quote(api, sender, amount=10_000, **headers):
    _customer, source, payee = sender
    response = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount), **headers)
    assert response.status_code == 201, response.content
    return response.json()


def _execute(api, quote, body=None, **headers):
    return api.post(f"/quotes/{quote['id']}/execute", body, **headers)


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.json()
    return response.json()


# --- replays ------------------------------------------------------------------------------------


def test_a_replay_is_the_first_answer_byte_for_byte_not_the_current_state(api, sender):
    quote = _quote(api, sender)
    first = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-1"))
    assert first.status_code == 200 and first.json()["status"] == "PROCESSING"
    assert "Idempotent-Replayed" not in first.headers
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"  # the sandbox settles at once
    replay = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-1"))
    assert (replay.status_code, replay.content) == (200, first.content)  # still the PROCESSING answer
    assert replay["Idempotent-Replayed"] == "true"
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1


def test_key_order_and_whitespace_of_the_body_do_not_make_another_request(api, sender):
    _customer, source, payee = sender
    body = quote_body(source.public_id, payee.public_id, 10_000)
    first = api.post("/quotes", body, HTTP_IDEMPOTENCY_KEY=key("q-1"))
    text = json.dumps(dict(reversed(list(body.items()))), indent=2)
    again = api.client.post(
        API + "/quotes", text, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key("q-1")
    )
    assert (again.status_code, again.content) == (201, first.content)
    assert Quote.objects.count() == 1


def test_the_same_key_with_another_body_or_operation_is_refused(api, sender):
    _customer, source, payee = sender
    first = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 10_000), HTTP_IDEMPOTENCY_KEY=key("k")
    )
    assert first.status_code == 201
    other = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 10_001), HTTP_IDEMPOTENCY_KEY=key("k")
    )
    body = _error(other, 422, "IDEMPOTENCY_KEY_REUSED")
    assert "already used" in body["message"] and body["details"]["firstRequest"].endswith("/quotes")
    elsewhere = _execute(api, first.json(), HTTP_IDEMPOTENCY_KEY=key("k"))
    assert "POST /api/2025-10-13/quotes" in _error(elsewhere, 422, "IDEMPOTENCY_KEY_REUSED")["message"]
    assert Quote.objects.count() == 1
    assert api.get(f"/quotes/{first.json()['id']}").json()["status"] == "PENDING"  # nothing ran


def test_keys_are_the_platforms(api, other_api, sender):
    quote = _quote(api, sender)
    assert _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("shared")).status_code == 200
    theirs = consenting_customer(other_api.platform)[0]
    source = funded_account(theirs, 50_000)
    body = quote_body(source.public_id, usd_external(other_api.platform, theirs).public_id, 1_000)
    assert other_api.post("/quotes", body, HTTP_IDEMPOTENCY_KEY=key("shared")).status_code == 201


def test_an_sca_execute_replays_its_pending_authorization_answer(api):
    customer, _ = consenting_customer(api.platform, address=EU_ADDRESS, phone_number=PHONE)
    source = funded_account(customer, 1_000_000)
    assert sca_login(api, customer).status_code == 200
    quote = _quote(api, (customer, source, usd_external(api.platform, customer)))
    first = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("eu-1"))
    assert first.status_code == 200 and first.json()["status"] == "PENDING_AUTHORIZATION"
    authorized = api.post(f"/quotes/{quote['id']}/authorize", {"code": SANDBOX_SCA_CODE})
    assert authorized.json()["status"] in ("PROCESSING", "COMPLETED")
    replay = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("eu-1"))
    assert (replay.status_code, replay.content) == (200, first.content)
    assert _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("eu-2")).status_code == 409


def test_transfer_out_and_in_replay_their_first_answer(api, sender):
    _customer, source, payee = sender
    body = {"source": {"accountId": source.public_id}, "destination": {"accountId": payee.public_id}}
    first = api.post("/transfer-out", {**body, "amount": 5_000}, HTTP_IDEMPOTENCY_KEY=key("out-1"))
    assert first.status_code == 201, first.content
    again = api.post("/transfer-out", {**body, "amount": 5_000}, HTTP_IDEMPOTENCY_KEY=key("out-1"))
    assert (again.status_code, again.content) == (201, first.content)
    pull = {"source": {"accountId": payee.public_id}, "destination": {"accountId": source.public_id}}
    first = api.post("/transfer-in", {**pull, "amount": 2_000}, HTTP_IDEMPOTENCY_KEY=key("in-1"))
    assert first.status_code == 201, first.content
    again = api.post("/transfer-in", {**pull, "amount": 2_000}, HTTP_IDEMPOTENCY_KEY=key("in-1"))
    assert (again.status_code, again.content) == (201, first.content)
    assert Transaction.objects.filter(executed_at__isnull=False).count() == 2


def test_a_kyc_link_replay_is_the_same_link_and_the_stored_answer_is_sealed(api):
    customer = factories.CustomerFactory(platform=api.platform)
    path = f"/customers/{customer.public_id}/kyc-link"
    first = api.post(path, {"redirectUri": "https://example.com/done"}, HTTP_IDEMPOTENCY_KEY=key("link-1"))
    assert first.status_code == 201, first.content
    again = api.post(path, {"redirectUri": "https://example.com/done"}, HTTP_IDEMPOTENCY_KEY=key("link-1"))
    assert (again.status_code, again.content) == (201, first.content)
    assert OnboardingLink.objects.count() == 1
    token = first.json()["kycUrl"].rstrip("/").rsplit("/", 1)[-1]
    stored = IdempotencyKey.objects.get(key=key("link-1"))
    assert token not in stored.response_sealed and stored.response_sealed.startswith("v1.")


# --- what is kept -------------------------------------------------------------------------------


def test_refusals_that_say_not_now_keep_no_answer(api, sender):
    quote = _quote(api, sender)
    clock.advance(dt.timedelta(minutes=31))
    expired = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("late"))
    _error(expired, 409, "CONFLICT")
    assert not IdempotencyKey.objects.filter(key="late").exists()
    assert Quote.objects.get(pk=quote["id"].split(":")[1]).status == "EXPIRED"  # the operation's own commit


def test_a_validation_error_keeps_no_answer_so_the_corrected_body_may_use_the_key(api, sender):
    _customer, source, payee = sender
    bad = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, -5), HTTP_IDEMPOTENCY_KEY=key("v")
    )
    _error(bad, 400, "INVALID_INPUT")
    good = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 5_000), HTTP_IDEMPOTENCY_KEY=key("v")
    )
    assert good.status_code == 201


def test_an_answer_of_the_request_itself_is_kept(api):
    missing = {"id": "Quote:01a20122-f0e3-70f7-afba-63a9ce5cb6ab"}
    first = _execute(api, missing, HTTP_IDEMPOTENCY_KEY=key("nf"))
    _error(first, 404, "QUOTE_NOT_FOUND")
    again = _execute(api, missing, HTTP_IDEMPOTENCY_KEY=key("nf"))
    assert (again.status_code, again.content, again["Idempotent-Replayed"]) == (404, first.content, "true")


def test_a_failure_of_the_service_frees_the_key_and_leaves_nothing_behind(api, sender, monkeypatch):
    from payments.api import quotes as quote_views

    quote = _quote(api, sender)
    real = quote_views.quote_execute

    def failing(**kwargs):
        real(**kwargs)  # the transfer is made, then the service fails before answering
        raise ServiceError()

    monkeypatch.setattr(quote_views, "quote_execute", failing)
    _error(_execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("boom")), 500, "INTERNAL_ERROR")
    assert not IdempotencyKey.objects.exists()
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"  # rolled back with the key
    monkeypatch.setattr(quote_views, "quote_execute", real)
    assert _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("boom")).status_code == 200


def test_no_header_keeps_nothing(api, sender):
    quote = _quote(api, sender)
    assert _execute(api, quote).status_code == 200
    assert not IdempotencyKey.objects.exists()


# --- retention ----------------------------------------------------------------------------------


def test_keys_expire_after_the_setting_and_are_swept(api, sender, settings):
    settings.IDEMPOTENCY_KEY_HOURS = 2
    _customer, source, payee = sender
    first = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 1_000), HTTP_IDEMPOTENCY_KEY=key("e")
    )
    clock.advance(dt.timedelta(hours=1, minutes=59))
    assert idempotency_keys_sweep_task.apply().get() == 0
    other = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 2_000), HTTP_IDEMPOTENCY_KEY=key("e")
    )
    _error(other, 422, "IDEMPOTENCY_KEY_REUSED")
    clock.advance(dt.timedelta(minutes=1))
    # Expired but not swept yet: free all the same.
    fresh = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 2_000), HTTP_IDEMPOTENCY_KEY=key("e")
    )
    assert fresh.status_code == 201 and fresh.json()["id"] != first.json()["id"]
    clock.advance(dt.timedelta(hours=2))
    assert idempotency_keys_sweep_task.apply().get() == 1
    assert not IdempotencyKey.objects.exists()


# --- key reuse as a state machine ---------------------------------------------------------------


class KeyReuse(RuleBasedStateMachine):
    """Random requests over a few keys, bodies and two paths, with time passing: a live key answers
    its first request's bytes to that request and 422 to any other; an expired one starts afresh."""

    def __init__(self):
        super().__init__()
        self.api = Api.current
        self.namespace = uuid.uuid4().hex[:8]
        self.kept: dict[str, tuple[str, dict, int, bytes, dt.datetime]] = {}

    @initialize()
    def customers(self):
        self.paths = [
            f"/customers/{factories.CustomerFactory(platform=self.api.platform).public_id}/kyc-link"
            for _ in range(2)
        ]

    @rule(
        key=st.sampled_from(["a", "b", "c"]),
        path=st.integers(0, 1),
        redirect=st.sampled_from(["https://example.com/1", "https://example.com/2", None]),
    )
    def send(self, key, path, redirect):
        key, path = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{self.namespace}-{key}")), self.paths[path]
        body = {} if redirect is None else {"redirectUri": redirect}
        response = self.api.post(path, body, HTTP_IDEMPOTENCY_KEY=key)
        known = self.kept.get(key)
        if known is not None and known[4] > clock.now():
            first_path, first_body, status, content, _ = known
            if (first_path, first_body) == (path, body):
                assert (response.status_code, response.content) == (status, content)
            else:
                assert response.status_code == 422
                assert response.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
            return
        assert response.status_code == 201, response.content
        expires_at = clock.now() + dt.timedelta(hours=24)
        self.kept[key] = (path, body, response.status_code, response.content, expires_at)

    @rule(hours=st.sampled_from([1, 12, 25]))
    def time_passes(self, hours):
        clock.advance(dt.timedelta(hours=hours))


class Api:
    current = None


def test_key_reuse_state_machine(api):
    Api.current = api
    run_state_machine_as_test(
        KeyReuse,
        settings=settings(
            max_examples=15,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )


# --- cost on the execute hot path ---------------------------------------------------------------


def _statements(api, quote, **headers) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert _execute(api, quote, **headers).status_code == 200
    return [
        q["sql"].split(" ")[0] + (" idempotency" if "idempotencykey" in q["sql"] else "") for q in captured
    ]


def test_a_key_costs_the_execute_one_insert_one_update_and_a_savepoint_pair(api, sender):
    from collections import Counter

    _statements(api, _quote(api, sender))  # first use: the payee's ledger accounts, the compiled plans
    plain = Counter(_statements(api, _quote(api, sender)))
    keyed = Counter(_statements(api, _quote(api, sender), HTTP_IDEMPOTENCY_KEY=key("cost")))
    assert keyed - plain == Counter(
        {"INSERT idempotency": 1, "UPDATE idempotency": 1, "SAVEPOINT": 1, "RELEASE": 1}
    )
    assert plain - keyed == Counter()


# --- the key's format --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "pay-1",
        "550e8400e29b41d4a716446655440000",  # no hyphens
        "{550e8400-e29b-41d4-a716-446655440000}",
        "urn:uuid:550e8400-e29b-41d4-a716-446655440000",
        "550e8400-e29b-41d4-a716-44665544000g",
        " 550e8400-e29b-41d4-a716-446655440000",
    ],
)
def test_a_key_that_is_not_a_uuid_is_refused_and_nothing_runs(api, sender, value):
    quote = _quote(api, sender)
    response = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=value)
    body = _error(response, 400, "INVALID_INPUT")
    assert body["details"]["errors"] == [
        {
            "field": "Idempotency-Key",
            "message": "Must be a UUID, e.g. 550e8400-e29b-41d4-a716-446655440000",
            "constraint": {"format": "uuid"},
        }
    ]
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
    assert not IdempotencyKey.objects.exists()


def test_a_uuid_is_one_key_in_any_case(api, sender):
    quote = _quote(api, sender)
    lower = "550e8400-e29b-41d4-a716-446655440000"
    first = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=lower)
    assert first.status_code == 200
    again = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=lower.upper())
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == [lower]


def test_every_operation_that_takes_the_key_checks_it(api, sender):
    customer, source, payee = sender
    for path, body in [
        ("/quotes", quote_body(source.public_id, payee.public_id, 1_000)),
        (
            "/transfer-out",
            {"source": {"accountId": source.public_id}, "destination": {"accountId": payee.public_id}},
        ),
        (f"/customers/{customer.public_id}/kyc-link", {}),
    ]:
        _error(api.post(path, body, HTTP_IDEMPOTENCY_KEY="not-a-uuid"), 400, "INVALID_INPUT")


def test_the_document_declares_the_key_a_uuid(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    (parameter,) = [
        p
        for p in doc["paths"]["/quotes/{quoteId}/execute"]["post"]["parameters"]
        if p["name"] == "Idempotency-Key"
    ]
    assert parameter["schema"] == {"type": "string", "format": "uuid"}
