"""`/sandbox/clock`: the platform's sandbox test clock (payments/sandbox_clock.py). Our own extension,
not in the reference; 404 in production mode."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.dateparse import parse_duration
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import clock
from payments.api.parsing import body_unused, parse_body
from payments.api.schema import operations
from payments.platform_clock import sandbox_clock_only
from payments.sandbox_clock import sandbox_clock_advance, sandbox_clock_get, sandbox_clock_reset
from payments.wire.parsing import CrossCheckedSerializer
from payments.wire.time import UtcDateTimeField, utc_timestamp

EXTENSION = (
    "Our own extension for testing, not part of the reference interface; sandbox mode only (404 in "
    "production mode). "
)
_operation = operations(["Sandbox"])

# ISO 8601 durations in days, hours, minutes and seconds ("PT6M", "P1DT12H", "PT0.5S").
DURATION = r"^P(?=\d|T\d)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$"


class SandboxClockSerializer(serializers.Serializer):
    """The platform's sandbox clock."""

    currentTime = UtcDateTimeField(help_text="The platform's time now (RFC 3339, UTC)")
    realTime = serializers.BooleanField(help_text="Whether the clock shows real time (never moved)")
    aheadBySeconds = serializers.FloatField(help_text="How far it runs ahead of real time, in seconds")


class SandboxClockAdvanceSerializer(CrossCheckedSerializer):
    """Move the clock forward: `by` a duration or `to` an instant, exactly one of them."""

    by = serializers.RegexField(
        DURATION, required=False, max_length=40, help_text='An ISO 8601 duration, e.g. "PT6M" or "P1D"'
    )
    to = serializers.DateTimeField(
        required=False, help_text="An instant (RFC 3339), not before the clock's current time"
    )

    def cross_field_errors(self, data: Any) -> dict[str, str]:
        if ("by" in data) == ("to" in data):
            return {"by": "give exactly one of by and to"}
        return {}


def _duration(text: str) -> dt.timedelta:
    try:
        return parse_duration(text)
    except OverflowError:  # more days than a timedelta holds: far past the longest move anyway
        return dt.timedelta.max


class _SandboxClockApi(APIView):
    def render(self, current: dt.datetime) -> Response:
        ahead = current - clock.base_now()
        body = {
            "currentTime": utc_timestamp(current),
            "realTime": ahead <= dt.timedelta(0),
            "aheadBySeconds": round(max(ahead.total_seconds(), 0.0), 3),
        }
        return Response(body)


class SandboxClockApi(_SandboxClockApi):
    @_operation(
        "sandboxGetClock",
        responses=SandboxClockSerializer,
        description=EXTENSION + "The platform's sandbox clock: every time-based rule of the platform "
        "follows it (quote and challenge expiry, sandbox outcomes, sessions, limits, webhook retries).",
    )
    def get(self, request: Request) -> Response:
        return self.render(sandbox_clock_get(platform=request.auth.platform))


class SandboxClockAdvanceApi(_SandboxClockApi):
    @_operation(
        "sandboxAdvanceClock",
        request=SandboxClockAdvanceSerializer,
        responses=SandboxClockSerializer,
        description=EXTENSION + "Move the platform's clock forward (never backwards: 400) and apply what "
        "fell due, in time order, before answering: each due transition happens once, with its webhooks.",
    )
    def post(self, request: Request) -> Response:
        sandbox_clock_only()  # before the body: in production mode the operation does not exist
        body = parse_body(SandboxClockAdvanceSerializer, request.data)
        by = _duration(body["by"]) if "by" in body else None
        current = sandbox_clock_advance(platform=request.auth.platform, by=by, to=body.get("to"))
        return self.render(current)


class SandboxClockResetApi(_SandboxClockApi):
    @_operation(
        "sandboxResetClock",
        request=None,
        responses=SandboxClockSerializer,
        description=EXTENSION + "Put the platform's clock back on real time.",
    )
    def post(self, request: Request) -> Response:
        sandbox_clock_only()
        body_unused(request)
        return self.render(sandbox_clock_reset(platform=request.auth.platform))
