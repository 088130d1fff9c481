"""Money limits: a transaction's size (400 TRANSACTION_SIZE_LIMIT_EXCEEDED, checked when a quote is
made) and a customer's daily volume (429 DAILY_VOLUME_LIMIT_EXCEEDED, checked when money moves).

Both are in US cents, so one threshold covers every currency: an amount counts at the sandbox mid
rate (`rates.USD_VALUE`), rounded down. A platform sets its own on its row (admin: Platforms);
otherwise the settings defaults apply. The daily volume is what a customer (or, for its own
transfers, the platform) had executed since 00:00 UTC, failed transfers excluded; it resets at
midnight, which is what `Retry-After` says.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from uuid import UUID

from django.conf import settings
from django.db import connections, router
from django.db.models import UUIDField

from payments import clock, money, rates
from payments.errors import BadRequest, RateLimited
from payments.models import Platform, Transaction

Status = Transaction.Status


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


# The volume read every transfer makes: plain SQL, since compiling the ORM's aggregate costs several
# times the query. Both use the partial index `transaction_daily_volume`.
_CUSTOMER_VOLUME = (
    "SELECT SUM(usd_value) FROM payments_transaction WHERE platform_id = %s AND customer_id = %s"
    " AND executed_at >= %s AND status NOT IN (%s, %s)"
)
_PLATFORM_VOLUME = (
    "SELECT SUM(usd_value) FROM payments_transaction WHERE platform_id = %s AND customer_id IS NULL"
    " AND executed_at >= %s AND status NOT IN (%s, %s)"
)
_UUID = UUIDField()


# The volume's owner row, locked until the caller's transaction ends, so that two transfers of one
# customer (from any of its accounts) cannot both read the volume before either is counted. NO KEY:
# rows that only reference the owner (new quotes, accounts) are not held up. SQLite has one writer.
_LOCK_CUSTOMER = "SELECT 1 FROM payments_customer WHERE id = %s FOR NO KEY UPDATE"
_LOCK_PLATFORM = "SELECT 1 FROM payments_platform WHERE id = %s FOR NO KEY UPDATE"


def _volume_since(platform_id: UUID, customer_id: UUID | None, start: dt.datetime) -> int:
    """US cents executed since `start` by the customer (None: the platform's own transfers), failed
    and rejected transfers excluded; read after locking the owner's row (PostgreSQL)."""
    connection = connections[router.db_for_write(Transaction)]
    owners = [platform_id] if customer_id is None else [platform_id, customer_id]
    params = [_UUID.get_db_prep_value(owner, connection) for owner in owners]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_LOCK_PLATFORM if customer_id is None else _LOCK_CUSTOMER, params[-1:])
        params += [
            connection.ops.adapt_datetimefield_value(start),
            Status.FAILED.value,
            Status.REJECTED.value,
        ]
        cursor.execute(_PLATFORM_VOLUME if customer_id is None else _CUSTOMER_VOLUME, params)
        return int(cursor.fetchone()[0] or 0)  # PostgreSQL sums a bigint as a numeric


def limits_check_daily(*, platform: Platform, customer_id: UUID | None, usd_value: int) -> None:
    """Raise 429 DAILY_VOLUME_LIMIT_EXCEEDED when `usd_value` more would take the day's volume over
    the limit. Call it inside the transaction that records the transfer as executed: the owner's row
    stays locked until it ends, so two transfers cannot both squeeze in."""
    limit = daily_volume_limit(platform)
    now = clock.now()
    start = _start_of_day(now)
    moved = _volume_since(platform.pk, customer_id, start)
    if moved + usd_value > limit:
        reset = start + dt.timedelta(days=1)
        raise RateLimited(
            f"This transfer would take today's volume to {(moved + usd_value) / 100:.2f} USD, above the daily "
            f"limit of {limit / 100:.2f} USD; the volume resets at 00:00 UTC",
            code="DAILY_VOLUME_LIMIT_EXCEEDED",
            retry_after=int((reset - now).total_seconds()) + 1,
            limitUsdCents=limit,
            usedUsdCents=moved,
        )
