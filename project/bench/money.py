"""Bench: quotes, execute and the transaction list. Runs in the bench runner (Django set up, the service's
database, PostgreSQL).

What can be measured how:

- `POST /quotes` repeats as is (every request makes a new quote) and `GET /quotes/{id}` reads one quote.
- `POST /quotes/{id}/execute` starts a transfer once; wrk replays one request, which would be a 409
  from the second request on. So many quotes are prepared (cloned in bulk from one real quote, each
  with its own transaction, spread over many funded source accounts so no single balance row is the
  bottleneck) and a Lua script hands each request the next unexecuted quote id. Each wrk process
  starts where the previous one (the warm-up) stopped: the script keeps the offset in a file.
  Idempotency-Key replays would be repeatable too, but they measure a read, not an execute.
- The embedded-wallet execute is the same with a real stamp per quote (its payloadToSign signed by an
  active session key of the source wallet), so its ratio to the plain execute is the stamp's cost.
- `GET /transactions` is measured on a platform with 1,000,000 transactions and on one with 1,000;
  both are seeded once with one `generate_series` INSERT each and reused by later runs. The million
  is also listed with `type=INCOMING`, which none of them is.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from pathlib import Path

API = "/api/2025-10-13"
SOURCES = 48  # funded source accounts the execute quotes are spread over
EXECUTE_QUOTES = 15_000
WRK_THREADS = 2  # project/bench/run.py runs wrk -t2


def _platform(creds: dict):
    from payments.models import ApiToken

    return ApiToken.objects.select_related("platform").get(client_id=creds["clientId"]).platform


def _customer(platform, tag: str):
    from payments import clock
    from payments.models import Customer

    return Customer.objects.create(
        platform=platform,
        customer_type=Customer.Type.INDIVIDUAL,
        platform_customer_id=f"bench-{tag}",
        uma_address=f"$bench{tag}@sandbox.uma.example",
        email=f"bench-{tag}@example.com",
        full_name="Bench Sender",
        status=Customer.Status.APPROVED,
        terms_accepted_at=clock.now(),
        terms_ip_address="203.0.113.1",
        terms_version="2025-10-01",
        terms_acceptance_method=Customer.AcceptanceMethod.CHECKBOX,
    )


def _funded_sources(platform, count: int, *, embedded: bool = False) -> list:
    from payments.models import InternalAccount
    from payments.sandbox import sandbox_fund

    accounts = []
    for _ in range(count):
        customer = _customer(platform, secrets.token_hex(6))
        account = InternalAccount.objects.create(
            platform=platform,
            customer=customer,
            type=InternalAccount.Type.EMBEDDED_WALLET if embedded else InternalAccount.Type.INTERNAL_FIAT,
            currency="USDC" if embedded else "USD",
        )
        sandbox_fund(platform=platform, account_id=account.pk, amount=10**11)
        accounts.append(account)
    return accounts


def _payee(platform, customer):
    from payments.external_accounts import external_account_create

    return external_account_create(
        platform=platform,
        currency="USD",
        customer_id=customer.pk,
        account_info={
            "accountType": "USD_ACCOUNT",
            # Ends in 001: the sandbox's plain success (002-007 script failures and delays).
            "accountNumber": "55" + str(secrets.randbelow(10**5)).zfill(5) + "001",
            "routingNumber": "021000021",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Bench Payee"},
        },
    )


def _quote(platform, source, payee, amount: int):
    from payments.quotes import QuoteRequest, quote_create

    return quote_create(
        platform=platform,
        request=QuoteRequest(
            source={"sourceType": "ACCOUNT", "accountId": source.public_id},
            destination={"destinationType": "ACCOUNT", "accountId": payee.public_id},
            locked_side="SENDING",
            locked_amount=amount,
        ),
    )


def _headers(creds: dict) -> dict[str, str]:
    from project.bench.cases import basic_auth

    return {**basic_auth(creds), "Content-Type": "application/json"}


# --- POST /quotes and GET /quotes/{id} ----------------------------------------------------------------


def quote_create_load(creds: dict):
    from project.bench.cases import Load

    platform = _platform(creds)
    (source,) = _funded_sources(platform, 1)
    payee = _payee(platform, source.customer)
    body = json.dumps(
        {
            "source": {"sourceType": "ACCOUNT", "accountId": source.public_id},
            "destination": {"destinationType": "ACCOUNT", "accountId": payee.public_id},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
        }
    )
    return Load("POST", f"{API}/quotes", body, _headers(creds))


def quote_get_load(creds: dict):
    from project.bench.cases import Load, basic_auth

    platform = _platform(creds)
    (source,) = _funded_sources(platform, 1)
    quote = _quote(platform, source, _payee(platform, source.customer), 10_000)
    return Load("GET", f"{API}/quotes/{quote.public_id}", headers=basic_auth(creds))


# --- POST /quotes/{id}/execute, plain and stamped ---------------------------------------------------


def _clones(template, sources, count: int, *, sign=None) -> list[tuple[str, str]]:
    """`count` PENDING quotes like `template` (each with its transaction), round-robin over `sources`;
    returns (quote id, stamp or "") pairs. `sign(payload, source)` stamps embedded-wallet quotes."""
    from payments import ids
    from payments.models import Quote, Transaction
    from payments.payment_instructions import embedded_wallet_payload, payment_instruction
    from payments.transactions import transaction_reference

    txn_template = template.transaction
    quote_fields = {f.attname: getattr(template, f.attname) for f in Quote._meta.concrete_fields}
    txn_fields = {f.attname: getattr(txn_template, f.attname) for f in Transaction._meta.concrete_fields}
    quotes, txns, out = [], [], []
    for i in range(count):
        source = sources[i % len(sources)]
        quote_id, txn_id = ids.uuid7(), ids.uuid7()
        public_quote = ids.render("Quote", quote_id)
        quote = Quote(**quote_fields)
        quote.id = quote_id
        quote.source_internal_account_id = source.pk
        quote.customer_id = source.customer_id
        quote.source = {**template.source, "accountId": source.public_id}
        stamp = ""
        if sign is not None:
            payload = embedded_wallet_payload(
                quote_id=public_quote,
                source_account_id=source.public_id,
                destination=template.destination,
                sending={"amount": template.total_sending_amount, "currency": template.sending_currency},
                receiving={
                    "amount": template.total_receiving_amount,
                    "currency": template.receiving_currency,
                },
                expires_at=template.expires_at.isoformat(),
                nonce=secrets.token_bytes(12),
            )
            quote.payload_to_sign = payload
            quote.payment_instructions = [
                payment_instruction(
                    {"accountType": "EMBEDDED_WALLET", "payloadToSign": payload},
                    notes="",
                    is_platform_account=False,
                )
            ]
            stamp = sign(payload, source)
        txn = Transaction(**txn_fields)
        txn.id = txn_id
        txn.quote_id = quote_id
        txn.reference = transaction_reference(txn_id)
        txn.customer_id = source.customer_id
        txn.platform_customer_id = source.customer.platform_customer_id
        txn.source = {**txn_template.source, "accountId": source.public_id}
        txn.sender_identifier = source.public_id
        txn.source_internal_account_id = source.pk
        quotes.append(quote)
        txns.append(txn)
        out.append((public_quote, stamp))
    Quote.objects.bulk_create(quotes, batch_size=2000)
    Transaction.objects.bulk_create(txns, batch_size=2000)
    return out


_LUA = """
local ids = {IDS}
local stamps = {STAMPS}
local headers = {HEADERS}
local state = "{STATE}"
local threads = 0

