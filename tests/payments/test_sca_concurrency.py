"""Concurrency on PostgreSQL: concurrent authorizations of one SCA challenge satisfy it once, and
release the transfer (one debit) once, with the ledger balanced."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.accounts import account_balance
from payments.errors import BadRequest, Conflict, Locked
from payments.models import LedgerJournal, Quote, ScaChallenge
from payments.quotes import QuoteRequest, quote_create, quote_execute
from payments.sca import ScaProof, quote_authorize, sca_login_complete, sca_login_start
from tests import factories
from tests.payments.money_support import consenting_customer, eur_external, funded_account, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 8


def _in_thread(work):
    def run(*args):
        try:
            return work(*args)
        finally:
            connection.close()

    return run


@pytest.fixture
def eu():
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform, address=EU_ADDRESS, phone_number=PHONE)
    started = sca_login_start(platform=platform, customer_id=customer.pk, factor="SMS_OTP")
    sca_login_complete(
        platform=platform,
        customer_id=customer.pk,
        factor="SMS_OTP",
        challenge_id=started.challenge_id,
        proof=ScaProof(code=SANDBOX_SCA_CODE),
    )
    return platform, customer, funded_account(customer, 1_000_000)


def _held(platform, source, payee, amount=10_000) -> Quote:
    request = QuoteRequest(
        source={"sourceType": "ACCOUNT", "accountId": source.public_id},
        destination={"destinationType": "ACCOUNT", "accountId": payee.public_id},
        locked_side="SENDING",
        locked_amount=amount,
    )
    quote = quote_create(platform=platform, request=request)
    held = quote_execute(platform=platform, quote_id=quote.pk)
    assert held.status == Quote.Status.PENDING_AUTHORIZATION
    return held


def _race(platform, quote, calls: int) -> Counter:
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def authorize(i):
        if i < WORKERS:
            barrier.wait(timeout=10)
        try:
            quote_authorize(platform=platform, quote_id=quote.pk, proof=ScaProof(code=SANDBOX_SCA_CODE))
            return "ok"
        except Conflict:
            return "conflict"
        except (BadRequest, Locked) as exc:
            return exc.code

    with ThreadPoolExecutor(WORKERS) as pool:
        return Counter(pool.map(authorize, range(calls)))


def test_concurrent_authorizations_of_one_challenge_release_the_transfer_once(eu):
    platform, customer, source = eu
    quote = _held(platform, source, usd_external(platform, customer))
    outcomes = _race(platform, quote, 40)
    assert outcomes == {"ok": 1, "conflict": 39}
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1
    assert account_balance(source) == 1_000_000 - quote.total_sending_amount
    assert ScaChallenge.objects.filter(quote_id=quote.pk, status="VERIFIED").count() == 1


def test_a_two_step_sequence_is_walked_once_under_concurrent_authorizations(eu):
    platform, customer, source = eu
    quote = _held(platform, source, eur_external(platform, customer))
    # The sandbox code satisfies whichever challenge is current: two calls win, one per step.
    outcomes = _race(platform, quote, 40)
    assert outcomes == {"ok": 2, "conflict": 38}
    verified = ScaChallenge.objects.filter(quote_id=quote.pk, status="VERIFIED").order_by("step")
    assert [c.purpose for c in verified] == ["CURRENCY_CONVERSION", "PAYOUT"]
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1
    assert account_balance(source) == 1_000_000 - quote.total_sending_amount


def test_the_same_totp_code_sent_at_once_is_accepted_once(eu, settings):
    """Production mode, a real code: of eight concurrent SCA logins with it, one wins; the others
    are refused as a replay, or locked out once the replays count five (the profile's row lock
    serializes the checks)."""
    import pyotp

    from payments import clock
    from payments.sca import sca_totp_enroll_confirm, sca_totp_enroll_start

    settings.SANDBOX, settings.PRODUCTION = False, True
    platform, customer, _ = eu
    started = sca_totp_enroll_start(platform=platform, customer_id=customer.pk)
    totp = pyotp.TOTP(started.secret_base32)
    enrolled_at = clock.now()
    sca_totp_enroll_confirm(
        platform=platform, customer_id=customer.pk, secret=started.secret, code=totp.at(enrolled_at)
    )
    code = totp.at(enrolled_at.timestamp() + 30)  # the next step's code: new, within the drift
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def login(_):
        barrier.wait(timeout=10)
        try:
            sca_login_complete(
                platform=platform,
                customer_id=customer.pk,
                factor="TOTP",
                challenge_id=None,
                proof=ScaProof(code=code),
            )
            return "ok"
        except (BadRequest, Locked) as exc:
            return (exc.details or {}).get("reason", exc.code)

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = Counter(pool.map(login, range(WORKERS)))
    # The refusals count as failed attempts: the fifth locks the customer out for the rest.
    assert outcomes["ok"] == 1 and set(outcomes) <= {"ok", "CODE_ALREADY_USED", "ACCOUNT_LOCKED"}
    assert outcomes["CODE_ALREADY_USED"] >= 4
