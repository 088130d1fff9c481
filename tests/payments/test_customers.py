import datetime as dt

import pytest

from payments import customers
from payments.models import Customer, CustomerStatusChange
from payments.wallet_seam import ContactChangeAnswer
from tests import factories
from tests.payments.kyc_support import ADDRESS, business, create, individual

pytestmark = pytest.mark.django_db

CONSENT = {
    "acceptedAt": "2025-07-21T17:32:28Z",
    "ipAddress": "198.51.100.24",
    "termsVersion": "V1",
    "acceptanceMethod": "CHECKBOX",
}


def _errors(response) -> dict:
    return {e["field"]: e for e in response.json()["details"]["errors"]}


def test_create_individual_renders_the_reference_shape(api):
    body = create(
        api,
        individual(
            platformCustomerId="ind-1",
            phoneNumber="+14155551234",
            idType="SSN",
            identifier="123-45-6789",
            nationality="US",
            countryOfIssuance="US",
            sourceOfFundsCategories=["SALARY"],
            pepStatus="NONE",
            endUserTermsConsent=CONSENT,
        ),
    )
    assert body["id"].startswith("Customer:")
    assert body["customerType"] == "INDIVIDUAL"
    assert body["platformCustomerId"] == "ind-1"
    assert body["kycStatus"] == "APPROVED"
    assert "kybStatus" not in body
    assert body["fullName"] == "Jane Smith"
    assert body["birthDate"] == "1990-01-15"
    assert body["address"] == ADDRESS
    assert body["idType"] == "SSN"
    assert "identifier" not in body  # write-only
    assert body["sourceOfFundsCategories"] == ["SALARY"]
    assert body["pepStatus"] == "NONE"
    assert body["endUserTermsConsent"] == {**CONSENT, "acceptedAt": "2025-07-21T17:32:28.000Z"}
    assert body["umaAddress"].startswith("$")
    assert body["currencies"] == ["USD"]  # inferred from the platform
    assert body["isDeleted"] is False
    stored = Customer.objects.get()
    assert stored.identifier == "123-45-6789"
    assert "123-45-6789" not in stored.identifier_sealed


def test_create_business_renders_the_reference_shape(api):
    body = create(api, business(email="finance@acme.example", umaAddress="$acme@uma.example.com"))
    assert body["customerType"] == "BUSINESS"
    assert body["kybStatus"] == "UNVERIFIED"
    assert "kycStatus" not in body
    assert body["businessInfo"]["legalName"] == "Acme Corporation"
    assert body["businessInfo"]["incorporatedOn"] == "2018-03-14"
    assert body["beneficialOwners"] == []
    assert body["umaAddress"] == "$acme@uma.example.com"
    assert body["platformCustomerId"]  # generated


