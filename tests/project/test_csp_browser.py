"""Content-Security-Policy in chromium: every kind of page (portal, hosted onboarding, admin, API docs,
the development OIDC provider) is served under the enforced policy and works without reporting a
violation: htmx swaps, the quote countdown, upload progress, Swagger UI, document previews in the
admin, and OAuth's redirects after a form post, to this origin and to another. The watch that every
browser test runs under (tests/browser.py) is shown to see a violation when there is one.
The WebAuthn shim and the portal's other htmx pages run under that watch in their own browser tests."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.csp import CSP
from playwright.sync_api import expect

from payments.models import Quote
from project.csp import url_origin
from tests.browser import watch_csp
from tests.payments.kyc_support import PDF, create, individual, upload
from tests.payments.test_hosted_onboarding_browser import fill_individual_details, open_link, png
from tests.payments.test_portal_money_browser import _send_to_us_account
from tests.wallets.portal_support import signed_up
from tests.wallets.test_portal_browser import sign_in_with_code, type_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def directives(response) -> dict[str, str]:
    header = response.headers.get("content-security-policy", "")
    return dict(part.strip().partition(" ")[::2] for part in header.split(";") if part.strip())


def assert_strict(response) -> dict[str, str]:
    """The enforced policy: this origin only, no inline script, no plugins, no framing by others."""
    assert "content-security-policy-report-only" not in response.headers
    policy = directives(response)
    assert policy["default-src"] == "'self'", policy
    assert policy["script-src"] == "'self'", policy
    assert policy["object-src"] == "'none'", policy
    assert policy["base-uri"] == "'none'", policy
    assert policy["form-action"].startswith("'self'"), policy
    assert policy["style-src"] == "'self'", policy
    return policy


def test_the_watch_sees_an_inline_script_and_an_eval(browser, site_url):
    context = browser.new_context()
    violations = watch_csp(context)
    page = context.new_page()
    assert_strict(page.goto(site_url + "/login/"))
    # An inline script, as an injection would add one; htmx runs hx-on handlers through Function().
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.body.append(script);
            const button = document.createElement("button");
            button.id = "with-handler";
            button.textContent = "hx-on";
            button.setAttribute("hx-on:click", "window.handlerRan = true");
            document.body.append(button);
            setTimeout(() => htmx.process(button));  // outside this evaluation, which the policy exempts
        }"""
    )
    page.click("#with-handler")
    expect(page.locator("body")).to_be_visible()
    assert page.evaluate("[window.inlineRan, window.handlerRan]") == [None, None]
    page.wait_for_timeout(200)  # the reports are delivered asynchronously
    context.close()
    assert any("script-src" in v and "inline" in v for v in violations), violations
    assert any("eval" in v for v in violations), violations


def test_oauth_linking_when_the_portal_and_the_provider_are_on_two_origins(
    page, site_url, portal_platform, settings
):
    # The portal opened at 127.0.0.1, the provider at localhost: its sign-in form posts to /oauth/login/,
    # answered with a redirect to the provider; the provider's form is answered with a redirect back.
    # Chromium checks both redirects against the form-action of the page that posted.
    portal = site_url.replace("localhost", "127.0.0.1")
    issuer_origin = url_origin(settings.PORTAL_OIDC_ISSUER)
    assert issuer_origin == site_url
    settings.SECURE_CSP = {**settings.SECURE_CSP, "form-action": [CSP.SELF, issuer_origin]}  # as settings.py
    signed_up("ola@example.com")
    sign_in_with_code(page, portal, "ola@example.com")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")

    assert_strict(page.goto(portal + "/security/"))
    page.get_by_role("button", name="Link your sign-in provider").click()
    page.wait_for_url(site_url + "/dev-oidc/authorize?**")
    policy = assert_strict(page.reload())
    assert policy["form-action"].split() == ["'self'", site_url, portal], policy
    page.fill("input[name=email]", "ola.id@example.com")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(portal + "/security/")
    expect(page.locator(".portal-messages")).to_contain_text("You can now sign in with ola.id@example.com")


