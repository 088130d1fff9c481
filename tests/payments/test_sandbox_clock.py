"""Sandbox test clocks (`/sandbox/clock`): each platform's own time, moved forward by the platform,
followed by every time-based rule of that platform and of no other."""

from __future__ import annotations

import datetime as dt
import json

import pyotp
import pytest
import yaml
from django.test import override_settings

from payments import clock
from payments.accounts import account_balance
from payments.models import CardTransaction, LedgerJournal, StablecoinOperation, WebhookEvent
from payments.stablecoins import FUNDS_ARRIVE, stablecoin_operations_relay
from payments.tasks import transactions_advance_task
from payments.transactions import transaction_steps_relay
from tests.payments.card_support import authorize, cardholder, issue
from tests.payments.kyc_support import create, individual
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, sca_path
from tests.payments.stablecoin_support import issuer, keyed, mint_body, supply

pytestmark = pytest.mark.django_db


def _sender(api, amount=1_000_000):
    customer, _ = consenting_customer(api.platform)
    return customer, funded_account(customer, amount)


def _pay(api, sender, account_number, amount=10_000):
    customer, source = sender
    payee = usd_external(api.platform, customer, account_number=account_number)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount)).json()
    executed = api.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.content
    return quote


def _status(api, quote):
    return api.get(f"/transactions/{quote['transactionId']}").json()["status"]


def _instant(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _advance(api, **body):
    answer = api.post("/sandbox/clock/advance", body)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_a_new_clock_shows_real_time(api):
    before = dt.datetime.now(dt.UTC)
    body = api.get("/sandbox/clock").json()
    assert body["realTime"] is True and body["aheadBySeconds"] == 0
    assert before - dt.timedelta(seconds=1) <= _instant(body["currentTime"]) <= dt.datetime.now(dt.UTC)


def test_advance_by_a_duration_then_to_an_instant_then_reset(api):
    moved = _advance(api, by="PT6M")
    assert moved["realTime"] is False and 359 < moved["aheadBySeconds"] <= 360
    assert 359 < api.get("/sandbox/clock").json()["aheadBySeconds"] <= 361
    target = _instant(moved["currentTime"]) + dt.timedelta(days=1)
    at = _advance(api, to=target.isoformat())
    assert _instant(at["currentTime"]) >= target
    reset = api.post("/sandbox/clock/reset").json()
    assert reset["realTime"] is True
    assert api.get("/sandbox/clock").json()["realTime"] is True


@pytest.mark.parametrize(
    "body",
    [
        {"by": "-PT5M"},
        {"by": "5 minutes"},
        {"by": "P"},
        {"by": "PT"},
        {"by": 360},
        {"by": "P99999999999999999999999D"},
        {"by": "P4000D"},
        {"to": "2000-01-01T00:00:00Z"},
        {"to": "yesterday"},
        {},
        {"by": "PT1M", "to": "2100-01-01T00:00:00Z"},
    ],
)
def test_bad_moves_are_refused_in_the_error_shape_and_change_nothing(api, body):
    answer = api.post("/sandbox/clock/advance", body)
    assert answer.status_code == 400, answer.content
    error = answer.json()
    assert error["code"] == "INVALID_INPUT" and error["details"]["errors"]
    assert api.get("/sandbox/clock").json()["realTime"] is True


def test_the_clock_never_goes_backwards(api):
    moved = _advance(api, by="P1D")
    earlier = _instant(moved["currentTime"]) - dt.timedelta(hours=1)
    answer = api.post("/sandbox/clock/advance", {"to": earlier.isoformat()})
    assert answer.status_code == 400
    assert answer.json()["details"]["errors"][0]["field"] == "to"
    assert api.get("/sandbox/clock").json()["aheadBySeconds"] >= 86_399


@override_settings(PRODUCTION=True)
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/sandbox/clock", None),
        ("post", "/sandbox/clock/advance", {"by": "PT6M"}),
        ("post", "/sandbox/clock/advance", {"by": "bad"}),
        ("post", "/sandbox/clock/reset", None),
    ],
)
def test_production_mode_has_no_sandbox_clock(api, method, path, body):
    answer = getattr(api, method)(path, body)
    assert answer.status_code == 404
    assert answer.json()["status"] == 404


