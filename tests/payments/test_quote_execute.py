"""POST /quotes/{id}/execute: the transfer starts once, idempotently, before expiry, within funds and
limits; an embedded-wallet source needs a stamp over the quote's payloadToSign."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings

from payments import clock
from payments.accounts import account_balance
from payments.client import wallet_crypto as client
from payments.models import LedgerJournal, Quote, Transaction, WebhookEvent
from tests import factories
from tests.conftest import Api
from tests.payments.money_support import (
    consenting_customer,
    fund,
    funded_account,
    key,
    quote_body,
    usd_external,
)
from tests.wallets.conftest import wallet_for
from wallets.models import AuthCredential, AuthSession
from wallets.sessions import session_open

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(api):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 100_000)
    payee = usd_external(api.platform, customer)
    response = api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000))
    assert response.status_code == 201, response.content
    return response.json()


def _execute(api, quote, **headers):
    return api.post(f"/quotes/{quote['id']}/execute", **headers)


def _source(quote):
    return Quote.objects.get(pk=quote["id"].split(":", 1)[1]).source_internal_account


def test_execute_debits_the_source_and_starts_the_payout(api, quote):
    response = _execute(api, quote)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == quote["id"] and body["status"] == "PROCESSING"
    assert body["transactionId"] == quote["transactionId"]
    assert account_balance(_source(quote)) == 90_000
    events = list(WebhookEvent.objects.order_by("created_at").values_list("type", flat=True))
    assert "OUTGOING_PAYMENT.PROCESSING" in events
    # "Completes at once": the next read shows it, without any worker.
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["status"] == "COMPLETED" and txn["settledAt"]
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.COMPLETED").count() == 1


def test_execute_with_a_body_asking_for_an_sca_factor_is_accepted(api, quote):
    assert api.post(f"/quotes/{quote['id']}/execute", {"scaFactor": "SMS_OTP"}).status_code == 200


def test_the_same_idempotency_key_returns_the_first_outcome(api, quote):
    first = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-1"))
    again = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-1"))
    assert first.status_code == again.status_code == 200
    assert again.json()["transactionId"] == first.json()["transactionId"]
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1
    assert account_balance(_source(quote)) == 90_000


def test_another_key_or_no_key_on_an_executed_quote_is_a_409(api, quote):
    assert _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-1")).status_code == 200
    other = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("pay-2"))
    assert other.status_code == 409
    assert other.json()["code"] == "CONFLICT"
    assert "was already executed" in other.json()["message"]
    assert _execute(api, quote).status_code == 409
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1


def test_executing_after_expiry_is_refused_and_the_quote_expires(api, quote):
    clock.advance(dt.timedelta(minutes=30, seconds=1))
    response = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("late"))
    assert response.status_code == 409
    assert "expired" in response.json()["message"]
    assert response.json()["details"]["status"] == "EXPIRED"
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "EXPIRED"
    assert api.get(f"/transactions/{quote['transactionId']}").json()["status"] == "EXPIRED"
    assert WebhookEvent.objects.filter(type="OUTGOING_PAYMENT.EXPIRED").count() == 1
    assert account_balance(_source(quote)) == 100_000


def test_just_before_expiry_still_executes(api, quote):
    clock.advance(dt.timedelta(minutes=29, seconds=59))
    assert _execute(api, quote).status_code == 200


def test_insufficient_funds_changes_nothing_and_the_same_key_sends_once_funded(api):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 5_000)
    payee = usd_external(api.platform, customer)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
    response = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("try"))
    assert response.status_code == 400 and response.json()["code"] == "INSUFFICIENT_FUNDS"
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
    fund(source, 5_000)
    # Nothing moved, so the refusal keeps no answer: the same key (one per Confirm) now sends.
    sent = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("try"))
    assert sent.status_code == 200
    replay = _execute(api, quote, HTTP_IDEMPOTENCY_KEY=key("try"))
    assert (replay.status_code, replay.content) == (200, sent.content)
    assert account_balance(source) == 0


def test_the_daily_volume_limit_answers_429_until_midnight(api, settings):
    settings.DAILY_VOLUME_LIMIT_USD_CENTS = 25_000
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 1_000_000)
    payee = usd_external(api.platform, customer)
    quotes = [
        api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json() for _ in range(3)
    ]
    assert _execute(api, quotes[0]).status_code == 200
    assert _execute(api, quotes[1]).status_code == 200
    refused = _execute(api, quotes[2])
    assert refused.status_code == 429
    assert refused.json()["code"] == "DAILY_VOLUME_LIMIT_EXCEEDED"
    assert 0 < int(refused["Retry-After"]) <= 86_400 + 1
    api.platform.daily_volume_limit = 30_000  # the platform's own limit takes precedence
    api.platform.save()
    assert _execute(api, quotes[2]).status_code == 200


def test_failed_transfers_do_not_count_towards_the_daily_volume(api, settings):
    settings.DAILY_VOLUME_LIMIT_USD_CENTS = 15_000
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 1_000_000)
    failing = usd_external(api.platform, customer, account_number="1111111002")
    payee = usd_external(api.platform, customer)
    first = api.post("/quotes", quote_body(source.public_id, failing.public_id, 10_000)).json()
    assert _execute(api, first).status_code == 200
    assert api.get(f"/transactions/{first['transactionId']}").json()["status"] == "FAILED"
    second = api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
    assert _execute(api, second).status_code == 200


def test_a_token_without_transact_cannot_execute(quote, api):
    token, secret = factories.api_token(platform=api.platform, permissions=["VIEW"])
    viewer = Api(api.platform, token, secret)
    response = viewer.post(f"/quotes/{quote['id']}/execute")
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"
    assert viewer.get(f"/quotes/{quote['id']}").status_code == 200


def test_another_platforms_quote_is_404(other_api, quote):
    response = other_api.post(f"/quotes/{quote['id']}/execute")
    assert response.status_code == 404 and response.json()["code"] == "QUOTE_NOT_FOUND"


def test_a_realtime_funded_quote_is_not_executed_but_paid(api):
    quote = api.post(
        "/quotes",
        {
            "source": {"sourceType": "REALTIME_FUNDING", "currency": "USD"},
            "destination": {
                "destinationType": "UMA_ADDRESS",
                "umaAddress": "$success.usd@sandbox.uma.example",
            },
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 1_000,
        },
    ).json()
    response = _execute(api, quote)
    assert response.status_code == 400 and "/sandbox/send" in response.json()["message"]


# --- embedded wallets: Service-Wallet-Signature over payloadToSign ---------------------------------


@pytest.fixture
def wallet_quote(api):
    """A funded Global Account, a quote from it, and the wallet's driver."""
    wallet = wallet_for(api)
    wallet.customer.terms_accepted_at = clock.now()
    wallet.customer.save()
    fund(wallet.account, 50_000_000)  # 50 USDC
    payee = usd_external(api.platform, wallet.customer)
    quote = api.post("/quotes", quote_body(wallet.account_id, payee.public_id, 10_000_000)).json()
    payload = quote["paymentInstructions"][0]["accountOrWalletInfo"]["payloadToSign"]
    return wallet, quote, payload


