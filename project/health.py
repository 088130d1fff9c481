"""Liveness and readiness (README "Running in production"), outside the versioned API.

- `/health/live`: the process answers requests. No dependency is asked, so a database outage does
  not make an orchestrator restart every web node at once.
- `/health/ready`: the database, the broker and the cache answer (django-health-check runs the
  checks side by side, each with a time limit); 503 when any does not, so the load balancer stops
  sending requests to this node until they do.

Both are unauthenticated and say only each dependency's name and "ok" or "unavailable": no host,
error text or version.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker accepts a connection (what publishing a task needs first)."""

    timeout: dt.timedelta = dataclasses.field(default=dt.timedelta(seconds=3), repr=False)

    def run(self) -> None:
        from project.celery import app

        try:
            with app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, timeout=self.timeout.total_seconds())
        except Exception as exc:
            raise ServiceUnavailable("unavailable") from exc


NAMES = {Database: "database", Broker: "broker", Cache: "cache"}


class ReadinessView(HealthCheckView):
    checks = (Database, Broker, Cache)

    async def get(self, request, *args, **kwargs):
        with self.get_executor() as executor:
            self.results = await asyncio.gather(*(check.get_result(executor) for check in self.get_checks()))
        failed = any(result.error for result in self.results)
        body = {
            "status": "unavailable" if failed else "ok",
            "checks": {
                NAMES[type(result.check)]: "unavailable" if result.error else "ok" for result in self.results
            },
        }
        return JsonResponse(body, status=503 if failed else 200)


@never_cache
def liveness(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


readiness = ReadinessView.as_view()
