"""An `Idempotency-Key` a platform used, with the request it named and the answer it got. The rules
live in `payments/idempotency.py`."""

from __future__ import annotations

from django.db import models

from payments import ids


class IdempotencyKey(models.Model):
    """One platform's key: the first request made with it (method, path, body digest) and, in the
    same database transaction as that request's operation, its answer (sealed: an answer may hold a
    link token). Kept until `expires_at`, then deleted by the sweep and free again."""

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    platform = models.ForeignKey("payments.Platform", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=512)
    body_sha256 = models.CharField(max_length=64)  # of the canonical JSON body (payments.canonical)
    # Null only inside the transaction of the request that holds the key (and for keys carried over
    # from before answers were kept, which match no request).
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_sealed = models.TextField(blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "key"], name="idempotency_key_platform_key"),
        ]
        indexes = [models.Index(fields=["expires_at"], name="idempotency_key_expires")]

    def __str__(self) -> str:
        return f"{self.key} → {self.method} {self.path} ({self.response_status})"