def test_every_invalid_field_is_listed_at_once(api):
    response = api.post(
        "/customers",
        {
            "customerType": "INDIVIDUAL",
            "email": "not-an-email",
            "phoneNumber": "0044 123",
            "birthDate": "15/01/1990",
            "nationality": "usa",
            "address": {"line1": "x"},
            "idType": "SSN",
            "identifier": "123456789",
            "currencies": ["XXX"],
            "purposeOfAccount": "OTHER",
            "fullName": 12,
        },
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_INPUT"
    errors = _errors(response)
    assert set(errors) == {
        "email",
        "phoneNumber",
        "birthDate",
        "nationality",
        "address.postalCode",
        "address.country",
        "identifier",
        "currencies",
        "purposeOfAccountOtherDescription",
        "fullName",
    }
    assert errors["phoneNumber"]["constraint"]["pattern"]
    assert errors["address.postalCode"]["constraint"]["required"] is True
    assert errors["fullName"]["constraint"]["type"] == "string"
    assert Customer.objects.count() == 0


def test_customer_type_is_required_and_checked(api):
    for body in ({}, {"customerType": "ROBOT"}):
        response = api.post("/customers", body)
        assert response.status_code == 400
        assert _errors(response)["customerType"]["constraint"]["enum"] == ["INDIVIDUAL", "BUSINESS"]


def test_business_needs_its_business_info(api):
    response = api.post("/customers", {"customerType": "BUSINESS", "businessInfo": {"legalName": "Acme"}})
    assert response.status_code == 400
    assert {"businessInfo.country", "businessInfo.taxId", "businessInfo.incorporatedOn"} <= set(
        _errors(response)
    )
    assert "businessInfo" in _errors(api.post("/customers", {"customerType": "BUSINESS"}))


def test_duplicate_platform_customer_id_is_a_clear_conflict(api, other_api):
    create(api, individual(platformCustomerId="dup"))
    response = api.post("/customers", individual(platformCustomerId="dup"))
    assert response.status_code == 409
    assert response.json()["code"] == "CONFLICT"
    assert "platformCustomerId 'dup' already exists" in response.json()["message"]
    assert Customer.objects.count() == 1
    # Unique per platform only.
    create(other_api, individual(platformCustomerId="dup"))


def test_deleting_frees_the_platform_customer_id(api):
    first = create(api, individual(platformCustomerId="again"))
    assert api.delete(f"/customers/{first['id']}").status_code == 200
    create(api, individual(platformCustomerId="again"))


def test_taken_uma_address_is_refused(api):
    create(api, individual(umaAddress="$jane@uma.example.com"))
    response = api.post("/customers", individual(umaAddress="$jane@uma.example.com"))
    assert response.status_code == 409
    assert response.json()["code"] == "UMA_ADDRESS_EXISTS"


def test_unknown_terms_version_is_refused_with_its_code(api):
    response = api.post("/customers", individual(endUserTermsConsent={**CONSENT, "termsVersion": "V9"}))
    assert response.status_code == 400
    assert response.json()["code"] == "END_USER_TERMS_VERSION_NOT_FOUND"
    assert Customer.objects.count() == 0
    # Together with other problems it is listed with them.
    response = api.post(
        "/customers", individual(email="bad", endUserTermsConsent={**CONSENT, "termsVersion": "V9"})
    )
    assert response.json()["code"] == "INVALID_INPUT"
    assert {"email", "endUserTermsConsent.termsVersion"} <= set(_errors(response))


def test_terms_consent_fields_are_validated(api):
    response = api.post(
        "/customers",
        individual(endUserTermsConsent={"acceptedAt": "yesterday", "ipAddress": "not-an-ip"}),
    )
    errors = _errors(response)
    assert {
        "endUserTermsConsent.acceptedAt",
        "endUserTermsConsent.ipAddress",
        "endUserTermsConsent.termsVersion",
        "endUserTermsConsent.acceptanceMethod",
    } <= set(errors)


def test_end_user_terms_gives_the_current_url_and_version(api):
    response = api.get("/customers/end-user-terms")
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == "V2"
    assert body["url"].startswith("http://testserver/") and body["url"].endswith("/V2.html")


def test_get_customer_and_unknown_ids(api, other_api):
    mine = create(api, individual())
    assert api.get(f"/customers/{mine['id']}").json() == mine
    for bad in (
        "Customer:01a20134-1f98-73ea-8942-959ba2de39a8",
        "nonsense",
        "Quote:01a20134-1f98-73ea-8942-959ba2de39a8",
    ):
        response = api.get(f"/customers/{bad}")
        assert response.status_code == 404
        assert response.json()["code"] == "USER_NOT_FOUND"
    response = other_api.get(f"/customers/{mine['id']}")
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert other_api.patch(f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL"}).status_code == 404
    assert other_api.delete(f"/customers/{mine['id']}").status_code == 404


def test_patch_requires_the_discriminator_and_the_right_type(api):
    mine = create(api, individual())
    response = api.patch(f"/customers/{mine['id']}", {"fullName": "New Name"})
    assert response.status_code == 400
    assert "customerType" in _errors(response)
    response = api.patch(f"/customers/{mine['id']}", {"customerType": "BUSINESS"})
    assert response.status_code == 400
    assert _errors(response)["customerType"]["constraint"]["enum"] == ["INDIVIDUAL"]


@pytest.mark.parametrize("value", [{"a": 1}, ["INDIVIDUAL"], [], {}, 1, True, 1.5])
def test_a_customer_type_of_the_wrong_json_type_answers_400_with_its_path(api, value):
    mine = create(api, individual())
    for response in (
        api.patch(f"/customers/{mine['id']}", {"customerType": value, "fullName": "X"}),
        api.post("/customers", {**individual(), "customerType": value}),
    ):
        assert response.status_code == 400, response.content
        assert _errors(response)["customerType"]["constraint"]["type"] == "string"
    assert Customer.objects.count() == 1


def test_patch_updates_only_what_is_sent(api):
    mine = create(api, individual(phoneNumber="+14155551234"))
    response = api.patch(
        f"/customers/{mine['id']}",
        {"customerType": "INDIVIDUAL", "fullName": "Jane Q Smith", "endUserTermsConsent": CONSENT},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["fullName"] == "Jane Q Smith"
    assert body["phoneNumber"] == "+14155551234"
    assert body["endUserTermsConsent"]["termsVersion"] == "V1"
    assert body["kycStatus"] == mine["kycStatus"]  # status changes only through verification/review
    assert body["updatedAt"] >= mine["updatedAt"]


def test_patch_business_info_merges(api):
    mine = create(api, business())
    response = api.patch(
        f"/customers/{mine['id']}", {"customerType": "BUSINESS", "businessInfo": {"doingBusinessAs": "Acme"}}
    )
    assert response.status_code == 200
    info = response.json()["businessInfo"]
    assert info["doingBusinessAs"] == "Acme"
    assert info["legalName"] == "Acme Corporation"


def test_patch_validation_lists_every_field(api):
    mine = create(api, individual())
    response = api.patch(
        f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL", "email": "x", "birthDate": "never"}
    )
    assert set(_errors(response)) == {"email", "birthDate"}


def test_contact_changes_go_through_the_wallet_hook(api, monkeypatch):
    mine = create(api, individual(email="old@example.com"))
    calls = []
    challenge = {"payloadToSign": "{}", "requestId": "Request:x", "expiresAt": "2030-01-01T00:00:00Z"}

    def guard(*, customer, changes, body, wallet_signature, request_id, simulate_slow):
        calls.append((customer.email, changes.get("email"), body, wallet_signature, request_id))
        assert simulate_slow is False
        return ContactChangeAnswer(202, challenge)

    monkeypatch.setattr(customers, "contact_change_guard", guard)
    response = api.patch(
        f"/customers/{mine['id']}",
        {"customerType": "INDIVIDUAL", "email": "new@example.com"},
        HTTP_SERVICE_WALLET_SIGNATURE="stamp",
        HTTP_REQUEST_ID="Request:1",
    )
    assert response.status_code == 202
    assert response.json() == challenge
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    assert calls == [("old@example.com", "new@example.com", body, "stamp", "Request:1")]
    assert Customer.objects.get().email == "old@example.com"
    # Not consulted when the contact details do not change and no signed-retry header is sent.
    response = api.patch(
        f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL", "email": "old@example.com"}
    )
    assert response.status_code == 200
    assert len(calls) == 1
    # A signed-retry header makes it the retry of a contact change, whatever the body changes.
    response = api.patch(
        f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL"}, HTTP_REQUEST_ID="Request:1"
    )
    assert response.status_code == 202 and len(calls) == 2


def test_contact_change_without_wallet_credentials_applies_at_once(api):
    # Still pending, so no Global Account and no OTP credential tied to the email.
    mine = create(api, individual("Jane 001", email="old@example.com"))
    response = api.patch(
        f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    )
    assert response.status_code == 200
    assert response.json()["email"] == "new@example.com"


def test_soft_delete_then_410(api):
    mine = create(api, individual())
    response = api.delete(f"/customers/{mine['id']}")
    assert response.status_code == 200
    assert response.json()["isDeleted"] is True
    for call in (
        lambda: api.get(f"/customers/{mine['id']}"),
        lambda: api.patch(f"/customers/{mine['id']}", {"customerType": "INDIVIDUAL"}),
        lambda: api.delete(f"/customers/{mine['id']}"),
        lambda: api.post("/verifications", {"customerId": mine["id"]}),
    ):
        response = call()
        assert response.status_code == 410
        assert response.json()["code"] == "CUSTOMER_DELETED"
    assert api.get("/customers").json()["totalCount"] == 0
    listed = api.get("/customers", {"isIncludingDeleted": "true"}).json()
    assert [c["id"] for c in listed["data"]] == [mine["id"]]
    assert listed["data"][0]["isDeleted"] is True


def test_list_filters(api, other_api, settings):
    api.platform.supported_currencies = [{"currencyCode": "USD"}, {"currencyCode": "USDC"}]
    api.platform.save()
    a = create(api, individual(platformCustomerId="a", region="US", currencies=["USDC"]))
    b = create(api, business(platformCustomerId="b", region="MX", currencies=["USD"]))
    create(other_api, individual(platformCustomerId="a"))

    def ids(**params):
        return [c["id"] for c in api.get("/customers", params).json()["data"]]

    assert ids() == [b["id"], a["id"]]  # newest first, own platform only
    assert ids(platformCustomerId="a") == [a["id"]]
    assert ids(customerType="BUSINESS") == [b["id"]]
    assert ids(region="MX") == [b["id"]]
    assert ids(currency="USD") == [b["id"]]  # "USDC" does not match "USD"
    assert ids(currency="USDC") == [a["id"]]
    assert ids(umaAddress=a["umaAddress"]) == [a["id"]]
    assert ids(createdAfter=b["createdAt"]) == [b["id"]]
    assert ids(createdBefore=a["createdAt"]) == [a["id"]]
    assert ids(updatedAfter="2999-01-01T00:00:00Z") == []
    response = api.get("/customers", {"customerType": "ROBOT", "createdAfter": "soon"})
    assert response.status_code == 400
    assert {"customerType", "createdAfter"} <= set(_errors(response))


def test_list_pagination(api):
    made = [create(api, individual(platformCustomerId=f"p{i}"))["id"] for i in range(5)]
    page = api.get("/customers", {"limit": 2}).json()
    assert page["hasMore"] is True and page["totalCount"] == 5
    seen = [c["id"] for c in page["data"]]
    while page["hasMore"]:
        page = api.get("/customers", {"limit": 2, "cursor": page["nextCursor"]}).json()
        seen += [c["id"] for c in page["data"]]
    assert seen == list(reversed(made))
    assert api.get("/customers", {"limit": 0}).status_code == 400


def test_view_only_token_cannot_write(db):
    from tests.conftest import Api

    viewer = Api(*factories.platform_with_token(permissions=["VIEW"]))
    assert viewer.get("/customers").status_code == 200
    assert viewer.post("/customers", individual()).status_code == 403


def test_status_history_starts_with_creation(api):
    mine = create(api, individual("Pending Person 001"))
    change = CustomerStatusChange.objects.get(customer_id=mine["id"].split(":")[1])
    assert (change.from_status, change.to_status, change.actor) == ("", "PENDING", "api")


def test_terms_consent_helper(api):
    mine = create(api, individual(endUserTermsConsent=CONSENT))
    customer = Customer.objects.get(pk=mine["id"].split(":")[1])
    assert customers.consent_is_recorded(customer)
    assert not customers.consent_is_recorded(customer, at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
