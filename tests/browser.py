"""Headless Debian chromium driven by Playwright, and the CDP virtual authenticator for passkeys.

Every page of the `page` and `phone_page` fixtures is watched for Content-Security-Policy violations
(the `securitypolicyviolation` event in every frame, and chromium's console reports): a test whose
pages report one fails at teardown."""

from __future__ import annotations

import functools
import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

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


# Playwright's assertions wait 5 s by default; an htmx swap on a loaded 2-core CI machine has taken
# longer. Actions already wait 15 s (the context's default timeout below).
expect.set_options(timeout=15_000)


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


# --- page quality: what every page of the site must hold to, checked by one helper ---------------

AXE_SOURCE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_BLOCKING_IMPACTS = ("serious", "critical")

# Text a person must never read: template syntax that was not rendered, and the API's own words.
RAW_TEXT = {
    "template text": re.compile(r"\{[#%{]|[#%}]\}"),
    "a prefixed id": re.compile(
        r"\b[A-Z][A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    ),
    "an API path": re.compile(r"\((?:GET|POST|PUT|PATCH|DELETE) /"),
    "an error code": re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"),
}


@functools.cache
def _axe_source() -> str:
    return AXE_SOURCE.read_text(encoding="utf-8")


def page_quality_problems(page) -> list[str]:
    """What is wrong with the page as shown now: sideways scrolling, serious or critical axe-core
    violations, raw template or API text. Empty when the page is fine."""
    problems = []
    page.wait_for_load_state()
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    # A mobile viewport (is_mobile) widens its layout to fit the page, and innerWidth with it.
    inner_width = min(inner_width, (page.viewport_size or {}).get("width", inner_width))
    if scroll_width > inner_width:
        wide = page.evaluate(
            f"""() => [...document.querySelectorAll('body *')]
                 .filter(el => el.getBoundingClientRect().right > {inner_width} + 1)
                 .slice(0, 3).map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                   + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''))"""
        )
        problems.append(f"scrolls sideways: {scroll_width}px wide in {inner_width}px ({', '.join(wide)})")
    # Evaluated through the DevTools protocol, so a Content-Security-Policy does not stop it.
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    for violation in result["violations"]:
        if violation["impact"] in AXE_BLOCKING_IMPACTS:
            targets = "; ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
            problems.append(f"axe {violation['impact']} {violation['id']}: {violation['help']} ({targets})")
    text = page.evaluate("document.title + '\\n' + document.body.innerText")
    for what, pattern in RAW_TEXT.items():
        for found in sorted({m.group(0) for m in pattern.finditer(text)})[:3]:
            problems.append(f"shows {what}: {found!r}")
    return problems


def assert_page_quality(page) -> None:
    """The page fits its viewport without sideways scrolling, axe-core finds no serious or critical
    violation, and no raw template text or API message is shown."""
    problems = page_quality_problems(page)
    assert not problems, f"{page.url}:\n  " + "\n  ".join(problems)
