"""The wire rules every call follows: Basic auth, JSON, errors, 429 Retry-After, 200 PROCESSING and
the signed retry. Resource groups (`resources.py`) describe operations; this module performs them.

Signed retry (interface spec, rules 1-5):

1. The first request goes out without `Service-Wallet-Signature`. A 202 `{payloadToSign,
   requestId, expiresAt}` asks for the wallet's consent.
2. `payloadToSign` is stamped exactly as returned (never re-serialised) and the identical request
   is sent again with `Service-Wallet-Signature` and `Request-Id`.
3. While the answer is 200 PROCESSING the identical request (same body bytes, signature and
   Request-Id) is re-sent with exponential backoff. For operations whose success is itself a 200
   (verify, challenge, export, PATCH) only a body `{status: "PROCESSING"}` means processing; for
   the others (success 201 or 204) any 200 does.
4. A 429 is retried after `Retry-After` seconds, a bounded number of times.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from payments.client.errors import (
    ServiceError,
    ServiceUnavailable,
    SignerRequired,
    StillProcessing,
    UnexpectedResponse,
    error_class,
)
from payments.client.models import SignedRequestChallenge, from_wire
from payments.client.signing import Signer

SIGNATURE_HEADER = "Service-Wallet-Signature"
REQUEST_ID_HEADER = "Request-Id"
IDEMPOTENCY_HEADER = "Idempotency-Key"

FIRST_BACKOFF_SECONDS = 0.25
MAX_BACKOFF_SECONDS = 8.0


def segment(value: str) -> str:
    """A path segment, percent-encoded (ids contain `:`, UMA addresses `$` and `@`)."""
    return quote(value, safe=":@$")


def is_processing(body: Any) -> bool:
    """The WalletOperationProcessing shape: `{status: PROCESSING, message}`, never a record (no id)."""
    return isinstance(body, dict) and body.get("status") == "PROCESSING" and "id" not in body


@dataclass(frozen=True)
class Call:
    """One request exactly as sent; re-sends send the same object."""

    method: str
    path: str
    params: Mapping[str, Any] | None = None
    content: bytes | None = None
    headers: Mapping[str, str] | None = None

    def with_headers(self, **extra: str) -> Call:
        return Call(self.method, self.path, self.params, self.content, {**(self.headers or {}), **extra})


def encode_json(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def query(**params: Any) -> dict[str, Any]:
    """Query parameters without the `None`s; booleans as `true`/`false`, date-times in ISO 8601."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out[name] = value
    return out


class Transport:
    def __init__(
        self,
        http: httpx.Client,
        *,
        sleep: Callable[[float], None] = time.sleep,
        max_processing_wait: float = 60.0,
        rate_limit_retries: int = 2,
        max_retry_after: float = 30.0,
    ) -> None:
        self.http = http
        self.sleep = sleep
        self.max_processing_wait = max_processing_wait
        self.rate_limit_retries = rate_limit_retries
        self.max_retry_after = max_retry_after

    # --- one request ------------------------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        success_status: int | None = None,
    ) -> httpx.Response:
        """Send once (plus 429 retries); with `success_status`, also wait out PROCESSING."""
        call = self._call(method, path, json_body, params, headers)
        if success_status is None:
            return self.send(call)
        return self.until_terminal(call, success_status)

    def send(self, call: Call) -> httpx.Response:
        """Send `call`; retry on 429 as `Retry-After` says; raise ServiceError for any non-2xx."""
        retries = 0
        while True:
            try:
                response = self.http.request(
                    call.method, call.path, params=call.params, content=call.content, headers=call.headers
                )
            except httpx.TransportError as exc:
                raise ServiceUnavailable(f"{call.method} {call.path}: {exc}") from exc
            if response.status_code == 429:
                wait = retry_after_seconds(response)
                if retries < self.rate_limit_retries and wait is not None and wait <= self.max_retry_after:
                    retries += 1
                    self.sleep(wait)
                    continue
            if response.is_success:
                return response
            raise error_from(response)

    def until_terminal(self, call: Call, success_status: int) -> httpx.Response:
        """Re-send `call` identically while the wallet provider is still processing (rule 4)."""
        waited, delay = 0.0, FIRST_BACKOFF_SECONDS
        while True:
            response = self.send(call)
            if not self._processing(response, success_status):
                return response
            if waited >= self.max_processing_wait:
                headers = call.headers or {}
                raise StillProcessing(
                    request_id=headers.get(REQUEST_ID_HEADER),
                    signature=headers.get(SIGNATURE_HEADER),
                    waited=waited,
                )
            delay = min(delay, self.max_processing_wait - waited)
            self.sleep(delay)
            waited += delay
            delay = min(delay * 2, MAX_BACKOFF_SECONDS)

    @staticmethod
    def _processing(response: httpx.Response, success_status: int) -> bool:
        if response.status_code != 200:
            return False
        if success_status != 200:
            return True  # a 200 where success is 201/204 only ever means "still processing"
        return is_processing(_json_or_none(response))

    # --- the signed retry ---------------------------------------------------------------------

    def signed(
        self,
        method: str,
        path: str,
        *,
        signer: Signer | None,
        success_status: int,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        signed_legs: int = 1,
    ) -> httpx.Response:
        """Every leg of a signed-retry operation; returns the terminal answer (never a 202).
        `signed_legs`: how many signed retries the operation takes (a delegated key's creation: 2),
        each answering the next challenge with the same body."""
        call = self._call(method, path, json_body, params, headers)
        response = self.until_terminal(call, success_status)
        for _ in range(signed_legs):
            if response.status_code != 202:
                return response  # nothing (more) to consent to (e.g. a change that touches no credential)
            challenge = from_wire(SignedRequestChallenge, json_of(response))
            if signer is None:
                raise SignerRequired(challenge)
            retry = call.with_headers(
                **{
                    SIGNATURE_HEADER: signer.sign(challenge.payload_to_sign),
                    REQUEST_ID_HEADER: challenge.request_id,
                }
            )
            response = self.until_terminal(retry, success_status)
        if response.status_code == 202:
            raise UnexpectedResponse("the signed retry was answered with another challenge", status=202)
        return response

    @staticmethod
    def _call(
        method: str,
        path: str,
        json_body: Any,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
    ) -> Call:
        all_headers = dict(headers or {})
        content = None
        if json_body is not None:
            content = encode_json(json_body)
            all_headers["Content-Type"] = "application/json"
        return Call(method, path.lstrip("/"), params or None, content, all_headers)


def json_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise UnexpectedResponse(
            f"{response.status_code} answer is not JSON", status=response.status_code
        ) from exc


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` as seconds (delta-seconds or an HTTP date); `None` when absent or unreadable."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_from(response: httpx.Response) -> ServiceError:
    body = _json_or_none(response)
    status = response.status_code
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        details = body.get("details") if isinstance(body.get("details"), dict) else {}
        reason = body.get("reason") if isinstance(body.get("reason"), str) else details.get("reason")
        code, message = body["code"], str(body.get("message") or body["code"])
    else:  # not the service's error shape (a proxy's page, an empty body)
        details, reason = {}, None
        code, message = f"HTTP_{status}", (response.text[:200] or response.reason_phrase)
    kwargs: dict[str, Any] = {"headers": dict(response.headers)}
    if status == 429:
        kwargs["retry_after"] = retry_after_seconds(response)
    return error_class(status)(status, code, message, details, reason, **kwargs)
