"""Property: whatever the order of right and wrong proofs, a held transfer is released exactly when
every challenge of its sequence got a right proof before the customer was locked out, and money
moves only then (the ledger's balance check runs after the test)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments import clock
from payments.accounts import account_balance
from payments.errors import BadRequest, Conflict, Locked
from payments.models import Quote, ScaProfile, ScaTotp
from payments.quotes import QuoteRequest, quote_create, quote_execute
from payments.sca import ScaProof, quote_authorize, sca_login_complete, sca_login_start
from tests import factories
from tests.payments.money_support import consenting_customer, eur_external, funded_account, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE, mid_step

pytestmark = pytest.mark.django_db

LOCK_AFTER = 5  # SCA_MAX_FAILED_ATTEMPTS


@pytest.fixture
def eu(db):
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
    payees = {True: eur_external(platform, customer), False: usd_external(platform, customer)}
    return platform, customer, funded_account(customer, 10_000_000), payees


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cross_currency=st.booleans(), attempts=st.lists(st.booleans(), max_size=9))
def test_release_happens_exactly_when_the_model_says(eu, cross_currency, attempts):
    platform, customer, source, payees = eu
    ScaProfile.objects.filter(customer=customer).update(failed_attempts=0, locked_until=None)
    balance = account_balance(source)
    request = QuoteRequest(
        source={"sourceType": "ACCOUNT", "accountId": source.public_id},
        destination={"destinationType": "ACCOUNT", "accountId": payees[cross_currency].public_id},
        locked_side="SENDING",
        locked_amount=1_000,
    )
    quote = quote_execute(platform=platform, quote_id=quote_create(platform=platform, request=request).pk)

    steps_left, wrong_in_a_row = (2 if cross_currency else 1), 0
    for right in attempts:
        code = SANDBOX_SCA_CODE if right else "000000"
        try:
            quote_authorize(platform=platform, quote_id=quote.pk, proof=ScaProof(code=code))
            outcome = "ok"
        except Locked:
            outcome = "locked"
        except Conflict:
            outcome = "conflict"
        except BadRequest:
            outcome = "wrong"
        if steps_left == 0:
            expected = "conflict"
        elif wrong_in_a_row >= LOCK_AFTER:
            expected = "locked"
        elif right:
            expected, steps_left, wrong_in_a_row = "ok", steps_left - 1, 0
        else:
            wrong_in_a_row += 1
            expected = "locked" if wrong_in_a_row >= LOCK_AFTER else "wrong"
        assert outcome == expected, (attempts, outcome, expected)

    quote.refresh_from_db()
    released = steps_left == 0
    assert (quote.status != Quote.Status.PENDING_AUTHORIZATION) == released
    assert account_balance(source) == balance - (quote.total_sending_amount if released else 0)


# --- TOTP codes ----------------------------------------------------------------------------------------


@pytest.fixture
def totp_customer(db, settings):
    import pyotp

    from payments.sca import sca_totp_enroll_confirm, sca_totp_enroll_start

    settings.SANDBOX, settings.PRODUCTION = False, True
    mid_step()  # and the test moves the clock by whole steps: no step changes under a request
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform, address=EU_ADDRESS, phone_number=PHONE)
    started = sca_totp_enroll_start(platform=platform, customer_id=customer.pk)
    totp = pyotp.TOTP(started.secret_base32)
    enrolled_step = totp.timecode(clock.now())
    code = totp.at(clock.now())
    sca_totp_enroll_confirm(platform=platform, customer_id=customer.pk, secret=started.secret, code=code)
    return platform, customer, totp, enrolled_step


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    submissions=st.lists(
        st.tuples(st.integers(min_value=0, max_value=3), st.integers(min_value=-3, max_value=3)), max_size=8
    )
)
def test_a_totp_code_is_accepted_exactly_when_it_is_in_the_window_and_newer_than_the_last(
    totp_customer, submissions
):
    """Each submission moves the clock by 0-3 steps, then sends the code of the step `offset` away
    from now. Model: accepted iff |offset| <= 1 and that step is later than the last accepted one."""
    platform, customer, totp, enrolled_step = totp_customer
    last = max(enrolled_step, ScaTotp.objects.get(customer=customer).last_used_step)
    for advance, offset in submissions:
        clock.advance(dt.timedelta(seconds=30 * advance))
        ScaProfile.objects.filter(customer=customer).update(failed_attempts=0, locked_until=None)
        step = totp.timecode(clock.now()) + offset
        code = totp.generate_otp(step)
        try:
            sca_login_complete(
                platform=platform,
                customer_id=customer.pk,
                factor="TOTP",
                challenge_id=None,
                proof=ScaProof(code=code),
            )
            accepted = True
        except BadRequest:
            accepted = False
        assert accepted == (abs(offset) <= 1 and step > last), (advance, offset, step, last)
        if accepted:
            last = step