function setup(thread)
  local offset = 0
  local f = io.open(state, "r")
  if f then offset = tonumber(f:read("*a")) or 0; f:close() end
  thread:set("base", offset)
  thread:set("tid", threads)
  threads = threads + 1
end

n = 0
function request()
  local i = (base + n * {THREADS} + tid) % #ids + 1
  n = n + 1
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  if #stamps > 0 then h["Service-Wallet-Signature"] = stamps[i] end
  return wrk.format("POST", "{PREFIX}" .. ids[i] .. "/execute", h, "")
end

function done(summary, latency, requests)
  local offset = 0
  local f = io.open(state, "r")
  if f then offset = tonumber(f:read("*a")) or 0; f:close() end
  f = io.open(state, "w")
  f:write(tostring(offset + summary.requests + 1000))
  f:close()
end
"""


def _lua_list(values: list[str]) -> str:
    return "{" + ",".join(json.dumps(v) for v in values) + "}"


def _execute_script(creds: dict, pairs: list[tuple[str, str]], *, stamped: bool) -> str:
    state = Path(tempfile.mkdtemp(prefix="bench-execute-")) / "offset"
    headers = "{" + ",".join(f'["{k}"]={json.dumps(v)}' for k, v in _headers(creds).items()) + "}"
    return (
        _LUA.replace("{IDS}", _lua_list([quote_id for quote_id, _ in pairs]))
        .replace("{STAMPS}", _lua_list([stamp for _, stamp in pairs]) if stamped else "{}")
        .replace("{HEADERS}", headers)
        .replace("{STATE}", str(state))
        .replace("{THREADS}", str(WRK_THREADS))
        .replace("{PREFIX}", f"{API}/quotes/")
    )


def execute_load(creds: dict):
    from project.bench.cases import Load

    platform = _platform(creds)
    sources = _funded_sources(platform, SOURCES)
    payee = _payee(platform, sources[0].customer)
    template = _quote(platform, sources[0], payee, 100)
    pairs = _clones(template, sources, EXECUTE_QUOTES)
    return Load("POST", f"{API}/quotes/", lua=_execute_script(creds, pairs, stamped=False))


def execute_webhooks_load(creds: dict):
    """Like execute_load, on a platform with a webhook endpoint: each execute records an event and its
    commit queues a delivery task (nothing listens at the endpoint; no worker runs meanwhile)."""
    from payments.models import Platform
    from payments.platforms import platform_create

    platform, token, secret = platform_create(name="Benchmark platform (webhooks)")
    Platform.objects.filter(pk=platform.pk).update(webhook_endpoint="http://127.0.0.1:9/webhooks")
    return execute_load({"clientId": token.client_id, "clientSecret": secret})


def stamped_execute_load(creds: dict):
    from payments.client import wallet_crypto as client
    from project.bench.cases import Load
    from wallets.models import AuthCredential
    from wallets.sessions import session_open

    platform = _platform(creds)
    wallets = _funded_sources(platform, SOURCES, embedded=True)
    keys = {}
    for wallet in wallets:  # each Global Account starts with its EMAIL_OTP credential; open a session on it
        key = client.generate_key_pair()
        session_open(
            credential=AuthCredential.objects.get(account=wallet),
            client_public_key=key.public_key_hex_compressed,
        )
        keys[wallet.pk] = key.private_key_hex
    payee = _payee(platform, wallets[0].customer)
    template = _quote(platform, wallets[0], payee, 1_000_000)  # 1 USDC
    pairs = _clones(
        template, wallets, EXECUTE_QUOTES, sign=lambda payload, source: client.stamp(payload, keys[source.pk])
    )
    return Load("POST", f"{API}/quotes/", lua=_execute_script(creds, pairs, stamped=True))


# --- GET /transactions with 1,000 and 1,000,000 transactions ----------------------------------------

_SEED_SQL = """
INSERT INTO payments_transaction (
    id, platform_id, created_at, updated_at, type, direction, status, platform_customer_id,
    source, destination, sender_identifier, receiver_identifier, sent_amount, sent_currency,
    received_amount, received_currency, exchange_rate, fees, platform_fees, usd_value, payment_rail,
    rail_selection_mode, reference, failure_reason, failure_detail, pending_reason, description,
    remittance_information, purpose_of_payment, settled_at, awaiting_decision, steps, settlement_hash
)
SELECT
    (%(prefix)s || lpad(to_hex(g), 12, '0'))::uuid, %(platform)s,
    now() - (%(count)s - g) * interval '1 second', now() - (%(count)s - g) * interval '1 second',
    'OUTGOING', 'DEBIT', 'COMPLETED', '',
    '{"sourceType": "ACCOUNT", "accountId": "InternalAccount:01900000-0000-7000-8000-000000000001", "currency": "USD"}',
    '{"destinationType": "UMA_ADDRESS", "umaAddress": "$success.usd@sandbox.uma.example", "currency": "USD"}',
    'InternalAccount:01900000-0000-7000-8000-000000000001', '$success.usd@sandbox.uma.example',
    1000 + mod(g, 5000), 'USD', 990 + mod(g, 5000), 'USD', '1', 10, 0, 1000, '', '', 'SEED' || g, '', '', '', '',
    '', '', now(), false, '[]', ''
