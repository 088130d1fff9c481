"""The portal's sandbox banner shows the platform's sandbox clock once it is not real time, and its
'Advance 10 minutes' control moves it (a 003 payout completes); a quote and a sign-in lock end by
that clock."""

from __future__ import annotations

import pytest

from payments.models import Platform
from tests.payments.portal_money_support import bank_send, confirm, funded, quote_page, visible_text, words
from tests.wallets.portal_support import PortalBrowser, signed_up

pytestmark = pytest.mark.django_db(transaction=True)

ADVANCE = "/sandbox/clock/advance/"


def test_the_banner_shows_the_moved_clock_and_advancing_completes_a_slow_payout(portal_platform):
    browser = funded("clock@example.com")
    status_url = confirm(browser, quote_page(browser, bank_send("123456003")))
    page = words(browser.get(status_url))
    assert 'data-status="PROCESSING"' in page
    assert "Advance 10 minutes" in page and "Sandbox clock:" not in page  # real time: no clock shown
    moved = browser.post(ADVANCE, {"next": status_url})
    assert moved.status_code == 302 and moved["Location"] == status_url
    page = browser.get(status_url)
    text = visible_text(page)
    assert 'data-status="COMPLETED"' in words(page)
    assert "Sandbox clock:" in text and "10 minutes ahead of real time" in text
    assert "The sandbox clock moved 10 minutes forward." in text


def test_a_quote_lapses_by_the_sandbox_clock(portal_platform):
    browser = funded("lapse@example.com")
    url = quote_page(browser, bank_send(locked_side="RECEIVING", amount="5"))
    for _ in range(4):  # 40 minutes: past any quote's lifetime
        browser.post(ADVANCE, {"next": url})
    page = words(browser.get(url))
    assert "This quote has expired" in page and "Confirm and send" not in page


def test_advancing_needs_a_sign_in_and_an_outside_next_goes_home(portal_platform):
    anonymous = PortalBrowser()
    assert anonymous.post(ADVANCE).status_code == 302
    assert Platform.objects.get(pk=portal_platform.platform.pk).sandbox_clock_offset.total_seconds() == 0
    browser = funded("next@example.com")
    moved = browser.post(ADVANCE, {"next": "https://evil.example/"})
    assert moved.status_code == 302 and moved["Location"] == "/home/"
    assert Platform.objects.get(pk=portal_platform.platform.pk).sandbox_clock_offset.total_seconds() >= 600


def test_a_sign_in_lock_ends_when_the_sandbox_clock_passes_it(portal_platform, settings):
    settings.WALLET_OTP_MAX_FAILED_ATTEMPTS = 2
    signed_up("lock@example.com")
    browser = PortalBrowser()
    browser.start_code_login("lock@example.com")
    browser.enter_code("222222")
    locked = browser.enter_code("333333")
    assert locked.status_code == 423 and "(in 15 minutes)" in visible_text(locked)
    signed_in = funded("mover@example.com")
    signed_in.post(ADVANCE)
    # The lock ends 5 minutes from now on the service's clock, and so the portal says.
    still = browser.enter_code()
    assert still.status_code == 423 and "(in 5 minutes)" in visible_text(still)
    signed_in.post(ADVANCE)
    # The lock is over; the code it held back lapsed meanwhile (5 minutes), by the same clock.
    after = visible_text(browser.enter_code())
    assert "locked" not in after and "This code has expired. Ask for a new code below." in after


def test_a_session_that_lapsed_on_the_sandbox_clock_sends_the_user_to_sign_in(portal_platform):
    browser = funded("lapsed@example.com")
    browser.post(ADVANCE)
    browser.post(ADVANCE)  # 20 minutes: past the wallet session's 15
    url = quote_page(browser, bank_send())
    response = browser.post(url)
    assert response.status_code == 302, visible_text(response)
    assert response["Location"].startswith("/login/?next=%2Fquotes%2FQuote"), response["Location"]