def test_portal_pages_and_the_quote_countdown_swapping_the_panel(page, site_url, portal_platform):
    for path in ("/", "/login/", "/signup/"):
        assert_strict(page.goto(site_url + path))
    signed_up("cid@example.com")
    sign_in_with_code(page, site_url, "cid@example.com")  # the code boxes: the shim
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    assert_strict(page.goto(site_url + "/home/"))
    page.get_by_role("button", name="Add test funds (100 USDC)").click()  # an htmx swap
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")

    # A quote held for a few more seconds: the countdown (a static script) runs out and has htmx ask
    # the server again, which swaps in the offer of a new quote.
    _send_to_us_account(page, site_url, "123456789", "5")
    quote_id = page.url.rstrip("/").rsplit("Quote:", 1)[1]
    Quote.objects.filter(pk=quote_id).update(expires_at=timezone.now() + dt.timedelta(seconds=4))
    page.reload()
    expect(page.locator("[data-countdown]")).to_be_visible()
    expect(page.locator("[data-lapsed]")).to_contain_text("This quote has expired", timeout=15_000)
    expect(page.get_by_role("button", name="Get a new quote")).to_be_visible()


def test_hosted_onboarding_upload_progress(page, site_url, api, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane Smith 001"})
    assert_strict(page.goto(open_link(api, site_url, customer["id"])))
    page.wait_for_url("**/details/")
    page.get_by_role("button", name="Save and continue").click()  # empty: the errors swapped in
    expect(page.locator("#step-panel [role=alert]").first).to_be_visible()
    fill_individual_details(page)
    page.get_by_role("button", name="Save and continue").click()
    page.wait_for_url("**/documents/")

    # The progress bar follows the upload: read it at each progress event, after the page's handler.
    page.evaluate(
        """() => {
            window.progressSeen = [];
            document.addEventListener("htmx:xhr:progress", () => {
                const bar = document.querySelector("#upload-progress progress");
                if (bar) window.progressSeen.push(bar.value);
            });
        }"""
    )
    page.get_by_label("Type of document").select_option("PASSPORT")
    page.get_by_label("Country that issued it").fill("GB")
    page.get_by_label("File").set_input_files({"name": "p.png", "mimeType": "image/png", "buffer": png()})
    page.get_by_role("button", name="Upload document").click()
    expect(page.get_by_role("img", name="Preview of p.png")).to_be_visible()
    assert 100 in page.evaluate("window.progressSeen")


def test_admin_pages_and_document_previews(page, site_url, api, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    User.objects.create_superuser("root", "root@example.com", "a long admin password")
    customer = create(api, individual("Jane 001"))
    # One document: with SQLite the live server shares one connection between its threads, and two
    # previews loading at once could meet on it.
    upload(api, customer["id"], content=PDF, name="passport.pdf", document_type="DRIVERS_LICENSE")

    assert_strict(page.goto(site_url + "/admin/"))
    page.fill("#id_username", "root")
    page.fill("#id_password", "a long admin password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#site-name")).to_be_visible()
    assert_strict(page.goto(site_url + "/admin/payments/transaction/"))
    assert_strict(page.goto(site_url + "/admin/payments/customer/"))
    page.get_by_role("link", name="Jane 001").click()
    expect(page.get_by_role("heading", name="Decision")).to_be_visible()
    # The PDF is shown in a frame of this page: only this origin may frame a document.
    frame = page.locator("iframe[title='passport.pdf']")
    expect(frame).to_be_visible()
    document_url = site_url + frame.get_attribute("src")
    assert directives(page.request.get(document_url))["frame-ancestors"] == "'self'"
    page.goto(document_url)  # opened on its own, as its link does


def test_api_docs(page, site_url):
    policy = assert_strict(page.goto(site_url + "/api/2025-10-13/docs/"))
    assert policy["img-src"] == "'self' data:"  # Swagger UI's icons
    page.wait_for_selector(".swagger-ui .info", timeout=20_000)
    page.get_by_role("button", name="Authorize", exact=True).click()  # the UI is alive
    expect(page.get_by_role("heading", name="Available authorizations")).to_be_visible()