FROM generate_series(1, %(count)s) AS g
"""


def _seeded_platform(name: str, count: int, prefix: str):
    from django.db import connection

    from payments.models import Platform, Transaction

    platform = Platform.objects.filter(name=name).order_by("created_at").first()
    if platform is None:
        platform = Platform.objects.create(name=name, supported_currencies=[{"currencyCode": "USD"}])
    if Transaction.objects.filter(platform=platform).count() != count:
        Transaction.objects.filter(platform=platform).delete()
        with connection.cursor() as cursor:
            cursor.execute(_SEED_SQL, {"prefix": prefix, "platform": platform.pk, "count": count})
        with connection.cursor() as cursor:  # autocommit: VACUUM cannot run inside a transaction
            cursor.execute("VACUUM ANALYZE payments_transaction")  # index-only scans need the visibility map
    return platform


def _transactions_load(name: str, count: int, prefix: str, query: str = ""):
    from payments.platforms import ALL_PERMISSIONS, token_create
    from project.bench.cases import Load, basic_auth

    platform = _seeded_platform(name, count, prefix)
    token, secret = token_create(platform=platform, name="bench", permissions=ALL_PERMISSIONS)
    creds = {"clientId": token.client_id, "clientSecret": secret}
    return Load("GET", f"{API}/transactions?limit=20{query}", headers=basic_auth(creds))


_1K = ("Benchmark: 1,000 transactions", 1_000, "01900000-0001-7000-8000-")
_1M = ("Benchmark: 1,000,000 transactions", 1_000_000, "01900000-0002-7000-8000-")


def transactions_1k_load(creds: dict):
    return _transactions_load(*_1K)


def transactions_1m_load(creds: dict):
    return _transactions_load(*_1M)


def transactions_1m_incoming_load(creds: dict):
    """The million (all outgoing) filtered to type=INCOMING: an empty page, found in the index of
    incoming transactions instead of by walking the platform's million."""
    return _transactions_load(*_1M, query="&type=INCOMING")


