"""The one outbound call of webhook delivery: a POST over a connection kept alive per endpoint.

Built on the standard library's `http.client`: a worker sends one endpoint's events one after
another, so each event waits for the previous answer, and `http.client` spends a third of the CPU
of a general-purpose client on a request and sends the head and the body in one write. Each thread
keeps its own connections (a lane sends to one endpoint at a time), by scheme, host and port, and
drops one that has been idle for KEEP_ALIVE_SECONDS or that the endpoint closed. Redirects are not
followed (a 3xx is an answer like any other), proxy variables from the environment are ignored (the
address checked is the address called), and TLS verifies the endpoint against certifi's CA bundle.
The errors read like httpx's (`ConnectError: …`, `timed out (ReadTimeout)`) in the delivery log.
"""

from __future__ import annotations

import base64
import http.client
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from functools import cache
from urllib.parse import quote, unquote, urlsplit

import certifi
from django.conf import settings

SIGNATURE_HEADER = "X-Service-Signature"
USER_AGENT = f"PaymentsService-Webhooks/1.0 (API {settings.API_VERSION})"
KEEP_ALIVE_SECONDS = 5.0  # an idle connection older than this is closed rather than reused
_READ_LIMIT = 64 * 1024  # bytes of a response read (enough for a decision body)
_EXCERPT_LIMIT = 2000  # characters of a response kept in the delivery log
_KEPT = 16  # connections a thread keeps at most
_PRINTABLE = "".join(map(chr, range(0x21, 0x7F)))
# The far end closed a kept-alive connection before answering: sent again once on a new one.
_CLOSED_ON_REUSE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


@dataclass(frozen=True)
class SendResult:
    """What one POST came to: a status code and the start of the body, or an error without one."""

    status_code: int | None = None
    body: bytes = b""
    error: str = ""
    latency_ms: int | None = None

    def excerpt(self) -> str:
        return self.body.decode("utf-8", "replace")[:_EXCERPT_LIMIT]

    def describe(self) -> str:
        return self.error or f"endpoint answered {self.status_code}"


class _Failed(Exception):
    """A POST that got no answer, with the delivery log's wording."""


@dataclass
class _Kept:
    connection: http.client.HTTPConnection
    idle_since: float


_local = threading.local()


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


def _connections() -> dict[tuple[str, str, int], _Kept]:
    try:
        return _local.connections
    except AttributeError:
        _local.connections = {}
        return _local.connections


def _reusable(kept: _Kept) -> bool:
    """Idle for less than KEEP_ALIVE_SECONDS and nothing to read: a closed one reads as EOF."""
    sock = kept.connection.sock
    if sock is None or time.monotonic() - kept.idle_since > KEEP_ALIVE_SECONDS:
        return False
    poller = select.poll()
    try:
        poller.register(sock, select.POLLIN)
        return not poller.poll(0)
    except (OSError, ValueError):
        return False


def _connect(scheme: str, host: str, port: int) -> http.client.HTTPConnection:
    timeout = settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS
    if scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=_tls())
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.connect()
    except TimeoutError:
        connection.close()
        raise _Failed("timed out (ConnectTimeout)") from None
    except OSError as exc:  # refused, unreachable, unresolvable, TLS verification
        connection.close()
        raise _Failed(f"ConnectError: {exc}") from None
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.sock.settimeout(settings.WEBHOOK_READ_TIMEOUT_SECONDS)
    return connection


def _exchange(
    connection: http.client.HTTPConnection, target: str, body: bytes, headers: dict[str, str]
) -> tuple[int, bytes, bool]:
    """One request on an open connection: the status, the start of the body, and whether the
    connection can serve another request."""
    try:
        connection.request("POST", target, body=body, headers=headers)
    except TimeoutError:
        raise _Failed("timed out (WriteTimeout)") from None
    except _CLOSED_ON_REUSE:
        raise
    except OSError as exc:
        raise _Failed(f"WriteError: {exc}") from None
    except http.client.HTTPException as exc:
        raise _Failed(f"LocalProtocolError: {type(exc).__name__}: {exc}") from None
    try:
        response = connection.getresponse()
        received = response.read(_READ_LIMIT)
    except TimeoutError:
        raise _Failed("timed out (ReadTimeout)") from None
    except _CLOSED_ON_REUSE:
        raise
    except http.client.HTTPException as exc:
        raise _Failed(f"RemoteProtocolError: {type(exc).__name__}: {exc}") from None
    except OSError as exc:
        raise _Failed(f"ReadError: {exc}") from None
    return response.status, received, response.isclosed() and not response.will_close


def webhook_post(*, url: str, body: bytes, signature: str) -> SendResult:
    """POST `body` to `url` with its signature. Callers never hold a transaction (or a row lock)."""
    started = time.monotonic()

    def elapsed() -> int:
        return round((time.monotonic() - started) * 1000)

    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        host = (parts.hostname or "").encode("idna").decode("ascii")
    except (ValueError, UnicodeError) as exc:
        return SendResult(error=f"InvalidURL: {exc}", latency_ms=elapsed())
    if parts.scheme not in ("http", "https") or not host:
        return SendResult(error=f"InvalidURL: {url!r} is not an absolute http(s) URL", latency_ms=elapsed())
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, SIGNATURE_HEADER: signature}
    if parts.username is not None:  # credentials in the URL: HTTP basic authentication
        credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    # Spaces, control and non-ASCII characters percent-encoded (as UTF-8); the rest as written.
    target = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=_PRINTABLE)
    key = (parts.scheme, host, port)
    kept = _connections().pop(key, None)
    try:
        while True:
            reused = kept is not None and _reusable(kept)
            if kept is not None and not reused:
                kept.connection.close()
            connection = kept.connection if reused else _connect(*key)
            kept = None
            try:
                status, received, open_ = _exchange(connection, target, body, headers)
                break
            except _CLOSED_ON_REUSE as exc:
                connection.close()
                if not reused:
                    raise _Failed(f"RemoteProtocolError: {type(exc).__name__}: {exc}") from None
            except _Failed:
                connection.close()
                raise
    except _Failed as failed:
        return SendResult(error=str(failed), latency_ms=elapsed())
    if open_:
        _keep(key, connection)
    else:
        connection.close()
    return SendResult(status_code=status, body=received, latency_ms=elapsed())


def _keep(key: tuple[str, str, int], connection: http.client.HTTPConnection) -> None:
    connections = _connections()
    connections[key] = _Kept(connection, time.monotonic())
    while len(connections) > _KEPT:
        connections.pop(next(iter(connections))).connection.close()
