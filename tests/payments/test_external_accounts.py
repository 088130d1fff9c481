import pytest

from payments import external_accounts
from payments.external_accounts import (
    external_account_get,
    external_account_primary_identifier,
    external_account_sandbox_suffix,
    external_account_status_transition,
)
from payments.models import ExternalAccount, ExternalAccountStatusChange, WebhookEvent
from payments.state_machines import IllegalTransition as IllegalExternalAccountTransition
from tests import factories

pytestmark = pytest.mark.django_db

PATH = "/customers/external-accounts"
PLATFORM_PATH = "/platform/external-accounts"
STATUS_UPDATED = "EXTERNAL_ACCOUNT.STATUS_UPDATED"
PERSON = {"beneficiaryType": "INDIVIDUAL", "fullName": "John Doe"}
EU_PERSON = {**PERSON, "countryOfResidence": "DE"}
SOLANA = "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg"
ETHEREUM = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"


def usd(account_number: str = "12345678901", **fields) -> dict:
    return {
        "accountType": "USD_ACCOUNT",
        "accountNumber": account_number,
        "routingNumber": "021000021",
        "beneficiary": PERSON,
        **fields,
    }


EXAMPLES = {
    "usd": ("USD", usd(bankName="Chase Bank", bankAccountType="CHECKING")),
    "eur": (
        "EUR",
        {"accountType": "EUR_ACCOUNT", "iban": "DE89370400440532013000", "beneficiary": EU_PERSON},
    ),
    "mxn": (
        "MXN",
        {"accountType": "MXN_ACCOUNT", "clabeNumber": "032180000118359719", "beneficiary": PERSON},
    ),
    "brl-pix-email": (
        "BRL",
        {
            "accountType": "BRL_ACCOUNT",
            "pixKey": "maria@example.com",
            "pixKeyType": "EMAIL",
            "taxId": "52998224725",
            "beneficiary": PERSON,
        },
    ),
    "solana": ("USDC", {"accountType": "SOLANA_WALLET", "address": SOLANA}),
    "ethereum": ("USDT", {"accountType": "ETHEREUM_WALLET", "address": ETHEREUM}),
}


@pytest.fixture
def customer(api):
    return factories.CustomerFactory(platform=api.platform)


def create(api, customer, currency, info, *, status=201, **fields):
    body = {"currency": currency, "accountInfo": info, **fields}
    if customer is not None:
        body["customerId"] = customer.public_id
    response = api.post(PATH, body)
    assert response.status_code == status, response.json()
    return response.json()


def errors_by_field(response) -> dict:
    assert response.status_code == 400, response.json()
    return {e["field"]: e for e in response.json()["details"]["errors"]}


# --- create ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_create_valid_examples_render_the_reference_shape(api, customer, name):
    currency, info = EXAMPLES[name]
    body = create(api, customer, currency, info)
    assert body["id"].startswith("ExternalAccount:")
    assert body["customerId"] == customer.public_id
    assert body["status"] == "ACTIVE"
    assert body["currency"] == currency
    assert body["defaultUmaDepositAccount"] is False
    assert body["beneficiaryVerificationStatus"] == "MATCHED"
    assert body["accountInfo"]["accountType"] == info["accountType"]
    assert api.get(f"{PATH}/{body['id']}").json() == body


def test_fiat_accounts_carry_their_payment_rails_and_only_known_fields(api, customer):
    body = create(api, customer, "USD", usd(unknownField="dropped", beneficiary={**PERSON, "nickname": "x"}))
    assert body["accountInfo"]["paymentRails"] == ["ACH", "WIRE", "RTP", "FEDNOW"]
    assert "unknownField" not in body["accountInfo"]
    assert body["accountInfo"]["beneficiary"] == PERSON
    chosen = create(api, customer, "USD", usd("98765432101", paymentRails=["WIRE"]))
    assert chosen["accountInfo"]["paymentRails"] == ["WIRE"]


def test_optional_fields_are_stored_and_rendered(api, customer):
    body = create(api, customer, "USD", usd(), platformAccountId="ext_acc_1", ownershipType="THIRD_PARTY")
    assert body["platformAccountId"] == "ext_acc_1"
    assert body["ownershipType"] == "THIRD_PARTY"
    assert body["beneficiaryVerifiedData"] == {"fullName": "John Doe"}