def _stamped(api, quote, header):
    return api.post(f"/quotes/{quote['id']}/execute", HTTP_SERVICE_WALLET_SIGNATURE=header)


def test_an_embedded_wallet_executes_with_a_stamp_by_its_session_key(api, wallet_quote):
    wallet, quote, payload = wallet_quote
    session_key, _session = wallet.otp_login()  # a real OTP login: the TEK is the session key
    response = _stamped(api, quote, client.stamp(payload, session_key.private_key_hex))
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "PROCESSING"
    assert account_balance(wallet.account) == 40_000_000


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "WALLET_SIGNATURE_MISSING"),
        ("not-a-stamp", "WALLET_SIGNATURE_MALFORMED"),
    ],
)
def test_a_missing_or_malformed_stamp_is_401(api, wallet_quote, header, code):
    wallet, quote, _payload = wallet_quote
    response = api.post(
        f"/quotes/{quote['id']}/execute", **({"HTTP_SERVICE_WALLET_SIGNATURE": header} if header else {})
    )
    assert response.status_code == 401 and response.json()["code"] == code
    assert account_balance(wallet.account) == 50_000_000
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"


def _session_key(account):
    key = client.generate_key_pair()
    session_open(
        credential=AuthCredential.objects.get(account=account),
        client_public_key=key.public_key_hex_compressed,
    )
    return key


