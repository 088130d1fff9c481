import pytest

from payments.models import BeneficialOwner
from tests.payments.kyc_support import ADDRESS, business, create, individual, owner

pytestmark = pytest.mark.django_db


@pytest.fixture
def biz(api):
    return create(api, business("RC-001"))


def test_create_and_read_an_owner(api, biz):
    response = api.post("/beneficial-owners", owner(biz["id"], "Doe"))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["id"].startswith("BeneficialOwner:")
    assert body["customerId"] == biz["id"]
    assert body["roles"] == ["UBO", "DIRECTOR"]
    assert body["ownershipPercentage"] == 60
    assert body["kycStatus"] == "UNVERIFIED"
    assert body["personalInfo"] == {
        "firstName": "John",
        "lastName": "Doe",
        "birthDate": "1980-02-03",
        "nationality": "US",
        "address": ADDRESS,
        "idType": "SSN",
        "identifier": "123-45-6789",
    }
    assert "123-45-6789" not in BeneficialOwner.objects.get().identifier_sealed
    assert api.get(f"/beneficial-owners/{body['id']}").json() == body
    assert api.get(f"/customers/{biz['id']}").json()["beneficialOwners"] == [body]


def test_owners_belong_to_business_customers_only(api):
    person = create(api, individual())
    response = api.post("/beneficial-owners", owner(person["id"]))
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "customerId"
    assert api.get("/beneficial-owners", {"customerId": person["id"]}).status_code == 400
    assert BeneficialOwner.objects.count() == 0


def test_every_invalid_field_is_listed(api, biz):
    response = api.post(
        "/beneficial-owners",
        {
            "customerId": biz["id"],
            "roles": ["OWNER"],
            "ownershipPercentage": 101,
            "personalInfo": {"firstName": "John", "idType": "SSN", "identifier": "12", "phoneNumber": "555"},
        },
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {
        "roles[0]",
        "ownershipPercentage",
        "personalInfo.lastName",
        "personalInfo.birthDate",
        "personalInfo.nationality",
        "personalInfo.address",
        "personalInfo.identifier",
        "personalInfo.phoneNumber",
    }


def test_unknown_customer(api):
    response = api.post("/beneficial-owners", owner("Customer:01a20134-1f98-73ea-8942-959ba2de39a8"))
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert api.get("/beneficial-owners").status_code == 400  # customerId is required
    assert (
        api.get("/beneficial-owners/BeneficialOwner:01a20134-1f98-73ea-8942-959ba2de39a8").status_code == 404
    )


def test_patch_changes_only_what_is_sent(api, biz):
    created = api.post("/beneficial-owners", owner(biz["id"])).json()
    response = api.patch(
        f"/beneficial-owners/{created['id']}",
        {"ownershipPercentage": 30, "personalInfo": {"middleName": "Q", "email": "john@example.com"}},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["ownershipPercentage"] == 30
    assert body["roles"] == created["roles"]
    assert body["personalInfo"] == {**created["personalInfo"], "middleName": "Q", "email": "john@example.com"}
    response = api.patch(f"/beneficial-owners/{created['id']}", {"personalInfo": {"birthDate": "soon"}})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "personalInfo.birthDate"


def test_list_with_pagination(api, biz):
    made = [api.post("/beneficial-owners", owner(biz["id"], f"Owner{i}")).json()["id"] for i in range(3)]
    page = api.get("/beneficial-owners", {"customerId": biz["id"], "limit": 2}).json()
    assert page["totalCount"] == 3 and page["hasMore"] is True
    rest = api.get("/beneficial-owners", {"customerId": biz["id"], "cursor": page["nextCursor"]}).json()
    assert [o["id"] for o in page["data"] + rest["data"]] == list(reversed(made))


def test_owners_are_isolated_per_platform(api, other_api, biz):
    created = api.post("/beneficial-owners", owner(biz["id"])).json()
    assert other_api.get(f"/beneficial-owners/{created['id']}").status_code == 404
    assert (
        other_api.patch(f"/beneficial-owners/{created['id']}", {"ownershipPercentage": 1}).status_code == 404
    )
    assert other_api.get("/beneficial-owners", {"customerId": biz["id"]}).status_code == 404
    assert other_api.post("/beneficial-owners", owner(biz["id"])).status_code == 404
    assert BeneficialOwner.objects.count() == 1
