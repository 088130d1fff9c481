"""What an agent has spent: the actions it submitted that were not rejected or failed (a pending
quote execution whose quote expired reads FAILED), counted per UTC day and month in its policy's
spending-limit currency."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Count, Q, Sum

from payments import clock
from payments.models import Agent, AgentAction

COUNTED = [AgentAction.Status.PENDING_APPROVAL, AgentAction.Status.APPROVED]


def _periods(now: dt.datetime) -> tuple[dt.datetime, dt.datetime, dt.date, str]:
    """(start of today, start of this month, the next day, the next month as YYYY-MM), in UTC."""
    day = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    month = day.replace(day=1)
    next_month = (month + dt.timedelta(days=32)).replace(day=1)
    return day, month, (day + dt.timedelta(days=1)).date(), next_month.strftime("%Y-%m")


def agent_usage(agent: Agent) -> dict[str, Any]:
    """The reference's AgentUsage of `agent` now."""
    now = clock.now()
    day, month, next_day, next_month = _periods(now)
    counted = AgentAction.objects.filter(agent=agent, status__in=COUNTED, created_at__gte=month).exclude(
        status=AgentAction.Status.PENDING_APPROVAL,
        quote__expires_at__lte=now,  # reads FAILED
    )
    today = Q(created_at__gte=day)
    totals = counted.aggregate(
        daily_count=Count("pk", filter=today),
        daily=Sum("usage_amount", filter=today, default=0),
        monthly=Sum("usage_amount", default=0),
    )
    return {
        "dailyTransactionCount": totals["daily_count"],
        "dailySpend": totals["daily"],
        "dailyResetDate": next_day,
        "monthlySpend": totals["monthly"],
        "monthlyResetMonth": next_month,
    }
