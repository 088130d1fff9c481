"""Bench: the portal's server time. Runs in the bench runner (Django set up, the service's database) while
the benchmark server runs.

What is measured how:

- The portal's views run here, in process, through Django's test `Client` (the whole middleware
  stack, sessions and templates; no socket in front of them), and reach the service over HTTP
  through `payments/client`, pointed at the benchmark server, as a portal deployed next to the
  service would. One request at a time; the time of each is what the portal server spends answering,
  including its waits on the service.
- The OTP login round trip cannot be replayed (a code and its signed retry are single use, and the
  portal rate-limits sign-ins per address and per client IP), so every login is a new person with
  their own wallet and client address: POST /login/ (the code is sent), GET /login/code/ (the six
  boxes), POST /login/code/ (TEK, encrypted bundle, verify and its signed retry, session key sealed
  and kept) → signed in. Its baseline is the client alone doing the service's part (challenge,
  verify and the signed retry).
- The quote confirmation page is GET /quotes/{id}/ for a signed-in person's fresh cross-currency
  quote (the page reads the quote from the service); its baseline is `client.quotes.get`. Confirm
  (the execute stamped with the kept session key, then the redirect) works once per quote, so each
  call confirms the next of many prepared quotes.
- The service keys that sign OTP bundles are pinned, as production is told to
  (`PORTAL_OTP_SIGNER_PUBLIC_KEY`).
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable

API = "/api/2025-10-13"


def _configure_portal(creds: dict, base_url: str):
    """Point the portal (in this process) at the benchmark server, as the portal's platform."""
    from django.conf import settings

    from wallets.portal.service import service_client

    settings.PORTAL_SERVICE_BASE_URL = f"{base_url}{API}"
    settings.PORTAL_CLIENT_ID, settings.PORTAL_CLIENT_SECRET = creds["clientId"], creds["clientSecret"]
    settings.PORTAL_OTP_SIGNER_PUBLIC_KEY = ""
    client = service_client()
    settings.PORTAL_OTP_SIGNER_PUBLIC_KEY = client.credentials.service_keys()["otpEncryptionSignerPublicKey"]
    return service_client()


def _people(creds: dict, count: int) -> list:
    """`count` approved customers, each with a wallet (whose EMAIL_OTP credential comes with it) and a
    portal account."""
    from payments.models import InternalAccount
    from project.bench.money import _customer, _platform
    from wallets.portal.models import PortalAccount

    platform = _platform(creds)
    people = []
    for _ in range(count):
        customer = _customer(platform, secrets.token_hex(6))
        wallet = InternalAccount.objects.create(
            platform=platform, customer=customer, type=InternalAccount.Type.EMBEDDED_WALLET, currency="USDC"
        )
        people.append(
            PortalAccount.objects.create(
                email=customer.email, customer_id=customer.public_id, wallet_account_id=wallet.public_id
            )
        )
    return people


def _browser():
    """A test client with a client address of its own (the portal limits sign-ins per address)."""
    from django.test import Client

    address = f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"  # noqa: S311
    return Client(REMOTE_ADDR=address)


def _timed(call: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def _expect(response, status: int, where: str) -> None:
    if response.status_code != status:
        raise RuntimeError(f"{where} answered {response.status_code}: {response.content[:500]!r}")


def _login(browser, email: str) -> dict[str, float]:
    """The portal's OTP login round trip; the server time of each step, in seconds."""
    steps = {}
    steps["request code"], response = _timed(lambda: browser.post("/login/", {"email": email}))
    _expect(response, 302, "POST /login/")
    steps["code page"], response = _timed(lambda: browser.get("/login/code/"))
    _expect(response, 200, "GET /login/code/")
    steps["submit code"], response = _timed(lambda: browser.post("/login/code/", {"code": "000000"}))
    _expect(response, 302, "POST /login/code/")
    return steps


def otp_login(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
    _configure_portal(creds, base_url)
    people = iter(_people(creds, calls))
    return lambda: _login(_browser(), next(people).email)


def otp_login_client_only(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
    """The service's part of a login through the client alone: challenge, then verify + signed retry."""
    from django.conf import settings

    client = _configure_portal(creds, base_url)
    signer_key = settings.PORTAL_OTP_SIGNER_PUBLIC_KEY
    credentials = []
    for person in _people(creds, calls):
        (credential,) = client.credentials.list(person.wallet_account_id)
        credentials.append(credential.id)
    queue = iter(credentials)

    def login() -> dict[str, float]:
        credential_id = next(queue)
        challenge, challenged = _timed(lambda: client.credentials.challenge(credential_id))
        verify, _ = _timed(
            lambda: client.credentials.verify_otp(
                credential_id,
                "000000",
                challenged.otp_encryption_target_bundle,
                trusted_signer_public_key=signer_key,
            )
        )
        return {"challenge": challenge, "verify + signed retry": verify}

    return login


def _signed_in_sender(creds: dict, base_url: str, *, funds: int):
    """A signed-in browser of a person whose wallet holds `funds` (USDC minor units), and a payee."""
    from payments.models import InternalAccount
    from payments.sandbox import sandbox_fund
    from project.bench.money import _payee, _platform

    _configure_portal(creds, base_url)
    (person,) = _people(creds, 1)
    browser = _browser()
    _login(browser, person.email)
    platform = _platform(creds)
    wallet = InternalAccount.objects.get(pk=person.wallet_account_id.split(":", 1)[1])
    sandbox_fund(platform=platform, account_id=wallet.pk, amount=funds)
    return browser, platform, wallet, _payee(platform, wallet.customer)


def _fresh_quote(platform, wallet, payee, amount: int = 20_000_000) -> str:
    from project.bench.money import _quote

    return _quote(platform, wallet, payee, amount).public_id  # 20 USDC → USD


def quote_page(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
    browser, platform, wallet, payee = _signed_in_sender(creds, base_url, funds=10**9)
    path = f"/quotes/{_fresh_quote(platform, wallet, payee)}/"
    first = browser.get(path)
    _expect(first, 200, f"GET {path}")
    if b"Confirm and send" not in first.content:
        raise RuntimeError(f"the quote page offers no confirmation: {first.content[:2000]!r}")

    def view() -> dict[str, float]:
        seconds, response = _timed(lambda: browser.get(path))
        _expect(response, 200, f"GET {path}")
        return {"page": seconds}

    return view


def quote_get_client_only(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
    client = _configure_portal(creds, base_url)
    _, platform, wallet, payee = _signed_in_sender(creds, base_url, funds=10**9)
    quote_id = _fresh_quote(platform, wallet, payee)
    return lambda: {"GET /quotes/{id}": _timed(lambda: client.quotes.get(quote_id))[0]}


def quote_confirm(creds: dict, base_url: str, calls: int) -> Callable[[], dict[str, float]]:
    browser, platform, wallet, payee = _signed_in_sender(creds, base_url, funds=calls * 10**7)
    quotes = iter([_fresh_quote(platform, wallet, payee, 1_000_000) for _ in range(calls)])

    def confirm() -> dict[str, float]:
        path = f"/quotes/{next(quotes)}/"
        seconds, response = _timed(lambda: browser.post(path))
        _expect(response, 302, f"POST {path}")
        if not response["Location"].startswith("/transactions/"):
            raise RuntimeError(f"POST {path} went to {response['Location']}, not the payment's status page")
        return {"confirm": seconds}

    return confirm