def test_advancing_six_minutes_completes_a_003_payout_with_its_webhooks(api):
    api.platform.webhook_endpoint = "https://example.com/hooks"
    api.platform.save()
    sender = _sender(api)
    quote = _pay(api, sender, "1234567003")
    assert _status(api, quote) == "PROCESSING"
    _advance(api, by="PT5M")
    assert _status(api, quote) == "PROCESSING"
    moved = _advance(api, by="PT1M1S")
    # Applied in the advance itself: no read, no worker.
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.COMPLETED").count() == 1
    body = api.get(f"/transactions/{quote['transactionId']}").json()
    assert body["status"] == "COMPLETED"
    settled = _instant(body["settledAt"])
    assert settled < _instant(moved["currentTime"])  # at the step's own instant, not the move's end
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
    completed = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.COMPLETED").body)
    assert completed["data"]["status"] == "COMPLETED"
    assert LedgerJournal.objects.filter(kind="DELIVERY").count() == 1
    assert account_balance(sender[1]) == 990_000


def test_a_moved_clock_leaves_other_platforms_time_alone(api, other_api):
    ours, theirs = _sender(api), _sender(other_api)
    our_quote, their_quote = _pay(api, ours, "1234567003"), _pay(other_api, theirs, "1234567003")
    _advance(api, by="P1D")
    assert _status(api, our_quote) == "COMPLETED"
    assert _status(other_api, their_quote) == "PROCESSING"
    assert other_api.get("/sandbox/clock").json()["realTime"] is True
    # The other platform's quotes still expire by real time.
    customer, source = theirs
    payee = usd_external(other_api.platform, customer, account_number="1234567890")
    fresh = other_api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    assert _instant(fresh["expiresAt"]) - dt.datetime.now(dt.UTC) < dt.timedelta(hours=1)
    our_payee = usd_external(api.platform, ours[0], account_number="1234567890")
    our_fresh = api.post("/quotes", quote_body(ours[1].public_id, our_payee.public_id, 1_000)).json()
    assert _instant(our_fresh["expiresAt"]) - dt.datetime.now(dt.UTC) > dt.timedelta(days=1)


def test_quotes_expire_by_the_platform_clock(api):
    customer, source = _sender(api)
    payee = usd_external(api.platform, customer, account_number="1234567890")
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    _advance(api, to=quote["expiresAt"])
    _advance(api, by="PT1S")
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "EXPIRED"
    assert api.post(f"/quotes/{quote['id']}/execute").status_code != 200


def test_the_relay_takes_each_platform_by_its_own_clock(api, other_api, monkeypatch):
    queued = []
    monkeypatch.setattr(transactions_advance_task, "delay", lambda ids: queued.append(ids))
    ours, theirs = _sender(api), _sender(other_api)
    _pay(api, ours, "1234567003")
    their_quote = _pay(other_api, theirs, "1234567003")
    # Moved with no read, as by another process: only the relay sees the step fall due.
    api.platform.sandbox_clock_offset = dt.timedelta(minutes=7)
    api.platform.save()
    assert transaction_steps_relay() == 1
    assert transaction_steps_relay() == 0  # queued once, not every second
    transactions_advance_task(queued[0])
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.COMPLETED", platform=api.platform).count() == 1
    assert _status(other_api, their_quote) == "PROCESSING"
    clock.advance(dt.timedelta(minutes=7))  # the tests' clock moves every platform
    assert transaction_steps_relay() == 1
    transactions_advance_task(queued[-1])
    assert _status(other_api, their_quote) == "COMPLETED"


def test_the_daily_volume_starts_again_on_the_platforms_next_day(api, other_api):
    for platform in (api.platform, other_api.platform):
        platform.daily_volume_limit = 15_000
        platform.save()
    ours, theirs = _sender(api, 10**8), _sender(other_api, 10**8)
    for which, sender in ((api, ours), (other_api, theirs)):
        _pay(which, sender, "1234567890", amount=10_000)
        customer, source = sender
        payee = usd_external(which.platform, customer, account_number="1234567890")
        quote = which.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
        assert which.post(f"/quotes/{quote['id']}/execute").status_code == 429
    _advance(api, by="P1D")
    _pay(api, ours, "1234567890", amount=10_000)
    customer, source = theirs
    payee = usd_external(other_api.platform, customer, account_number="1234567890")
    quote = other_api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
    assert other_api.post(f"/quotes/{quote['id']}/execute").status_code == 429


