"""The portal's sandbox banner shows the platform's sandbox clock once it is not real time, and its
'Advance 10 minutes' control moves it (a 003 payout completes); a quote lapses by that clock."""

from __future__ import annotations

import pytest

from payments.models import Platform
from tests.payments.portal_money_support import bank_send, confirm, funded, quote_page, visible_text, words
from tests.wallets.portal_support import PortalBrowser

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
