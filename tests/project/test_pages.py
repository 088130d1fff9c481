import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_page_renders_in_chromium_with_local_assets(page, site_url):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(site_url + "/")
    assert page.locator("h1").inner_text() == "Payments service"
    page.click("text=API documentation")
    page.wait_for_selector(".swagger-ui .info", timeout=20_000)
    assert "Payments Service API" in page.locator(".swagger-ui .info").inner_text()
    outside = [url for url in requested if not url.startswith(site_url)]
    assert outside == []