def test_a_move_pulls_the_platforms_waiting_webhook_retries_in(api, other_api, settings):
    for platform in (api.platform, other_api.platform):
        platform.webhook_endpoint = "https://example.com/hooks"
        platform.save()
    _sender(api)  # each records events
    _sender(other_api)
    base = clock.base_now()
    later = base + dt.timedelta(hours=2)
    leased_until = base + dt.timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS - 5)
    ours = WebhookEvent.objects.filter(platform=api.platform)
    waiting, leased = ours.order_by("pk")[:2]
    WebhookEvent.objects.filter(pk=waiting.pk).update(status="PENDING", next_attempt_at=later)
    WebhookEvent.objects.filter(pk=leased.pk).update(status="PENDING", next_attempt_at=leased_until)
    theirs = WebhookEvent.objects.filter(platform=other_api.platform).first()
    WebhookEvent.objects.filter(pk=theirs.pk).update(status="PENDING", next_attempt_at=later)
    _advance(api, by="PT1H")
    assert abs(WebhookEvent.objects.get(pk=waiting.pk).next_attempt_at - (later - dt.timedelta(hours=1))) < (
        dt.timedelta(seconds=1)
    )
    _advance(api, by="PT2H")
    assert WebhookEvent.objects.get(pk=waiting.pk).next_attempt_at <= clock.base_now()  # due now
    assert WebhookEvent.objects.get(pk=leased.pk).next_attempt_at == leased_until  # its worker decides
    assert WebhookEvent.objects.get(pk=theirs.pk).next_attempt_at == later


def test_a_delayed_card_pull_confirms_by_the_platforms_clock(api):
    customer, account = cardholder(api, 10_000)
    card = issue(api, customer, account)
    assert authorize(api, card, 700, descriptor="HARDWARE STORE-005").status_code == 202
    txn = CardTransaction.objects.get(card_id=card["id"].split(":", 1)[1])
    assert api.get(f"/transactions/{txn.public_id}").json()["pullSummary"]["pendingCount"] == 1
    _advance(api, by="PT31S")
    assert api.get(f"/transactions/{txn.public_id}").json()["pullSummary"]["pendingCount"] == 0


def test_a_hosted_onboarding_link_lapses_by_its_platforms_clock(api, client):
    customer = create(api, individual("Jane 001"))
    link = api.post(f"/customers/{customer['id']}/kyc-link", {"redirectUri": "https://platform.example/done"})
    path = link.json()["kycUrl"].removeprefix("http://testserver")
    assert client.get(path).status_code in (200, 302)  # open: a step of the flow
    _advance(api, by="PT23H")
    assert client.get(path).status_code in (200, 302)
    _advance(api, by="PT1H1S")
    assert client.get(path).status_code == 410


def test_the_openapi_document_marks_the_clock_as_our_extension(client):
    document = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    paths = document["paths"]
    operations = [
        paths["/sandbox/clock"]["get"],
        paths["/sandbox/clock/advance"]["post"],
        paths["/sandbox/clock/reset"]["post"],
    ]
    for operation in operations:
        assert "not part of the reference" in operation["description"]
        assert "404" in operation["responses"]
    assert "400" in paths["/sandbox/clock/advance"]["post"]["responses"]


def test_an_authenticator_apps_real_code_still_works_on_a_moved_clock(api):
    customer, _ = consenting_customer(
        api.platform, address=EU_ADDRESS, phone_number=PHONE, email="erika@example.com"
    )
    _advance(api, by="P1D")
    started = api.post(sca_path("/sca/factors", customer), {"type": "TOTP"}).json()
    secret = started["secretBase32Encoded"]
    code = pyotp.TOTP(secret).at(dt.datetime.now(dt.UTC))  # the app's clock is real
    confirmed = api.post(
        sca_path("/sca/factors/confirm", customer), {"type": "TOTP", "secret": secret, "code": code}
    )
    assert confirmed.status_code == 200, confirmed.json()


def test_a_move_completes_a_wire_mint_whose_funds_fall_due_and_no_other_platforms(api, other_api):
    mints = {}
    for each in (api, other_api):
        coin = issuer(each)
        body = mint_body(coin, 100_000_000, "WIRE")
        mints[each] = each.post(f"/stablecoins/{coin['coin']}/mints", body, **keyed()).json()
    _advance(api, by=f"PT{int(FUNDS_ARRIVE.total_seconds()) - 1}S")
    assert StablecoinOperation.objects.get(pk=mints[api]["id"].split(":", 1)[1]).status == "PENDING_FUNDING"
    _advance(api, by="PT1S")
    # applied by the move itself, before any read or worker
    assert StablecoinOperation.objects.get(pk=mints[api]["id"].split(":", 1)[1]).status == "COMPLETED"
    assert stablecoin_operations_relay() == 0
    assert (
        other_api.get(f"/stablecoin-operations/{mints[other_api]['id']}").json()["status"]
        == "PENDING_FUNDING"
    )
    assert (supply(api.platform), supply(other_api.platform)) == (100_000_000, 0)