def test_a_stamp_over_another_payload_is_401(api, wallet_quote):
    wallet, quote, payload = wallet_quote
    key = _session_key(wallet.account)
    response = _stamped(api, quote, client.stamp(payload.replace("10000000", "1"), key.private_key_hex))
    assert response.status_code == 401 and response.json()["code"] == "WALLET_SIGNATURE_INVALID"


def test_a_stamp_by_a_key_without_an_active_session_is_401(api, wallet_quote):
    wallet, quote, payload = wallet_quote
    stranger = client.generate_key_pair()
    response = _stamped(api, quote, client.stamp(payload, stranger.private_key_hex))
    assert response.status_code == 401 and response.json()["code"] == "WALLET_SIGNATURE_INVALID"
    key = _session_key(wallet.account)
    AuthSession.objects.filter(account=wallet.account).update(revoked_at=clock.now())
    response = _stamped(api, quote, client.stamp(payload, key.private_key_hex))
    assert response.status_code == 401 and response.json()["code"] == "WALLET_SIGNATURE_INVALID"


def test_a_stamp_by_another_wallets_session_is_401(api, wallet_quote):
    _wallet, quote, payload = wallet_quote
    other = wallet_for(api)
    key = _session_key(other.account)
    response = _stamped(api, quote, client.stamp(payload, key.private_key_hex))
    assert response.status_code == 401 and response.json()["code"] == "WALLET_SIGNATURE_INVALID"


def test_an_expired_session_no_longer_signs(api, wallet_quote, settings):
    wallet, quote, payload = wallet_quote
    key = _session_key(wallet.account)
    clock.advance(dt.timedelta(seconds=settings.WALLET_SESSION_SECONDS + 1))
    response = _stamped(api, quote, client.stamp(payload, key.private_key_hex))
    assert response.status_code == 401 and response.json()["code"] == "WALLET_SIGNATURE_INVALID"


def test_the_legacy_literal_is_accepted_in_sandbox_only(api, wallet_quote):
    _wallet, quote, _payload = wallet_quote
    with override_settings(SANDBOX=False, PRODUCTION=True):
        refused = _stamped(api, quote, "sandbox-valid-signature")
    assert refused.status_code == 401
    assert _stamped(api, quote, "sandbox-valid-signature").status_code == 200


def test_a_replay_with_its_key_needs_no_new_stamp(api, wallet_quote):
    wallet, quote, payload = wallet_quote
    session = _session_key(wallet.account)
    headers = {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(payload, session.private_key_hex),
        "HTTP_IDEMPOTENCY_KEY": key("w1"),
    }
    assert api.post(f"/quotes/{quote['id']}/execute", **headers).status_code == 200
    assert api.post(f"/quotes/{quote['id']}/execute", HTTP_IDEMPOTENCY_KEY=key("w1")).status_code == 200
    assert Transaction.objects.filter(status__in=["PROCESSING", "COMPLETED"]).count() == 1


def test_what_changed_since_the_quote_is_checked_again(api, quote):
    from payments.models import Customer, InternalAccount

    source = _source(quote)
    InternalAccount.objects.filter(pk=source.pk).update(status=InternalAccount.Status.FROZEN)
    frozen = _execute(api, quote)
    assert frozen.status_code == 400 and "FROZEN" in frozen.json()["message"]
    InternalAccount.objects.filter(pk=source.pk).update(status=InternalAccount.Status.ACTIVE)
    Customer.objects.filter(pk=source.customer_id).update(status=Customer.Status.HOLD)
    held = _execute(api, quote)
    assert held.status_code == 403 and held.json()["code"] == "USER_NOT_READY"
    Customer.objects.filter(pk=source.customer_id).update(status=Customer.Status.APPROVED)
    assert _execute(api, quote).status_code == 200


def test_an_idempotency_key_longer_than_255_characters_is_refused(api):
    response = api.post(
        "/quotes/Quote:01a20122-f0e3-70f7-afba-63a9ce5cb6ab/execute", {}, HTTP_IDEMPOTENCY_KEY=key("k") * 256
    )
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "Idempotency-Key"
