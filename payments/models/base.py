from __future__ import annotations

from django.db import models

from payments import clock, ids


def optional_ref(to: str) -> models.ForeignKey:
    """An optional link to another row that keeps that row from being deleted (PROTECT) and gives it
    no reverse accessor."""
    return models.ForeignKey(to, null=True, blank=True, on_delete=models.PROTECT, related_name="+")


def currency_code(**kwargs) -> models.CharField:
    """A currency's code (ISO 4217, or a token's symbol such as USDC), as every money row stores it."""
    return models.CharField(max_length=8, **kwargs)


class PlatformScopedQuerySet(models.QuerySet):
    def for_platform(self, platform) -> PlatformScopedQuerySet:
        return self.filter(platform=platform)


class PublicRecord(models.Model):
    """A record with a time-ordered UUID key rendered on the wire as `<ID_KIND>:<uuid>`."""

    ID_KIND = ""

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    created_at = models.DateTimeField(default=clock.now, editable=False)
    updated_at = models.DateTimeField(default=clock.now)

    class Meta:
        abstract = True

    @property
    def public_id(self) -> str:
        return ids.render(self.ID_KIND, self.id)

    def touch(self) -> None:
        self.updated_at = clock.now()


class PlatformScoped(PublicRecord):
    """Owned by one platform. API code reaches these rows only through `objects.for_platform(...)`."""

    platform = models.ForeignKey("payments.Platform", on_delete=models.CASCADE, related_name="+")

    objects = PlatformScopedQuerySet.as_manager()

    class Meta:
        abstract = True