def test_platform_account_id_inside_account_info_is_accepted_like_the_reference_example(api, customer):
    body = create(api, customer, "USD", usd(platformAccountId="ext_acc_123456"))
    assert body["platformAccountId"] == "ext_acc_123456"
    assert "platformAccountId" not in body["accountInfo"]


def test_checksum_failure_is_a_400_with_the_field_path(api, customer):
    response = api.post(
        PATH,
        {"customerId": customer.public_id, "currency": "USD", "accountInfo": usd(routingNumber="021000022")},
    )
    errors = errors_by_field(response)
    assert response.json()["code"] == "INVALID_INPUT"
    assert set(errors) == {"accountInfo.routingNumber"}
    assert errors["accountInfo.routingNumber"]["constraint"] == {"format": "aba-routing-number"}
    assert not ExternalAccount.objects.exists()


@pytest.mark.parametrize(
    ("info", "field"),
    [
        ({**EXAMPLES["eur"][1], "iban": "DE89370400440532013001"}, "accountInfo.iban"),
        ({**EXAMPLES["mxn"][1], "clabeNumber": "032180000118359710"}, "accountInfo.clabeNumber"),
        ({**EXAMPLES["brl-pix-email"][1], "taxId": "52998224726"}, "accountInfo.taxId"),
        (
            {"accountType": "ETHEREUM_WALLET", "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"},
            "accountInfo.address",
        ),
    ],
)
def test_other_checksum_failures(api, customer, info, field):
    currency = {"EUR_ACCOUNT": "EUR", "MXN_ACCOUNT": "MXN", "BRL_ACCOUNT": "BRL"}.get(
        info["accountType"], "USDC"
    )
    response = api.post(PATH, {"customerId": customer.public_id, "currency": currency, "accountInfo": info})
    assert field in errors_by_field(response)


def test_every_body_error_is_reported_at_once(api):
    response = api.post(
        PATH,
        {
            "customerId": "not-an-id",
            "currency": "EUR",
            "ownershipType": "SOMEONE",
            "defaultUmaDepositAccount": "yes",
            "accountInfo": {"accountType": "USD_ACCOUNT", "routingNumber": "021000022", "beneficiary": {}},
        },
    )
    errors = errors_by_field(response)
    assert {
        "customerId",
        "ownershipType",
        "defaultUmaDepositAccount",
        "currency",
        "accountInfo.accountNumber",
        "accountInfo.routingNumber",
        "accountInfo.beneficiary.beneficiaryType",
    } <= set(errors)
    assert errors["currency"]["constraint"] == {"enum": ["USD"]}


def test_missing_body_fields_and_unknown_account_type(api):
    errors = errors_by_field(api.post(PATH, {}))
    assert {"currency", "accountInfo"} <= set(errors)
    errors = errors_by_field(api.post(PATH, {"currency": "USD", "accountInfo": {"accountType": "CHEQUE"}}))
    assert set(errors) == {"accountInfo.accountType"}
    assert "USD_ACCOUNT" in errors["accountInfo.accountType"]["constraint"]["enum"]


@pytest.mark.parametrize("account_type", [{"type": "USD_ACCOUNT"}, ["USD_ACCOUNT"], 5, True])
@pytest.mark.parametrize("path", [PATH, PLATFORM_PATH])
def test_an_account_type_of_another_json_type_is_a_400_naming_it(api, path, account_type):
    errors = errors_by_field(
        api.post(path, {"currency": "USD", "accountInfo": usd(accountType=account_type)})
    )
    assert "accountInfo.accountType" in errors
    assert not ExternalAccount.objects.exists()


def test_currency_must_be_one_of_the_account_types(api, customer):
    errors = errors_by_field(
        api.post(
            PATH, {"customerId": customer.public_id, "currency": "BTC", "accountInfo": EXAMPLES["solana"][1]}
        )
    )
    assert errors["currency"]["constraint"] == {"enum": ["USDC", "USDT"]}


