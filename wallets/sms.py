"""Pluggable SMS delivery for one-time codes, chosen by the `SMS_BACKEND` setting (a dotted path).

A backend is a class with `send(*, to: str, message: str) -> None`. The console backend (the
default) writes the message to standard output, like Django's console mail backend; the
locmem backend keeps messages in `outbox` for tests. A real gateway is one small class.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from django.conf import settings
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class SmsMessage:
    to: str
    message: str


class ConsoleSmsBackend:
    _lock = threading.Lock()

    def send(self, *, to: str, message: str) -> None:
        with self._lock:
            sys.stdout.write(f"SMS to {to}: {message}\n")
            sys.stdout.flush()


class LocmemSmsBackend:
    outbox: list[SmsMessage] = []

    def send(self, *, to: str, message: str) -> None:
        type(self).outbox.append(SmsMessage(to=to, message=message))


def sms_send(*, to: str, message: str) -> None:
    import_string(settings.SMS_BACKEND)().send(to=to, message=message)
