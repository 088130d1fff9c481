"""Schemathesis over our own OpenAPI document (#13): every operation, positive and negative data, a
fixed seed, a bounded number of requests, in-process on the test database (SQLite or PostgreSQL).

No answer may be a 5xx, and every answer must be one the document declares for the operation: its
status, its content type and its body schema. The platform authenticates with a real API token, and
ids in paths, queries and bodies are swapped for ids of records made here (most of the time), so
operations reach real customers, accounts, quotes and transactions rather than only 404s."""

from __future__ import annotations

import collections
import os
import time
import zlib
from contextlib import contextmanager
from typing import Any

import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from payments.api.openapi import id_kind
from tests import factories
from tests.conftest import basic
from tests.payments.kyc_support import business, create, individual, owner, upload
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external
from tests.wallets.conftest import Wallet

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
# Per operation and mode: about 3,900 requests. FUZZ_EXAMPLES=200 for a deeper run by hand.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
SEED = 20251013
# Ids that queries and bodies carry, by field name (paths: the document's id_kind).
FIELD_KINDS = {
    "customerId": ("Customer",),
    "accountId": ("InternalAccount", "ExternalAccount"),
    "quoteId": ("Quote",),
    "transactionId": ("Transaction",),
    "cardTransactionId": ("CardTransaction",),
    "cardholderId": ("Customer",),
    "documentHolder": ("Customer", "BeneficialOwner"),
    "externalAccountId": ("ExternalAccount",),
}


@contextmanager
def _requests_keep_the_test_transaction():
    """Django's WSGI handler closes a connection inside a transaction at each request (PostgreSQL);
    the test's transaction must survive the requests, as Django's test client arranges for its own
    (and undoes after each of them, so this wraps only the run)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _seed_records(api) -> dict[str, list[str]]:
    """One of most things an integrator makes, by id kind."""
    person, wallet_account = consenting_customer(api.platform, full_name="Fuzz Person")
    source = funded_account(person, 10**9)
    payee = usd_external(api.platform, person)
    platform_payee = usd_external(api.platform, None, account_number="1234567890")
    company = create(api, business())
    beneficial_owner = api.post("/beneficial-owners", owner(company["id"])).json()
    document = upload(api, person.public_id).json()
    verification = api.post("/verifications", {"customerId": company["id"]}).json()
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    executed = api.post("/quotes", quote_body(source.public_id, payee.public_id, 2_000)).json()
    transaction = api.post(f"/quotes/{executed['id']}/execute").json()
    wallet = Wallet(api=api, customer=person, account=wallet_account)
    credential_id = wallet.credential_id()
    _key, session = wallet.otp_login(credential_id)
    spare_token, _secret = factories.api_token(platform=api.platform, name="Spare")  # never the caller's
    other = create(api, individual("Other Person"))
    card = api.post(
        "/cards", {"cardholderId": person.public_id, "form": "VIRTUAL", "fundingSources": [source.public_id]}
    ).json()
    simulated = {"amount": 500, "currency": {"code": "USD"}, "merchant": {"descriptor": "FUZZ SHOP"}}
    api.post(f"/sandbox/cards/{card['id']}/simulate/authorization", simulated)
    card_transaction = api.get("/transactions", {"type": "CARD"}).json()["data"][0]
    return {
        "Customer": [person.public_id, company["id"], other["id"]],
        "InternalAccount": [source.public_id, wallet_account.public_id],
        "ExternalAccount": [payee.public_id, platform_payee.public_id],
        "BeneficialOwner": [beneficial_owner["id"]],
        "Document": [document["id"]],
        "Verification": [verification["id"]],
        "Quote": [quote["id"], executed["id"]],
        "Transaction": [transaction["id"]],
        "Card": [card["id"]],
        "CardTransaction": [card_transaction["id"]],
        "AuthMethod": [credential_id],
        "Session": [session["id"]],
        "Token": [spare_token.public_id],
    }


def _pick(generated: Any, kinds: tuple[str, ...], records: dict[str, list[str]]) -> Any:
    """A seeded id of one of `kinds` for three values in four, the generated value otherwise; chosen
    by the generated value, so a run is repeatable."""
    choices = [record for kind in kinds for record in records.get(kind, [])]
    if not choices:
        return generated
    slot = zlib.crc32(repr(generated).encode()) % (len(choices) * 4 // 3 + 1)
    return choices[slot] if slot < len(choices) else generated


def _swap_ids(value: Any, records: dict[str, list[str]]) -> Any:
    if isinstance(value, dict):
        return {
            key: _pick(sub, FIELD_KINDS[key], records)
            if key in FIELD_KINDS and isinstance(sub, str)
            else _swap_ids(sub, records)
            for key, sub in value.items()
        }
    if isinstance(value, list):
        return [_swap_ids(sub, records) for sub in value]
    return value


def _use_seeded_ids(case, records: dict[str, list[str]]) -> None:
    for name, value in (case.path_parameters or {}).items():
        kind = id_kind(case.operation.path, name)
        if kind:
            case.path_parameters[name] = _pick(value, tuple(kind.split("|")), records)
    if case.query:
        case.query = _swap_ids(case.query, records)
    if isinstance(case.body, dict):
        case.body = _swap_ids(case.body, records)


def test_every_operation_answers_what_the_document_says(api):
    records = _seed_records(api)
    with _requests_keep_the_test_transaction():
        _fuzz(api, records)


def _fuzz(api, records: dict[str, list[str]]) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/2025-10-13/openapi.yaml", get_wsgi_application())
    auth = {"Authorization": basic(api.token.client_id, api.secret)}
    failures: dict[str, list[str]] = collections.defaultdict(list)
    counts: collections.Counter = collections.Counter()
    operations = sorted(
        (result.ok() for result in schema.get_all_operations()),
        key=lambda op: (op.method.upper() == "DELETE", op.path, op.method),  # deletions last
    )
    started = time.monotonic()

    def exercise(case) -> None:
        _use_seeded_ids(case, records)
        response = case.call(headers=auth)
        counts["requests"] += 1
        counts[f"{response.status_code // 100}xx"] += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=auth)
        except FailureGroup as group:
            for failure in group.exceptions:
                found = failures[f"{case.operation.label}: {failure.title}"]
                if len(found) < 2:
                    found.append(
                        f"{response.status_code} {failure.message[:600]}\n    {case.as_curl_command()[:600]}"
                    )

    for operation in operations:
        for mode in MODES:
            run = seed(SEED)(
                settings(
                    max_examples=EXAMPLES,
                    database=None,
                    deadline=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )(given(case=operation.as_strategy(generation_mode=mode))(exercise))
            )
            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE, operation.label  # nothing in it can be made invalid
    elapsed = time.monotonic() - started
    print(f"\nschemathesis: {dict(counts)} in {elapsed:.0f} s, {len(failures)} distinct failures")
    report = "\n".join(f"{key}\n  " + "\n  ".join(cases) for key, cases in sorted(failures.items()))
    assert not failures, report
    assert counts["5xx"] == 0
    assert counts["2xx"] > counts["requests"] // 10, "the seeded records should make many requests succeed"