# --- sandbox beneficiary name verification ----------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "status"),
    [
        ("101", "MATCHED"),
        ("102", "NOT_MATCHED"),
        ("103", "PARTIAL_MATCH"),
        ("104", "PENDING"),
        ("106", "UNSUPPORTED"),
        ("107", "CHECKED_BY_RECEIVING_FI"),
        ("999", "MATCHED"),
    ],
)
def test_beneficiary_verification_follows_the_sandbox_suffix(api, customer, suffix, status):
    body = create(api, customer, "USD", usd(f"000000{suffix}"))
    assert body["beneficiaryVerificationStatus"] == status
    assert ("beneficiaryVerifiedData" in body) == (status == "MATCHED")


def test_suffix_105_is_an_invalid_account_and_nothing_is_stored(api, customer):
    response = api.post(
        PATH, {"customerId": customer.public_id, "currency": "USD", "accountInfo": usd("000000105")}
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_BANK_ACCOUNT"
    assert body["details"]["field"] == "accountInfo.accountNumber"
    assert not ExternalAccount.objects.exists()


def test_pix_email_key_suffix_is_read_from_the_user_name(api, customer):
    info = {**EXAMPLES["brl-pix-email"][1], "pixKey": "ana102@example.com"}
    assert create(api, customer, "BRL", info)["beneficiaryVerificationStatus"] == "NOT_MATCHED"


def test_production_mode_has_no_magic_suffixes(api, customer, settings):
    settings.SANDBOX = False
    body = create(api, customer, "USD", usd("000000105"))
    assert body["beneficiaryVerificationStatus"] == "PENDING"
    account = ExternalAccount.objects.get()
    assert external_account_sandbox_suffix(account) == ""


# --- owners ---------------------------------------------------------------------------------------


def test_unknown_customer_is_user_not_found(api, other_api):
    stranger = factories.CustomerFactory(platform=other_api.platform)
    for customer_id in ("Customer:019542f5-b3e7-1d02-0000-000000000001", stranger.public_id):
        response = api.post(PATH, {"customerId": customer_id, "currency": "USD", "accountInfo": usd()})
        assert response.status_code == 404
        assert response.json()["code"] == "USER_NOT_FOUND"
    assert not ExternalAccount.objects.exists()


def test_deleted_customer_is_refused(api, customer):
    assert api.delete(f"/customers/{customer.public_id}").status_code == 200
    response = api.post(PATH, {"customerId": customer.public_id, "currency": "USD", "accountInfo": usd()})
    assert response.status_code == 410
    assert response.json()["code"] == "CUSTOMER_DELETED"


def test_platform_twins_hold_only_the_platforms_own_accounts(api, customer):
    mine = create(api, customer, "USD", usd())
    response = api.post(PLATFORM_PATH, {"currency": "EUR", "accountInfo": EXAMPLES["eur"][1]})
    assert response.status_code == 201
    platform_account = response.json()
    assert "customerId" not in platform_account
    assert api.get(f"{PLATFORM_PATH}/{platform_account['id']}").json() == platform_account
    assert api.get(f"{PLATFORM_PATH}/{mine['id']}").status_code == 404
    assert [a["id"] for a in api.get(PLATFORM_PATH).json()["data"]] == [platform_account["id"]]
    # The customer paths see every account of the platform (customerId is optional on create).
    assert {a["id"] for a in api.get(PATH).json()["data"]} == {mine["id"], platform_account["id"]}
    assert api.get(f"{PATH}/{platform_account['id']}").status_code == 200
    without_customer = create(api, None, "MXN", EXAMPLES["mxn"][1])
    assert "customerId" not in without_customer
    assert api.get(f"{PLATFORM_PATH}/{without_customer['id']}").status_code == 200


def test_platform_create_reports_errors_like_the_customer_create(api):
    errors = errors_by_field(api.post(PLATFORM_PATH, {"currency": "USD", "accountInfo": usd("12")}))
    assert set(errors) == {"accountInfo.accountNumber"}


def test_default_uma_deposit_account_needs_a_customer(api):
    errors = errors_by_field(
        api.post(PATH, {"currency": "USD", "accountInfo": usd(), "defaultUmaDepositAccount": True})
    )
    assert set(errors) == {"defaultUmaDepositAccount"}


def test_a_new_default_uma_deposit_account_replaces_the_old_one(api, customer):
    first = create(api, customer, "USD", usd("11111111101"), defaultUmaDepositAccount=True)
    second = create(api, customer, "USD", usd("11111111201"), defaultUmaDepositAccount=True)
    assert api.get(f"{PATH}/{first['id']}").json()["defaultUmaDepositAccount"] is False
    assert api.get(f"{PATH}/{second['id']}").json()["defaultUmaDepositAccount"] is True


def test_other_platforms_cannot_see_or_delete(api, other_api, customer):
    account = create(api, customer, "USD", usd())
    for path in (f"{PATH}/{account['id']}", f"{PLATFORM_PATH}/{account['id']}"):
        assert other_api.get(path).status_code == 404
        assert other_api.delete(path).status_code == 404
    assert other_api.get(PATH).json()["data"] == []
    assert api.get(f"{PATH}/{account['id']}").status_code == 200


@pytest.mark.parametrize(
    "bad_id", ["nope", "ExternalAccount:not-a-uuid", "Customer:019542f5-b3e7-1d02-0000-000000000001"]
)
def test_unknown_ids_are_404(api, bad_id):
    response = api.get(f"{PATH}/{bad_id}")
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


# --- duplicates -----------------------------------------------------------------------------------


def test_duplicate_account_is_a_conflict(api, customer):
    create(api, customer, "USD", usd())
    response = api.post(PATH, {"customerId": customer.public_id, "currency": "USD", "accountInfo": usd()})
    assert response.status_code == 409
    assert response.json()["code"] == "CONFLICT"
    assert ExternalAccount.objects.count() == 1


def test_duplicate_rules(api, customer):
    create(api, customer, "USDC", {"accountType": "ETHEREUM_WALLET", "address": ETHEREUM})
    lower = {"accountType": "ETHEREUM_WALLET", "address": ETHEREUM.lower()}
    assert (
        api.post(
            PATH, {"customerId": customer.public_id, "currency": "USDC", "accountInfo": lower}
        ).status_code
        == 409
    )
    create(api, customer, "USDT", lower)  # another currency is another account
    create(api, customer, "USD", usd(routingNumber="011000015"))  # same number at another bank
    create(api, customer, "USD", usd())
    other = factories.CustomerFactory(platform=api.platform)
    create(api, other, "USD", usd())  # another owner


# --- lists ----------------------------------------------------------------------------------------


def test_list_filters_and_pagination(api, customer):
    other = factories.CustomerFactory(platform=api.platform)
    ids = [create(api, customer, "USD", usd(f"1234567{n:03d}01"))["id"] for n in range(3)]
    eur = create(api, customer, "EUR", EXAMPLES["eur"][1])["id"]
    theirs = create(api, other, "USD", usd())["id"]

    body = api.get(PATH, {"customerId": customer.public_id}).json()
    assert [a["id"] for a in body["data"]] == [eur, *reversed(ids)]
    assert body["totalCount"] == 4
    assert body["hasMore"] is False
    assert [a["id"] for a in api.get(PATH, {"currency": "EUR"}).json()["data"]] == [eur]
    assert [a["id"] for a in api.get(PATH, {"customerId": other.public_id}).json()["data"]] == [theirs]

    page = api.get(PATH, {"customerId": customer.public_id, "currency": "USD", "limit": 2}).json()
    assert page["hasMore"] is True and page["totalCount"] == 3
    rest = api.get(
        PATH, {"customerId": customer.public_id, "currency": "USD", "limit": 2, "cursor": page["nextCursor"]}
    ).json()
    assert [a["id"] for a in page["data"] + rest["data"]] == list(reversed(ids))
    assert rest["hasMore"] is False


def test_list_query_errors(api):
    assert "customerId" in errors_by_field(api.get(PATH, {"customerId": "nope"}))
    assert "limit" in errors_by_field(api.get(PATH, {"limit": "0"}))


# --- delete ---------------------------------------------------------------------------------------


def test_delete_makes_the_account_inactive_and_hides_it(api, customer):
    account = create(api, customer, "USD", usd())
    assert api.delete(f"{PATH}/{account['id']}").status_code == 204
    assert api.get(f"{PATH}/{account['id']}").status_code == 404
    assert api.get(PATH).json()["data"] == []
    assert api.delete(f"{PATH}/{account['id']}").status_code == 404
    stored = ExternalAccount.objects.get()
    assert stored.status == "INACTIVE" and stored.is_deleted
    event = WebhookEvent.objects.get(type=STATUS_UPDATED)
    assert event.payload["data"]["id"] == account["id"]
    assert event.payload["data"]["status"] == "INACTIVE"
    # Found again only on request (transaction history), and registrable again.
    assert external_account_get(platform=api.platform, account_id=stored.pk, include_deleted=True) == stored
    assert create(api, customer, "USD", usd())["id"] != account["id"]


def test_platform_delete_only_deletes_platform_accounts(api, customer):
    mine = create(api, customer, "USD", usd())
    assert api.delete(f"{PLATFORM_PATH}/{mine['id']}").status_code == 404
    platform_account = api.post(PLATFORM_PATH, {"currency": "USD", "accountInfo": usd()}).json()
    assert api.delete(f"{PLATFORM_PATH}/{platform_account['id']}").status_code == 204
    assert api.get(f"{PLATFORM_PATH}/{platform_account['id']}").status_code == 404


# --- first status and the status machine ----------------------------------------------------------


@pytest.mark.parametrize(
    ("currency", "info", "ownership", "status"),
    [
        (
            "USDC",
            {"accountType": "SOLANA_WALLET", "address": SOLANA},
            "FIRST_PARTY",
            "PENDING_OWNERSHIP_VERIFICATION",
        ),
        (
            "USDT",
            {"accountType": "ETHEREUM_WALLET", "address": ETHEREUM},
            "FIRST_PARTY",
            "PENDING_OWNERSHIP_VERIFICATION",
        ),
        (
            "USDC",
            {"accountType": "SOLANA_WALLET", "address": SOLANA, "vaspName": "Kraken"},
            "FIRST_PARTY",
            "ACTIVE",
        ),
        ("USDC", {"accountType": "SOLANA_WALLET", "address": SOLANA}, "THIRD_PARTY", "ACTIVE"),
        ("USDC", {"accountType": "SOLANA_WALLET", "address": SOLANA}, None, "ACTIVE"),
        (
            "BTC",
            {"accountType": "LIGHTNING", "lightningAddress": "alice@wallet.example"},
            "FIRST_PARTY",
            "ACTIVE",
        ),
        ("USD", usd(), "FIRST_PARTY", "ACTIVE"),
    ],
)
def test_first_status(api, customer, currency, info, ownership, status):
    fields = {"ownershipType": ownership} if ownership else {}
    assert create(api, customer, currency, info, **fields)["status"] == status


def _account(api, customer, status="ACTIVE") -> ExternalAccount:
    account = ExternalAccount.objects.get(pk=create(api, customer, "USD", usd())["id"].split(":", 1)[1])
    ExternalAccount.objects.filter(pk=account.pk).update(status=status)
    account.refresh_from_db()
    return account


@pytest.mark.parametrize(
    ("start", "to"),
    [(start, to) for start, moves in external_accounts.ALLOWED_TRANSITIONS.items() for to in sorted(moves)],
)
def test_every_allowed_move_records_history_and_emits_the_webhook(api, customer, start, to):
    account = _account(api, customer, start)
    result = external_account_status_transition(account, to, reason="test")
    assert result.status == account.status == to
    change = ExternalAccountStatusChange.objects.get(account=account)
    assert (change.from_status, change.to_status, change.reason) == (start, to, "test")
    event = WebhookEvent.objects.get(type=STATUS_UPDATED)
    assert event.payload["data"]["status"] == to
    assert event.payload["data"]["id"] == account.public_id


@pytest.mark.parametrize(
    ("start", "to"),
    [
        (start, to)
        for start in ExternalAccount.Status.values
        for to in ExternalAccount.Status.values
        if start != to and to not in external_accounts.ALLOWED_TRANSITIONS[start]
    ],
)
def test_every_other_move_is_refused(api, customer, start, to):
    account = _account(api, customer, start)
    with pytest.raises(IllegalExternalAccountTransition) as raised:
        external_account_status_transition(account, to)
    assert raised.value.status == 409
    assert raised.value.code == "INVALID_STATE_TRANSITION"
    account.refresh_from_db()
    assert account.status == start
    assert not WebhookEvent.objects.filter(type=STATUS_UPDATED).exists()


def test_entering_the_current_status_is_a_no_op(api, customer):
    account = _account(api, customer, "ACTIVE")
    assert external_account_status_transition(account, "ACTIVE").status == "ACTIVE"
    assert not ExternalAccountStatusChange.objects.exists()
    assert not WebhookEvent.objects.exists()


def test_ownership_verification_path(api, customer):
    body = create(
        api,
        customer,
        "USDC",
        {"accountType": "SOLANA_WALLET", "address": SOLANA},
        ownershipType="FIRST_PARTY",
    )
    account = ExternalAccount.objects.get()
    for to in ("UNVERIFIED", "PENDING_OWNERSHIP_VERIFICATION", "ACTIVE"):
        external_account_status_transition(account, to)
    assert api.get(f"{PATH}/{body['id']}").json()["status"] == "ACTIVE"
    assert [e.payload["data"]["status"] for e in WebhookEvent.objects.order_by("created_at", "pk")] == [
        "UNVERIFIED",
        "PENDING_OWNERSHIP_VERIFICATION",
        "ACTIVE",
    ]


# --- helpers for the money side -------------------------------------------------------------------


def test_primary_identifier_and_sandbox_suffix(api, customer):
    create(api, customer, "USD", usd("000000002"))
    create(api, customer, "BRL", {**EXAMPLES["brl-pix-email"][1], "pixKey": "joao004@example.com"})
    usd_account = ExternalAccount.objects.get(account_type="USD_ACCOUNT")
    pix_account = ExternalAccount.objects.get(account_type="BRL_ACCOUNT")
    assert external_account_primary_identifier(usd_account) == "000000002"
    assert external_account_sandbox_suffix(usd_account) == "002"
    assert external_account_primary_identifier(pix_account) == "joao004@example.com"
    assert external_account_sandbox_suffix(pix_account) == "004"


# --- concurrency (PostgreSQL) ---------------------------------------------------------------------


def _race(count: int, work) -> list[str]:
    import threading

    from django.db import connection

    outcomes: list[str] = []
    barrier = threading.Barrier(count)

    def run(i: int) -> None:
        try:
            barrier.wait()
            outcomes.append(work(i))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_verification_outcomes_take_effect_once():
    platform = factories.PlatformFactory()
    account = external_accounts.external_account_create(
        platform=platform,
        currency="USDC",
        account_info={"accountType": "SOLANA_WALLET", "address": SOLANA},
        ownership_type="FIRST_PARTY",
    )
    assert account.status == "PENDING_OWNERSHIP_VERIFICATION"

    def decide(i: int) -> str:
        try:
            external_account_status_transition(
                ExternalAccount.objects.get(pk=account.pk), ("ACTIVE", "UNVERIFIED")[i % 2]
            )
            return "ok"
        except IllegalExternalAccountTransition:
            return "refused"

    outcomes = _race(8, decide)
    account.refresh_from_db()
    assert account.status in ("ACTIVE", "UNVERIFIED")
    assert list(account.status_changes.values_list("to_status", flat=True)) == [account.status]
    assert WebhookEvent.objects.filter(type=STATUS_UPDATED).count() == 1
    assert outcomes.count("refused") == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_creates_store_one_account():
    from payments.errors import Conflict

    customer = factories.CustomerFactory()

    def create_one(i: int) -> str:
        try:
            external_accounts.external_account_create(
                platform=customer.platform, currency="USD", account_info=usd(), customer_id=customer.pk
            )
            return "created"
        except Conflict:
            return "conflict"

    outcomes = _race(6, create_one)
    assert sorted(outcomes) == ["conflict"] * 5 + ["created"]
    assert ExternalAccount.objects.count() == 1


def test_admin_lists_searches_and_filters_accounts(api, customer, admin_client):
    from django.urls import reverse

    create(api, customer, "USD", usd(), platformAccountId="ext_acc_admin")
    account = ExternalAccount.objects.get()
    changelist = reverse("admin:payments_externalaccount_changelist")
    assert account.public_id in admin_client.get(changelist, {"q": "ext_acc_admin"}).content.decode()
    assert account.public_id in admin_client.get(changelist, {"status__exact": "ACTIVE"}).content.decode()
    assert (
        account.public_id not in admin_client.get(changelist, {"status__exact": "INACTIVE"}).content.decode()
    )
    page = admin_client.get(reverse("admin:payments_externalaccount_change", args=[account.pk]))
    assert page.status_code == 200
    assert "021000021" in page.content.decode()
