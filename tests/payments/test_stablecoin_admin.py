"""The admin's stablecoin pages: read-only, the supply shown, a provider link's secret never."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from tests.payments.stablecoin_support import UNIT, issuer, keyed, mint_body

pytestmark = pytest.mark.django_db

PAGES = {
    StablecoinProviderAccount: "stablecoinprovideraccount",
    Stablecoin: "stablecoin",
    StablecoinOperation: "stablecoinoperation",
}


def test_pages_show_links_stablecoins_and_operations_read_only(api, client):
    setup = issuer(api)
    mint = api.post(f"/stablecoins/{setup['coin']}/mints", mint_body(setup, 123 * UNIT), **keyed()).json()
    api.get(f"/stablecoin-operations/{mint['id']}")  # completes it
    client.force_login(User.objects.create_superuser("root", password="x"))
    link = StablecoinProviderAccount.objects.get()
    for model, name in PAGES.items():
        row = model.objects.get()
        listing = client.get(reverse(f"admin:payments_{name}_changelist"))
        assert listing.status_code == 200 and row.public_id in listing.content.decode()
        page = client.get(reverse(f"admin:payments_{name}_change", args=[row.pk])).content.decode()
        assert "secret-1" not in page and link.api_client_secret_sealed not in page
        assert 'name="_save"' not in page  # nothing to edit
        assert client.get(reverse(f"admin:payments_{name}_add")).status_code == 403
    coin = client.get(reverse("admin:payments_stablecoin_change", args=[Stablecoin.objects.get().pk]))
    assert str(123 * UNIT) in coin.content.decode()  # the supply
