"""Keeps onboarding link tokens out of the logs.

Django logs the path of every 4xx/5xx answer (`django.request`, `django.security.csrf`); on the hosted
pages that path holds the link's token. Settings attach this filter to the log handlers.
"""

from __future__ import annotations

import logging
import re

_TOKEN_IN_PATH = re.compile(r"(/onboarding/)[^/\s?#\"']+")


def redact(text: str) -> str:
    return _TOKEN_IN_PATH.sub(r"\1[token]", text)


class RedactOnboardingTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "/onboarding/" in message:
            record.msg, record.args = redact(message), ()
        return True
