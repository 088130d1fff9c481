"""The running daily volume the daily volume limit is checked against. The rules live in
`payments/limits.py`."""

from __future__ import annotations

from django.db import models


class DailyVolume(models.Model):
    """What one owner executed on one UTC day, in US cents, failed and rejected transfers taken back
    out: one row per owner and day, added to by every transfer as it is executed."""

    platform = models.ForeignKey("payments.Platform", on_delete=models.CASCADE, related_name="+")
    # The customer whose transfers these are, or the platform's own id for its own transfers (no
    # foreign key: it names either, and a NULL customer would not be one key in a unique index).
    owner_id = models.UUIDField()
    day = models.DateField()
    usd_cents = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "day"], name="daily_volume_owner_day"),
            models.CheckConstraint(condition=models.Q(usd_cents__gte=0), name="daily_volume_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} on {self.day}: {self.usd_cents / 100:.2f} USD"
