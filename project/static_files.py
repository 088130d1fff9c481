"""WhiteNoise, with its index of static files built once per process.

WhiteNoise's middleware indexes every static file when it is made (with `WHITENOISE_USE_FINDERS`, a
scan of each app's static folder: some 230 files, 30-80 ms). A web server makes the middleware once,
but every Django test `Client` makes its own, so every new client paid the scan on its first
request. The index depends only on settings and on files that do not change while the process runs
(autorefresh, which looks files up on each request instead, is for development), so one index per
configuration serves every instance.
"""

from __future__ import annotations

import threading

from django.conf import settings as django_settings
from whitenoise.middleware import WhiteNoiseMiddleware as _WhiteNoiseMiddleware

_built: dict[str, dict] = {}  # an instance's state (without get_response), by configuration
_building = threading.Lock()


def _configuration(settings) -> str:
    names = (
        "DEBUG",
        "STATIC_URL",
        "STATIC_ROOT",
        "STATICFILES_DIRS",
        "STATICFILES_FINDERS",
        "INSTALLED_APPS",
    )
    names += tuple(sorted(n for n in dir(settings) if n.startswith("WHITENOISE_")))
    return repr([(name, getattr(settings, name, None)) for name in names])


class WhiteNoiseMiddleware(_WhiteNoiseMiddleware):
    def __init__(self, get_response=None, settings=django_settings) -> None:
        key = _configuration(settings)
        with _building:
            state = _built.get(key)
            if state is None:
                super().__init__(get_response, settings)
                _built[key] = {k: v for k, v in vars(self).items() if k != "get_response"}
                return
        vars(self).update(state)
        self.get_response = get_response
