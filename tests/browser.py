"""Headless Debian chromium driven by Playwright, and the CDP virtual authenticator for passkeys.

Every page of the `page` and `phone_page` fixtures is watched for Content-Security-Policy violations
(the `securitypolicyviolation` event in every frame, and chromium's console reports): a test whose
pages report one fails at teardown."""

from __future__ import annotations

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in the test thread; Django would refuse ORM calls from the
# test body without this test-only opt-out.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # tests run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # without these chromium tries to reach Google's hosts, which this network refuses
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        pytest.fail("Debian's chromium is needed for browser tests: run `make test` (installs it as root)")
    return path


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation(
    `${event.effectiveDirective} refused ${event.blockedURI || "inline"} on ${event.documentURI}`
  );
});
"""


def watch_csp(context) -> list[str]:
    """Collect the context's CSP violations, as the browser reports them, into the returned list."""
    violations: list[str] = []
    context.expose_function("reportCspViolation", lambda text: violations.append(text))
    context.add_init_script(CSP_LISTENER)
    context.on(
        "console",
        lambda message: (
            violations.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
    return violations


def _watched_page(browser, **options):
    context = browser.new_context(**options)
    context.set_default_timeout(15_000)
    violations = watch_csp(context)
    tab = context.new_page()
    yield tab
    context.close()
    assert violations == [], "Content-Security-Policy violations:\n" + "\n".join(violations)


@pytest.fixture
def page(browser):
    yield from _watched_page(browser, viewport={"width": 1280, "height": 900})


@pytest.fixture
def phone_page(browser):
    yield from _watched_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)


@pytest.fixture
def site_url(live_server) -> str:
    """The live server as http://localhost:<port>: WebAuthn needs the host name localhost."""
    return live_server.url.replace("127.0.0.1", "localhost")


@pytest.fixture
def virtual_authenticator(page):
    """A CDP virtual authenticator on this page: (cdp session, authenticator id)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    yield cdp, added["authenticatorId"]
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": added["authenticatorId"]})