# --- POST /sandbox/cards/{id}/simulate/authorization ------------------------------------------------

_CARD_LUA = """
local ids = {IDS}
local headers = {HEADERS}
local body = {BODY}
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

n = 0
function request()
  local i = (n * {THREADS} + tid) % #ids + 1
  n = n + 1
  return wrk.format("POST", "{PREFIX}" .. ids[i] .. "/simulate/authorization", headers, body)
end
"""


def card_authorization_load(creds: dict):
    """Authorizations of 1 cent spread over a card per funded account (each holds, records the card
    transaction and its webhook event); a Lua script rotates the cards."""
    from payments.cards import card_create
    from project.bench.cases import Load

    platform = _platform(creds)
    cards = [
        card_create(
            platform=platform,
            cardholder_id=source.customer_id,
            form="VIRTUAL",
            funding_source_ids=[source.pk],
        ).public_id
        for source in _funded_sources(platform, SOURCES)
    ]
    body = json.dumps({"amount": 1, "currency": {"code": "USD"}, "merchant": {"descriptor": "BENCH SHOP"}})
    headers = "{" + ",".join(f'["{k}"]={json.dumps(v)}' for k, v in _headers(creds).items()) + "}"
    script = (
        _CARD_LUA.replace("{IDS}", _lua_list(cards))
        .replace("{HEADERS}", headers)
        .replace("{BODY}", json.dumps(body))
        .replace("{THREADS}", str(WRK_THREADS))
        .replace("{PREFIX}", f"{API}/sandbox/cards/")
    )
    return Load("POST", f"{API}/sandbox/cards/", lua=script)
