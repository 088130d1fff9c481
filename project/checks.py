"""System checks (`manage.py check`, and `migrate`, the step before new code serves): in production
every node must share its cache, so a cache in one process's memory is refused."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register


@register()
def shared_cache(app_configs: Any = None, **kwargs: Any) -> list:
    backend = settings.CACHES["default"]["BACKEND"]
    if not settings.PRODUCTION or not backend.endswith(("LocMemCache", "DummyCache")):
        return []
    return [
        Error(
            "the cache is this process's own memory: with several nodes the exchange-rate and OIDC key caches "
            "would differ between them",
            hint="set CACHE_URL (or CELERY_BROKER_URL) to a Redis URL",
            id="project.E001",
        )
    ]
