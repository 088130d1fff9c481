"""Money limits: a transaction's size (400 TRANSACTION_SIZE_LIMIT_EXCEEDED, checked when a quote is
made) and a customer's daily volume (429 DAILY_VOLUME_LIMIT_EXCEEDED, checked when money moves).

Both are in US cents, so one threshold covers every currency: an amount counts at the sandbox mid
rate (`rates.USD_VALUE`), rounded down. A platform sets its own on its row (admin: Platforms);
otherwise the settings defaults apply. The daily volume is what a customer (or, for its own
transfers, the platform) had executed since 00:00 UTC, failed transfers excluded; it resets at
midnight, which is what `Retry-After` says. It is kept as a running total per owner and day
(`DailyVolume`): a transfer is added as it is executed and taken back out if it fails, so checking
it costs one statement however many transfers the owner makes.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from uuid import UUID

from django.conf import settings

from payments import clock, money, rates
from payments.errors import BadRequest, RateLimited
from payments.models import DailyVolume, Platform, Transaction
from payments.query_plans import plan_raw_row


def usd_cents(amount: int, currency: str) -> int:
    """`amount` (smallest unit of `currency`) in US cents at the sandbox mid rate, rounded down."""
    value = (
        Fraction(amount) * Fraction(rates.usd_value(currency)) * 100 / money.smallest_unit_factor(currency)
    )
    return money.receive_round_down(value)


def transaction_size_limit(platform: Platform) -> int:
    if platform.transaction_size_limit is not None:
        return platform.transaction_size_limit
    return settings.TRANSACTION_SIZE_LIMIT_USD_CENTS


def daily_volume_limit(platform: Platform) -> int:
    if platform.daily_volume_limit is not None:
        return platform.daily_volume_limit
    return settings.DAILY_VOLUME_LIMIT_USD_CENTS


def limits_check_size(*, platform: Platform, amount: int, currency: str) -> None:
    limit = transaction_size_limit(platform)
    value = usd_cents(amount, currency)
    if value > limit:
        raise BadRequest(
            f"The transfer is worth {value / 100:.2f} USD, above this platform's limit of {limit / 100:.2f} USD "
            "per transaction",
            code="TRANSACTION_SIZE_LIMIT_EXCEEDED",
            limitUsdCents=limit,
            amountUsdCents=value,
        )


def _start_of_day(now: dt.datetime) -> dt.datetime:
    return now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)


# Plain SQL: the volume is counted on every transfer, and compiling the ORM's upsert costs several
# times the statement. `_ADD` locks the owner's row for the day until the caller's transaction ends,
# so two transfers of one owner (from any of its accounts) are counted one after the other; its
# WHERE leaves the row as it was (and returns nothing) when the sum would go over the limit.
# Lock order: a transfer's balance rows first (the ledger's debit or refund), then the volume row.
_ADD = (
    "INSERT INTO payments_dailyvolume (platform_id, owner_id, day, usd_cents) VALUES (%s, %s, %s, %s)"
    " ON CONFLICT (owner_id, day) DO UPDATE"
    " SET usd_cents = payments_dailyvolume.usd_cents + excluded.usd_cents"
    " WHERE payments_dailyvolume.usd_cents + excluded.usd_cents <= %s"
    " RETURNING usd_cents"
)
_TAKE_BACK = "UPDATE payments_dailyvolume SET usd_cents = usd_cents - %s WHERE owner_id = %s AND day = %s"
_USED = "SELECT usd_cents FROM payments_dailyvolume WHERE owner_id = %s AND day = %s"


def _run_sql(sql: str, params: list) -> int | None:
    """Run one of the statements above; the first column of the row it returned, if it returned one."""
    row = plan_raw_row(model=DailyVolume, sql=sql, params=params)
    return None if row is None else int(row[0])


def _owner(platform_id: UUID, customer_id: UUID | None) -> UUID:
    return customer_id or platform_id


def limits_count_daily(*, platform: Platform, customer_id: UUID | None, usd_value: int) -> None:
    """Count `usd_value` into today's volume of the customer (None: the platform's own transfers), or
    raise 429 DAILY_VOLUME_LIMIT_EXCEEDED, counting nothing, when that would take it over the limit.
    Call it inside the transaction that records the transfer as executed, after its ledger postings:
    a rollback takes the count back, and the volume row stays locked until the transaction ends."""
    limit = daily_volume_limit(platform)
    now = clock.now()
    day, owner = now.astimezone(dt.UTC).date(), _owner(platform.pk, customer_id)
    if usd_value <= limit and _run_sql(_ADD, [platform.pk, owner, day, usd_value, limit]) is not None:
        return
    moved = _run_sql(_USED, [owner, day]) or 0
    reset = _start_of_day(now) + dt.timedelta(days=1)
    raise RateLimited(
        f"This transfer would take today's volume to {(moved + usd_value) / 100:.2f} USD, above the daily "
        f"limit of {limit / 100:.2f} USD; the volume resets at 00:00 UTC",
        code="DAILY_VOLUME_LIMIT_EXCEEDED",
        retry_after=int((reset - now).total_seconds()) + 1,
        limitUsdCents=limit,
        usedUsdCents=moved,
    )


def limits_take_back_daily(txn: Transaction) -> None:
    """Take a transfer that failed or was rejected after it was counted back out of the volume of the
    day it was executed on (call it once, with that move)."""
    if txn.executed_at is not None and txn.usd_value:
        day = txn.executed_at.astimezone(dt.UTC).date()
        _run_sql(_TAKE_BACK, [txn.usd_value, _owner(txn.platform_id, txn.customer_id), day])
