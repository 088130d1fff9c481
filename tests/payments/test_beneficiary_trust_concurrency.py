"""Concurrency on PostgreSQL: confirms of one trust change racing each other set the trust once; a
trust confirm racing a delete of the account leaves either a trusted live account or a deleted
untrusted one, never a deleted trusted one."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.errors import ServiceError
from payments.external_accounts import external_account_delete
from payments.models import ExternalAccount, ScaChallenge, ScaProfile
from payments.sca import ScaProof
from payments.sca.trust import beneficiary_trust_confirm, beneficiary_trust_start
from tests import factories
from tests.payments.money_support import consenting_customer, usd_external
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 6


def _race(*calls) -> list[str]:
    barrier = threading.Barrier(len(calls))

    def run(call):
        try:
            barrier.wait(timeout=10)
            call()
            return "ok"
        except ServiceError as exc:
            return exc.details.get("reason") or exc.code
        finally:
            connection.close()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


@pytest.fixture
def payee():
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform, address=EU_ADDRESS, phone_number=PHONE)
    return platform, usd_external(platform, customer)


def test_concurrent_confirms_of_one_challenge_trust_once(payee):
    platform, account = payee
    challenge = beneficiary_trust_start(platform=platform, account_id=account.pk, trusted=True)

    def confirm():
        beneficiary_trust_confirm(
            platform=platform,
            account_id=account.pk,
            trusted=True,
            challenge_id=challenge.id,
            proof=ScaProof(code=SANDBOX_SCA_CODE),
        )

    outcomes = Counter(_race(*[confirm] * WORKERS))
    assert outcomes == {"ok": 1, "NO_CHALLENGE_PENDING": WORKERS - 1}
    stored = ExternalAccount.objects.get(pk=account.pk)
    verified = ScaChallenge.objects.get(kind="TRUST")
    assert verified.status == "VERIFIED" and stored.sca_trusted_at == verified.verified_at
    assert ScaProfile.objects.get().failed_attempts == 0


def test_a_trust_confirm_racing_a_delete_never_leaves_a_deleted_trusted_account(payee):
    platform, account = payee
    for _ in range(3):
        ExternalAccount.objects.filter(pk=account.pk).update(
            deleted_at=None, status="ACTIVE", sca_trusted_at=None
        )
        challenge = beneficiary_trust_start(platform=platform, account_id=account.pk, trusted=True)
        outcomes = _race(
            lambda challenge_id=challenge.id: beneficiary_trust_confirm(
                platform=platform,
                account_id=account.pk,
                trusted=True,
                challenge_id=challenge_id,
                proof=ScaProof(code=SANDBOX_SCA_CODE),
            ),
            lambda: external_account_delete(platform=platform, account_id=account.pk),
        )
        stored = ExternalAccount.objects.get(pk=account.pk)
        assert not (stored.deleted_at and stored.sca_trusted_at), outcomes
        assert outcomes in (["ok", "BENEFICIARY_TRUSTED"], ["NOT_FOUND", "ok"]), outcomes
