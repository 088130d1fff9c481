"""`ServiceClient`: the service's HTTP interface for integrators (the portal is one).

Self-contained on purpose: it imports httpx, cryptography, pyhpke and base58, never Django or the
service's own modules, so it can be copied into any Python project and pointed at any deployment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from payments.client import resources
from payments.client.transport import Transport

DEFAULT_BASE_URL = "http://127.0.0.1:8000/api/2025-10-13"
USER_AGENT = "payments-service-client/1.0"


class ServiceClient:
    """A platform's client of the service: HTTP Basic with the API token's client id and secret.

    ``max_processing_wait`` bounds the backoff spent re-sending a wallet operation that answers 200
    PROCESSING; ``rate_limit_retries`` and ``max_retry_after`` bound the waits on 429 (a longer
    ``Retry-After`` is raised at once as RateLimited, so a web page can show the cool-down);
    ``sleep`` is injectable for tests; ``headers`` are sent with every request.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        client_id: str = "",
        client_secret: str = "",
        *,
        timeout: float | httpx.Timeout = 10.0,
        transport: httpx.BaseTransport | None = None,
        max_processing_wait: float = 60.0,
        rate_limit_retries: int = 2,
        max_retry_after: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        headers: Mapping[str, str] | None = None,
        otp_signer_public_key: str | None = None,
    ) -> None:
        if not client_id or not client_secret:
            raise ValueError("ServiceClient needs the API token's client_id and client_secret")
        self.base_url = base_url.rstrip("/")
        self.otp_signer_public_key = otp_signer_public_key
        self._http = httpx.Client(
            base_url=self.base_url + "/",
            auth=httpx.BasicAuth(client_id, client_secret),
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})},
            follow_redirects=False,
        )
        self._transport = Transport(
            self._http,
            sleep=sleep,
            max_processing_wait=max_processing_wait,
            rate_limit_retries=rate_limit_retries,
            max_retry_after=max_retry_after,
        )
        t = self._transport
        self.config = resources.Config(t, self)
        self.tokens = resources.Tokens(t, self)
        self.customers = resources.Customers(t, self)
        self.internal_accounts = resources.InternalAccounts(t, self)
        self.external_accounts = resources.ExternalAccounts(t, self)
        self.credentials = resources.Credentials(t, self)
        self.sessions = resources.Sessions(t, self)
        self.delegated_keys = resources.DelegatedKeys(t, self)
        self.quotes = resources.Quotes(t, self)
        self.sca = resources.Sca(t, self)
        self.transactions = resources.Transactions(t, self)
        self.cards = resources.Cards(t, self)
        self.sandbox = resources.Sandbox(t, self)
        self.exchange_rates = resources.ExchangeRates(t, self)
        self.receivers = resources.Receivers(t, self)
        self.webhooks = resources.Webhooks(t, self)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ServiceClient({self.base_url!r})"
