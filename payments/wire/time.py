"""The wire format of a moment: RFC 3339 in UTC, milliseconds, `Z` suffix (as the reference's examples)."""

from __future__ import annotations

import datetime as dt

from rest_framework import serializers


def utc_timestamp(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UtcDateTimeField(serializers.DateTimeField):
    """A serializer field rendering with `utc_timestamp`."""

    def to_representation(self, value) -> str:
        return utc_timestamp(value)
