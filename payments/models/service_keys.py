from __future__ import annotations

from django.db import models

from payments import clock


class ServiceKey(models.Model):
    """One of the service's own P-256 signing keys (e.g. "webhook-signing"), created on first use.

    Use `payments.service_keys`; the private key is sealed with `secret_box` and never leaves it in clear.
    """

    name = models.CharField(max_length=64, unique=True)
    private_key_sealed = models.TextField()
    public_key_hex = models.CharField(max_length=130)  # SEC1 uncompressed, lowercase
    created_at = models.DateTimeField(default=clock.now, editable=False)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<ServiceKey {self.name} public={self.public_key_hex[:16]}…>"
