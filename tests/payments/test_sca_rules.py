"""Property: whatever the order of right and wrong proofs, a held transfer is released exactly when
every challenge of its sequence got a right proof before the customer was locked out, and money
moves only then (the ledger's balance check runs after the test)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.accounts import account_balance
from payments.errors import BadRequest, Conflict, Locked
from payments.models import Quote, ScaProfile
from payments.quotes import QuoteRequest, quote_create, quote_execute
from payments.sca import ScaProof, quote_authorize, sca_login_complete, sca_login_start
from tests import factories
from tests.payments.money_support import consenting_customer, eur_external, funded_account, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE

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
