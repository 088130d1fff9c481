"""accountInfo validation, checksums and the sandbox's beneficiary suffixes (pure; no database)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.account_info import (
    ACCOUNT_TYPES,
    BENEFICIARY_VERIFICATION_STATUSES,
    EXTERNAL_ACCOUNT_TYPES,
    PAYMENT_RAILS,
    FieldError,
    InvalidSandboxAccount,
    keccak256,
    primary_identifier,
    sandbox_beneficiary_status,
    sandbox_suffix,
    validate_account_info,
)

PERSON = {"beneficiaryType": "INDIVIDUAL", "fullName": "Ana Souza"}
EU_PERSON = {**PERSON, "countryOfResidence": "DE"}
ADDRESS = {"line1": "1 Main St", "postalCode": "00100", "country": "KE"}
COMPANY = {"beneficiaryType": "BUSINESS", "legalName": "Acme Ltda"}


# --- independent reference implementations used to build test values ------------------------------

BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values: list[int]) -> int:
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for value in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            chk ^= generator[i] if (top >> i) & 1 else 0
    return chk


def bech32m_encode(hrp: str, payload: bytes) -> str:
    """Encode bytes as bech32m (8→5 bit regrouping, zero padded), for building Spark addresses."""
    bits = "".join(f"{b:08b}" for b in payload)
    bits += "0" * (-len(bits) % 5)
    data = [int(bits[i : i + 5], 2) for i in range(0, len(bits), 5)]
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    residue = _polymod(expanded + data + [0] * 6) ^ 0x2BC830A3
    checksum = [(residue >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32_CHARSET[d] for d in data + checksum)


def aba_with_check_digit(first8: str) -> str:
    d = [int(c) for c in first8]
    partial = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5]
    return first8 + str(-partial % 10)


def clabe_with_check_digit(first17: str) -> str:
    total = sum(int(c) * w % 10 for c, w in zip(first17, [3, 7, 1] * 6, strict=False))
    return first17 + str((10 - total % 10) % 10)


def iban_with_check_digits(country: str, bban: str) -> str:
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def change_one_digit(value: str, index: int, delta: int) -> str:
    """Replace the digit at ``index`` with a different digit."""
    return value[:index] + str((int(value[index]) + delta) % 10) + value[index + 1 :]


def errors(info: object, **kwargs) -> dict[str, FieldError]:
    result = validate_account_info(info, **kwargs)
    by_field = {e.field: e for e in result}
    assert len(by_field) == len(result), f"one error per field expected: {result}"
    return by_field


def field_error(account_type: str, name: str, value: object, **info) -> FieldError | None:
    """The error on accountInfo.<name> when only that field is set to ``value`` in a valid body."""
    body = {**VALID[account_type], **info, name: value}
    return errors(body).get(f"accountInfo.{name}")


SPARK_ADDRESS = bech32m_encode("spark", bytes([0x0A, 0x21, 0x02]) + bytes(range(1, 33)))
LIGHTNING_INVOICE = (
    "lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5"
    "f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrm"
    "rl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hs"
)  # the reference's example invoice; its bech32 checksum is valid

# One valid body per account type (beneficiary included where the type requires one).
VALID: dict[str, dict] = {
    "AED_ACCOUNT": {"iban": "AE070331234567890123456", "beneficiary": {**PERSON, "address": ADDRESS}},
    "ARS_ACCOUNT": {"accountNumber": "0000003100062244154712", "beneficiary": PERSON},
    "BDT_ACCOUNT": {"bankName": "Sonali Bank", "accountNumber": "1234567890", "beneficiary": PERSON},
    "BRL_ACCOUNT": {
        "pixKey": "ana.souza@example.com.br",
        "pixKeyType": "EMAIL",
        "taxId": "52998224725",
        "beneficiary": PERSON,
    },
    "BWP_ACCOUNT": {"phoneNumber": "+26771234567", "provider": "Orange", "beneficiary": PERSON},
    "CAD_ACCOUNT": {
        "bankCode": "001",
        "branchCode": "00012",
        "accountNumber": "1234567",
        "beneficiary": PERSON,
    },
    "CNY_ACCOUNT": {"bankName": "Alipay", "phoneNumber": "+8613800138000", "beneficiary": PERSON},
    "COP_ACCOUNT": {
        "bankName": "Bancolombia",
        "accountNumber": "12345678901",
        "bankAccountType": "SAVINGS",
        "beneficiary": {**PERSON, "documentType": "CC", "documentNumber": "1020304050"},
    },
    "DKK_ACCOUNT": {"iban": "DK5000400440116243", "beneficiary": PERSON},
    "EGP_ACCOUNT": {"bankName": "CIB", "iban": "EG380019000500000000263180002", "beneficiary": PERSON},
    "EUR_ACCOUNT": {"iban": "DE89370400440532013000", "swiftCode": "COBADEFF", "beneficiary": EU_PERSON},
    "GBP_ACCOUNT": {"sortCode": "12-34-56", "accountNumber": "12345678", "beneficiary": PERSON},
    "GHS_ACCOUNT": {"bankName": "GCB Bank", "accountNumber": "1234567890123", "beneficiary": PERSON},
    "GTQ_ACCOUNT": {
        "accountNumber": "1234567890",
        "bankAccountType": "CHECKING",
        "bankName": "Banco Industrial",
        "beneficiary": {**PERSON, "countryOfResidence": "GT", "phoneNumber": "+50212345678"},
    },
    "HKD_ACCOUNT": {
        "bankName": "HSBC",
        "accountNumber": "123456789012",
        "swiftCode": "HSBCHKHHHKH",
        "beneficiary": PERSON,
    },
    "HTG_ACCOUNT": {"phoneNumber": "+50937123456", "beneficiary": PERSON},
    "IDR_ACCOUNT": {
        "bankName": "Bank Central Asia",
        "accountNumber": "1234567890",
        "swiftCode": "CENAIDJA",
        "phoneNumber": "+6281234567890",
        "beneficiary": PERSON,
    },
    "INR_ACCOUNT": {"vpa": "ana@upi", "beneficiary": PERSON},
    "JMD_ACCOUNT": {
        "accountNumber": "123456789",
        "branchCode": "12345",
        "bankAccountType": "SAVINGS",
        "bankName": "NCB",
        "beneficiary": {**PERSON, "address": ADDRESS, "phoneNumber": "+18765551234"},
    },
    "KES_ACCOUNT": {"phoneNumber": "+254712345678", "provider": "M-Pesa", "beneficiary": PERSON},
    "MWK_ACCOUNT": {"phoneNumber": "+265991234567", "provider": "Airtel", "beneficiary": PERSON},
    "MXN_ACCOUNT": {"clabeNumber": "032180000118359719", "beneficiary": PERSON},
    "MYR_ACCOUNT": {
        "bankName": "Maybank",
        "accountNumber": "1234567890",
        "swiftCode": "MBBEMYKL",
        "beneficiary": PERSON,
    },
    "NGN_ACCOUNT": {"accountNumber": "0123456789", "bankName": "GTBank", "beneficiary": PERSON},
    "PHP_ACCOUNT": {"bankName": "BDO Unibank", "accountNumber": "001234567890", "beneficiary": PERSON},
    "PKR_ACCOUNT": {
        "bankName": "Standard Chartered",
        "accountNumber": "01123456702",
        "iban": "PK36SCBL0000001123456702",
        "beneficiary": PERSON,
    },
    "RWF_ACCOUNT": {"phoneNumber": "+250781234567", "provider": "MTN", "beneficiary": PERSON},
    "SGD_ACCOUNT": {"accountNumber": "0123456789", "swiftCode": "DBSSSGSG", "beneficiary": PERSON},
    "SLV_ACCOUNT": {"phoneNumber": "+50312345678", "beneficiary": PERSON},
    "THB_ACCOUNT": {
        "bankName": "Bangkok Bank",
        "accountNumber": "1234567890",
        "swiftCode": "BKKBTHBK",
        "beneficiary": PERSON,
    },
    "TZS_ACCOUNT": {"phoneNumber": "+255712345678", "provider": "Vodacom", "beneficiary": PERSON},
    "UGX_ACCOUNT": {"phoneNumber": "+256712345678", "provider": "MTN", "beneficiary": PERSON},
    "USD_ACCOUNT": {
        "accountNumber": "1234567890",
        "routingNumber": "021000021",
        "bankName": "Chase Bank",
        "bankAccountType": "CHECKING",
        "bankAddress": "885 Teaneck Road, Teaneck, NJ 07666",
        "beneficiary": PERSON,
    },
    "VND_ACCOUNT": {
        "bankName": "Vietcombank",
        "accountNumber": "1234567890",
        "swiftCode": "BFTVVNVX",
        "beneficiary": PERSON,
    },
    "XAF_ACCOUNT": {"phoneNumber": "+237612345678", "provider": "MTN", "region": "CM", "beneficiary": PERSON},
    "XOF_ACCOUNT": {
        "phoneNumber": "+221771234567",
        "provider": "Orange",
        "region": "SN",
        "beneficiary": PERSON,
    },
    "ZAR_ACCOUNT": {"accountNumber": "1234567890", "bankName": "FNB", "beneficiary": PERSON},
    "ZMW_ACCOUNT": {"phoneNumber": "+260971234567", "provider": "Airtel", "beneficiary": PERSON},
    "SWIFT_ACCOUNT": {
        "swiftCode": "DEUTDEFF",
        "bankName": "Deutsche Bank",
        "country": "NG",
        "accountNumber": "1234567890",
        "beneficiary": COMPANY,
    },
    "BASE_WALLET": {"address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"},
    "ETHEREUM_WALLET": {"address": "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"},
    "LIGHTNING": {"lightningAddress": "satoshi@getalby.com"},
    "PLASMA_WALLET": {"address": "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"},
    "POLYGON_WALLET": {"address": "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"},
    "SOLANA_WALLET": {"address": "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg"},
    "SPARK_WALLET": {"address": SPARK_ADDRESS},
    "TRON_WALLET": {"address": "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"},
    "BITCOIN_L1": {"address": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"},
}
VALID = {t: {"accountType": t, **fields} for t, fields in VALID.items()}


# --- the table ---------------------------------------------------------------------------------------


REFERENCE_EXTERNAL_TYPES = {
    *(f"{c}_ACCOUNT" for c in "AED BDT BRL BWP CAD COP DKK EGP EUR GBP GHS GTQ HKD HTG IDR INR JMD KES MWK MXN "
      "MYR NGN PHP PKR RWF SGD SLV THB TZS UGX USD VND XAF XOF ZAR ZMW SWIFT CNY".split()),
    "BASE_WALLET", "ETHEREUM_WALLET", "LIGHTNING", "PLASMA_WALLET", "POLYGON_WALLET", "SOLANA_WALLET",
    "SPARK_WALLET", "TRON_WALLET",
}  # fmt: skip


def test_table_covers_the_reference_types_plus_ars_and_bitcoin_l1():
    assert set(EXTERNAL_ACCOUNT_TYPES) == REFERENCE_EXTERNAL_TYPES
    assert set(ACCOUNT_TYPES) == REFERENCE_EXTERNAL_TYPES | {"ARS_ACCOUNT", "BITCOIN_L1"}
    assert set(VALID) == set(ACCOUNT_TYPES)


@pytest.mark.parametrize("account_type", sorted(ACCOUNT_TYPES))
def test_table_entries_are_consistent(account_type):
    spec = ACCOUNT_TYPES[account_type]
    assert spec.account_type == account_type
    assert not set(spec.required) & set(spec.optional)
    assert set(spec.primary_identifier) <= set(spec.fields)
    assert {name for group in spec.any_of.values() for name in group} <= set(spec.fields)
    assert set(spec.payment_rails) <= set(PAYMENT_RAILS)
    if spec.kind == "fiat":
        assert account_type == "SWIFT_ACCOUNT" or len(spec.currencies) == 1
    else:
        assert spec.network and spec.currencies and not spec.payment_rails
    for field_spec in spec.fields.values():
        pattern = field_spec.constraint.get("pattern")
        if pattern:  # reported to clients as a JavaScript regex: anchored, no Python-only syntax
            assert pattern.startswith("^") and pattern.endswith("$") and "(?" not in pattern
            re.compile(pattern)


def test_table_rows_carry_currency_rails_and_identifier():
    usd, brl, mxn = ACCOUNT_TYPES["USD_ACCOUNT"], ACCOUNT_TYPES["BRL_ACCOUNT"], ACCOUNT_TYPES["MXN_ACCOUNT"]
    assert usd.currencies == ("USD",) and usd.payment_rails == ("ACH", "WIRE", "RTP", "FEDNOW")
    assert set(usd.required) == {"accountNumber", "routingNumber"} and "bankAddress" in usd.optional
    assert usd.primary_identifier == ("accountNumber",)
    assert brl.payment_rails == ("PIX",) and brl.primary_identifier == ("pixKey",)
    assert mxn.payment_rails == ("SPEI",) and mxn.primary_identifier == ("clabeNumber",)
    assert ACCOUNT_TYPES["EUR_ACCOUNT"].payment_rails == ("SEPA", "SEPA_INSTANT")
    assert ACCOUNT_TYPES["GBP_ACCOUNT"].payment_rails == ("FASTER_PAYMENTS",)
    assert ACCOUNT_TYPES["INR_ACCOUNT"].payment_rails == ("UPI", "NEFT", "RTGS")
    assert ACCOUNT_TYPES["SWIFT_ACCOUNT"].currencies == ()
    assert ACCOUNT_TYPES["SLV_ACCOUNT"].currencies == ("USD",)
    assert ACCOUNT_TYPES["TRON_WALLET"].currencies == ("USDT",)
    assert ACCOUNT_TYPES["BITCOIN_L1"].network == "BITCOIN"
    assert ACCOUNT_TYPES["ARS_ACCOUNT"].primary_identifier == ("accountNumber",)
    assert BENEFICIARY_VERIFICATION_STATUSES == (
        "MATCHED", "PARTIAL_MATCH", "NOT_MATCHED", "UNSUPPORTED", "CHECKED_BY_RECEIVING_FI", "PENDING",
    )  # fmt: skip


@pytest.mark.parametrize("account_type", sorted(VALID))
def test_valid_example_of_every_type(account_type):
    assert validate_account_info(VALID[account_type]) == []
    assert primary_identifier(account_type, VALID[account_type])


# --- structure, types and the all-at-once contract ---------------------------------------------------


@pytest.mark.parametrize("info", [None, [], "USD_ACCOUNT", 42, 4.2, True])
def test_non_object_account_info_is_one_error(info):
    assert validate_account_info(info) == [FieldError("accountInfo", "must be an object", {})]


def test_missing_or_unknown_account_type_is_one_enum_error():
    for info in ({}, {"accountType": None, "iban": "x"}, {"accountType": "XYZ_ACCOUNT"}, {"accountType": 7}):
        (error,) = validate_account_info(info)
        assert error.field == "accountInfo.accountType"
        assert error.constraint["enum"] == list(ACCOUNT_TYPES)
    assert validate_account_info({"accountType": ["USD_ACCOUNT"]})[0].field == "accountInfo.accountType"


def test_allowed_types_narrows_the_enum():
    (error,) = validate_account_info(VALID["ARS_ACCOUNT"], allowed_types=EXTERNAL_ACCOUNT_TYPES)
    assert error.field == "accountInfo.accountType"
    assert "ARS_ACCOUNT" not in error.constraint["enum"] and "USD_ACCOUNT" in error.constraint["enum"]
    assert validate_account_info(VALID["USD_ACCOUNT"], allowed_types=EXTERNAL_ACCOUNT_TYPES) == []


def test_unknown_extra_fields_are_ignored_and_null_means_absent():
    body = {**VALID["USD_ACCOUNT"], "foo": {"bar": [1, 2]}, "nickname": 5, "bankName": None}
    assert validate_account_info(body) == []


def test_three_bad_fields_give_three_errors():
    body = {
        **VALID["USD_ACCOUNT"],
        "routingNumber": "021000022",
        "accountNumber": "12",
        "bankAddress": "885 Teaneck Road\nTeaneck, NJ",
    }
    found = errors(body)
    assert set(found) == {"accountInfo.routingNumber", "accountInfo.accountNumber", "accountInfo.bankAddress"}
    assert found["accountInfo.routingNumber"].constraint == {"format": "aba-routing-number"}
    assert found["accountInfo.accountNumber"].constraint == {
        "minLength": 4,
        "maxLength": 17,
        "pattern": "^[0-9]{4,17}$",
    }
    assert found["accountInfo.bankAddress"].message == "must be a single line"


def test_everything_wrong_at_once():
    found = errors({"accountType": "USD_ACCOUNT", "accountNumber": 1234567, "bankAccountType": "LOAN"})
    assert set(found) == {
        "accountInfo.accountNumber",
        "accountInfo.routingNumber",
        "accountInfo.bankAccountType",
        "accountInfo.beneficiary",
    }
    assert found["accountInfo.accountNumber"].message == "must be a string"
    assert found["accountInfo.routingNumber"].message == "is required"
    assert found["accountInfo.routingNumber"].constraint["pattern"] == "^[0-9]{9}$"
    assert found["accountInfo.bankAccountType"].constraint == {"enum": ["CHECKING", "SAVINGS"]}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("routingNumber", 21000021),
        ("accountNumber", 1234567890),
        ("bankName", ["Chase"]),
        ("bankAddress", {}),
    ],
)
def test_wrong_json_types_are_errors(name, value):
    error = field_error("USD_ACCOUNT", name, value)
    assert error is not None and error.message == "must be a string"


def test_path_prefix_is_configurable():
    body = {**VALID["MXN_ACCOUNT"], "clabeNumber": "032180000118359718"}
    (error,) = validate_account_info(body, path="accountOrWalletInfo")
    assert error.field == "accountOrWalletInfo.clabeNumber"


def test_errors_are_frozen_and_render_like_the_reference_field_error():
    (error,) = validate_account_info({**VALID["MXN_ACCOUNT"], "clabeNumber": "123"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.field = "x"
    assert error.as_dict() == {
        "field": "accountInfo.clabeNumber",
        "message": "must be exactly 18 characters",
        "constraint": {"minLength": 18, "maxLength": 18, "pattern": "^[0-9]{18}$"},
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=12), children, max_size=3)
    ),
    max_leaves=8,
)
CONSTRAINT_KEYS = {"format", "pattern", "enum", "minLength", "maxLength"}


@st.composite
def fuzzed_bodies(draw):
    account_type = draw(st.sampled_from(sorted(ACCOUNT_TYPES)))
    names = [*ACCOUNT_TYPES[account_type].fields, "beneficiary", "paymentRails"]
    body = draw(
        st.fixed_dictionaries({}, optional={n: JSON | st.just(VALID[account_type].get(n)) for n in names})
    )
    return {"accountType": account_type, **body}


@given(fuzzed_bodies() | JSON)
def test_any_json_gives_errors_never_exceptions(info):
    for error in validate_account_info(info):
        assert error.field == "accountInfo" or error.field.startswith("accountInfo.")
        assert error.message
        assert set(error.constraint) <= CONSTRAINT_KEYS
        json.dumps(error.as_dict())


# --- ABA routing numbers and US account numbers -------------------------------------------------------


@pytest.mark.parametrize("routing", ["021000021", "011000015", "026009593", "121000248", "111000025"])
def test_aba_valid(routing):
    assert field_error("USD_ACCOUNT", "routingNumber", routing) is None
    assert field_error("USD_ACCOUNT", "intermediaryRoutingNumber", routing) is None


@pytest.mark.parametrize(
    ("routing", "constraint"),
    [
        ("021000022", {"format": "aba-routing-number"}),  # check digit off by one
        ("123456789", {"format": "aba-routing-number"}),  # the reference's own example fails the checksum
        ("000000000", {"format": "aba-routing-number"}),
        (aba_with_check_digit("50000000"), {"format": "aba-routing-number"}),  # prefix 50 is unassigned
        ("02100002", {"minLength": 9, "maxLength": 9, "pattern": "^[0-9]{9}$"}),
        ("02100002a", {"minLength": 9, "maxLength": 9, "pattern": "^[0-9]{9}$"}),
        ("٠٢١٠٠٠٠٢١", {"minLength": 9, "maxLength": 9, "pattern": "^[0-9]{9}$"}),  # non-ASCII digits
    ],
)
def test_aba_invalid(routing, constraint):
    error = field_error("USD_ACCOUNT", "routingNumber", routing)
    assert error is not None and error.constraint == constraint
    assert field_error("USD_ACCOUNT", "intermediaryRoutingNumber", routing) is not None


ABA_PREFIXES = [f"{p:02d}" for p in [*range(0, 13), *range(21, 33), *range(61, 73), 80]]


@given(st.sampled_from(ABA_PREFIXES), st.text("0123456789", min_size=6, max_size=6), st.data())
def test_aba_property(prefix, middle, data):
    routing = aba_with_check_digit(prefix + middle)
    if routing == "000000000":
        return
    assert field_error("USD_ACCOUNT", "routingNumber", routing) is None
    index, delta = data.draw(st.integers(0, 8)), data.draw(st.integers(1, 9))
    assert field_error("USD_ACCOUNT", "routingNumber", change_one_digit(routing, index, delta)) is not None


@pytest.mark.parametrize("number", ["1234", "12345678901234567", "000123456789"])
def test_us_account_number_valid(number):
    assert field_error("USD_ACCOUNT", "accountNumber", number) is None


@pytest.mark.parametrize("number", ["123", "123456789012345678", "1234-5678", "12345678 ", ""])
def test_us_account_number_invalid(number):
    assert field_error("USD_ACCOUNT", "accountNumber", number) is not None


# --- bankAddress, SWIFT/BIC ---------------------------------------------------------------------------


def test_bank_address_single_line_1_to_255():
    assert field_error("USD_ACCOUNT", "bankAddress", "x" * 255) is None
    assert field_error("USD_ACCOUNT", "bankAddress", "x" * 256).constraint["maxLength"] == 255
    assert field_error("USD_ACCOUNT", "bankAddress", "").message == "must be between 1 and 255 characters"
    assert field_error("USD_ACCOUNT", "bankAddress", "   ").message == "must not be blank"
    for text in ("885 Teaneck Road\r\nTeaneck", "line one\rline two", "line one\n", "a\u2028b"):
        error = field_error("USD_ACCOUNT", "bankAddress", text)
        assert error.message == "must be a single line" and error.constraint["pattern"] == r"^[^\r\n]*$"


def test_swift_bank_address_allows_1024():
    assert field_error("SWIFT_ACCOUNT", "bankAddress", "y" * 1024) is None
    assert field_error("SWIFT_ACCOUNT", "bankAddress", "y" * 1025) is not None


@pytest.mark.parametrize("bic", ["DEUTDEFF", "DEUTDEFF500", "COBADEFFXXX", "HSBCHKHHHKH"])
def test_swift_bic_valid(bic):
    assert field_error("SWIFT_ACCOUNT", "swiftCode", bic) is None
    assert field_error("EUR_ACCOUNT", "swiftCode", bic) is None


@pytest.mark.parametrize(
    "bic", ["DEUTDEF", "deutdeff", "DEUTDEFF5", "DEUTDEFF50", "DEU1DEFF", "DEUTDEFF500X"]
)
def test_swift_bic_invalid(bic):
    error = field_error("SWIFT_ACCOUNT", "swiftCode", bic)
    assert error is not None and error.constraint["pattern"] == "^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$"


# --- IBAN ---------------------------------------------------------------------------------------------

VALID_IBANS = [
    "GB82WEST12345698765432",
    "DE89370400440532013000",
    "GB29NWBK60161331926819",
    "FR1420041010050500013M02606",
    "NL91ABNA0417164300",
    "BE68539007547034",
    "CH9300762011623852957",
    "NO9386011117947",
    "ES9121000418450200051332",
    "IT60X0542811101000000123456",
    "MT84MALT011000012345MTLCAST001S",
    "SA0380000000608010167519",
]


@pytest.mark.parametrize("iban", VALID_IBANS)
def test_iban_valid(iban):
    assert field_error("EUR_ACCOUNT", "iban", iban) is None
    assert field_error("SWIFT_ACCOUNT", "iban", iban) is None


@pytest.mark.parametrize(
    ("iban", "constraint"),
    [
        ("GB82WEST12345698765433", {"format": "iban"}),  # last digit changed
        ("DE89370400440532013001", {"format": "iban"}),
        ("DE88370400440532013000", {"format": "iban"}),  # check digits changed
        ("GB82WEST1234569876543", {"format": "iban", "minLength": 22, "maxLength": 22}),
        ("DE8937040044053201300012", {"format": "iban", "minLength": 22, "maxLength": 22}),
        ("gb82WEST12345698765432", None),  # the country code must be upper case
        ("GB82 WEST 1234 5698 7654 32", None),
        ("GB82WEST", None),
    ],
)
def test_iban_invalid(iban, constraint):
    error = field_error("EUR_ACCOUNT", "iban", iban)
    assert error is not None
    if constraint is not None:
        assert error.constraint == constraint


def test_country_specific_iban_fields():
    assert field_error("DKK_ACCOUNT", "iban", "DK5000400440116243") is None
    # The reference's DKK example has a typo (0040 for 0440) and fails mod-97.
    assert field_error("DKK_ACCOUNT", "iban", "DK5000400040116243").constraint == {"format": "iban"}
    assert (
        field_error("DKK_ACCOUNT", "iban", "DE89370400440532013000").constraint["pattern"] == "^DK[0-9]{16}$"
    )
    assert field_error("AED_ACCOUNT", "iban", "AE070331234567890123457").constraint == {"format": "iban"}
    assert field_error("EGP_ACCOUNT", "iban", "EG380019000500000000263180003").constraint == {
        "format": "iban"
    }
    assert field_error("PKR_ACCOUNT", "iban", "PK36SCBL0000001123456702") is None
    assert field_error("PKR_ACCOUNT", "iban", "PK36SCBL0000001123456703").constraint == {"format": "iban"}


IBAN_COUNTRIES = {"DE": 22, "GB": 22, "FR": 27, "NL": 18, "BE": 16, "NO": 15, "IT": 27, "ES": 24, "CH": 21}


@given(st.sampled_from(sorted(IBAN_COUNTRIES)), st.data())
def test_iban_property(country, data):
    digits = IBAN_COUNTRIES[country] - 4
    iban = iban_with_check_digits(country, data.draw(st.text("0123456789", min_size=digits, max_size=digits)))
    assert field_error("EUR_ACCOUNT", "iban", iban) is None
    index, delta = data.draw(st.integers(2, len(iban) - 1)), data.draw(st.integers(1, 9))
    assert field_error("EUR_ACCOUNT", "iban", change_one_digit(iban, index, delta)) == FieldError(
        "accountInfo.iban", "has an invalid IBAN check digit", {"format": "iban"}
    )


# --- CLABE, CBU/CVU ------------------------------------------------------------------------------------


def test_clabe():
    assert field_error("MXN_ACCOUNT", "clabeNumber", "032180000118359719") is None
    for bad in ("032180000118359718", "123456789012345678"):  # the second is the reference's example
        assert field_error("MXN_ACCOUNT", "clabeNumber", bad).constraint == {"format": "clabe"}
    for bad in ("03218000011835971", "0321800001183597190", "03218000011835971X"):
        assert field_error("MXN_ACCOUNT", "clabeNumber", bad).constraint["pattern"] == "^[0-9]{18}$"


@given(st.text("0123456789", min_size=17, max_size=17), st.integers(0, 17), st.integers(1, 9))
def test_clabe_property(first17, index, delta):
    clabe = clabe_with_check_digit(first17)
    assert field_error("MXN_ACCOUNT", "clabeNumber", clabe) is None
    changed = change_one_digit(clabe, index, delta)
    assert field_error("MXN_ACCOUNT", "clabeNumber", changed).constraint == {"format": "clabe"}


@pytest.mark.parametrize(
    "cbu",
    ["0000003100062244154712", "0000013000000325120058", "0110012920000091344977", "2850590940090418135201"],
)
def test_cbu_cvu_valid(cbu):
    assert field_error("ARS_ACCOUNT", "accountNumber", cbu) is None


@pytest.mark.parametrize(
    "cbu",
    [
        "0110012820000091344977",  # first block's check digit changed
        "0110012920000091344978",  # second block's check digit changed
        "0000003100074052501434",  # the reference's example CVU fails its second check digit
    ],
)
def test_cbu_cvu_check_digits(cbu):
    assert field_error("ARS_ACCOUNT", "accountNumber", cbu).constraint == {"format": "cbu"}


def test_cbu_cvu_is_exactly_22_digits():
    for bad in ("011001292000009134497", "01100129200000913449770", "0110-0129-2000-0091-3449"):
        assert field_error("ARS_ACCOUNT", "accountNumber", bad).constraint["pattern"] == "^[0-9]{22}$"


# --- BRL: PIX keys and tax ids --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key_type", "key"),
    [
        ("CPF", "52998224725"),
        ("CNPJ", "11222333000181"),
        ("EMAIL", "joao.silva@example.com.br"),
        ("PHONE", "+5511987654321"),
        ("RANDOM", "123e4567-e89b-12d3-a456-426614174000"),
    ],
)
def test_pix_key_valid(key_type, key):
    assert validate_account_info({**VALID["BRL_ACCOUNT"], "pixKeyType": key_type, "pixKey": key}) == []


@pytest.mark.parametrize(
    ("key_type", "key", "constraint"),
    [
        ("CPF", "52998224724", {"format": "cpf"}),
        ("CPF", "11111111111", {"format": "cpf"}),  # passes the arithmetic, never issued
        ("CPF", "529.982.247-25", {"minLength": 11, "maxLength": 11, "pattern": "^[0-9]{11}$"}),
        ("CNPJ", "11222333000182", {"format": "cnpj"}),
        ("CNPJ", "52998224725", {"minLength": 14, "maxLength": 14, "pattern": "^[0-9]{14}$"}),
        ("EMAIL", "joao.silva", None),
        ("EMAIL", "joao@localhost", None),
        ("PHONE", "11987654321", None),
        ("PHONE", "+0511987654321", None),
        ("RANDOM", "123e4567e89b12d3a456426614174000", None),
    ],
)
def test_pix_key_invalid(key_type, key, constraint):
    (error,) = validate_account_info({**VALID["BRL_ACCOUNT"], "pixKeyType": key_type, "pixKey": key})
    assert error.field == "accountInfo.pixKey" and f"pixKeyType {key_type}" in error.message
    if constraint is not None:
        assert error.constraint == constraint


def test_pix_key_with_unknown_type_only_reports_the_type():
    found = errors({**VALID["BRL_ACCOUNT"], "pixKeyType": "IBAN", "pixKey": "whatever"})
    assert set(found) == {"accountInfo.pixKeyType"}
    assert found["accountInfo.pixKeyType"].constraint == {"enum": ["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]}


def test_brl_tax_id():
    assert field_error("BRL_ACCOUNT", "taxId", "11222333000181") is None
    assert field_error("BRL_ACCOUNT", "taxId", "52998224724").constraint == {"format": "cpf"}
    assert field_error("BRL_ACCOUNT", "taxId", "11222333000180").constraint == {"format": "cnpj"}
    assert field_error("BRL_ACCOUNT", "taxId", "123456789012").constraint == {
        "pattern": "^([0-9]{11}|[0-9]{14})$"
    }
    assert field_error("BRL_ACCOUNT", "taxId", "5299822472").constraint["minLength"] == 11


# --- GBP and other fiat field rules ---------------------------------------------------------------------


@pytest.mark.parametrize("sort_code", ["123456", "12-34-56", "040004"])
def test_sort_code_valid_with_or_without_dashes(sort_code):
    assert field_error("GBP_ACCOUNT", "sortCode", sort_code) is None


@pytest.mark.parametrize("sort_code", ["12345", "1234567", "12 34 56", "12-3456", "12--34-56", "ab-cd-ef"])
def test_sort_code_invalid(sort_code):
    assert field_error("GBP_ACCOUNT", "sortCode", sort_code) is not None


def test_uk_account_number_is_8_digits():
    assert field_error("GBP_ACCOUNT", "accountNumber", "00012345") is None
    for bad in ("1234567", "123456789", "1234567a"):
        assert field_error("GBP_ACCOUNT", "accountNumber", bad).constraint["pattern"] == "^[0-9]{8}$"


def test_reference_patterns_for_other_fiat_types():
    assert (
        field_error("KES_ACCOUNT", "phoneNumber", "+255712345678").constraint["pattern"] == r"^\+254[0-9]{9}$"
    )
    assert field_error("BWP_ACCOUNT", "phoneNumber", "26771234567") is not None
    assert field_error("XOF_ACCOUNT", "region", "CM").constraint["enum"] == ["BJ", "CI", "SN", "TG"]
    assert field_error("CAD_ACCOUNT", "bankCode", "01") is not None
    assert field_error("CAD_ACCOUNT", "accountNumber", "123456") is not None
    assert field_error("NGN_ACCOUNT", "accountNumber", "012345678") is not None
    assert field_error("ZAR_ACCOUNT", "accountNumber", "12345678901234") is not None
    assert field_error("INR_ACCOUNT", "ifsc", "HDFC1001234", accountNumber="000111222333", rail="NEFT")
    assert field_error("INR_ACCOUNT", "vpa", "ana.upi") is not None
    assert field_error("IDR_ACCOUNT", "phoneNumber", "+6281234567890") is None
    assert field_error("IDR_ACCOUNT", "phoneNumber", "+6581234567") is not None
    assert field_error("HKD_ACCOUNT", "bankName", "   ").message == "must not be blank"
    assert field_error("COP_ACCOUNT", "bankAccountType", "LOAN").constraint == {
        "enum": ["CHECKING", "SAVINGS"]
    }


def test_rail_dependent_fields():
    inr = {"accountType": "INR_ACCOUNT", "beneficiary": PERSON}
    assert (
        validate_account_info({**inr, "accountNumber": "000111222333", "ifsc": "HDFC0001234", "rail": "NEFT"})
        == []
    )
    assert set(errors({**inr, "accountNumber": "000111222333"})) == {"accountInfo.ifsc", "accountInfo.rail"}
    (error,) = validate_account_info(inr)
    assert error.field == "accountInfo.vpa" and "UPI" in error.message and "NEFT" in error.message
    # An explicit paymentRails list picks the group that must be complete.
    bdt = {
        "accountType": "BDT_ACCOUNT",
        "bankName": "Sonali",
        "phoneNumber": "+8801712345678",
        "beneficiary": PERSON,
    }
    assert validate_account_info(bdt) == []
    (error,) = validate_account_info({**bdt, "paymentRails": ["BANK_TRANSFER"]})
    assert error.field == "accountInfo.accountNumber" and "BANK_TRANSFER" in error.message
    slv = {"accountType": "SLV_ACCOUNT", "beneficiary": PERSON}
    assert validate_account_info({**slv, "accountNumber": "123", "bankAccountType": "SAVINGS"}) == []
    assert set(errors({**slv, "accountNumber": "123"})) == {"accountInfo.bankAccountType"}


def test_payment_rails_must_belong_to_the_type():
    assert validate_account_info({**VALID["USD_ACCOUNT"], "paymentRails": ["ACH", "WIRE"]}) == []
    found = errors({**VALID["USD_ACCOUNT"], "paymentRails": ["ACH", "SEPA", 3]})
    assert set(found) == {"accountInfo.paymentRails[1]", "accountInfo.paymentRails[2]"}
    assert found["accountInfo.paymentRails[1]"].constraint == {"enum": ["ACH", "WIRE", "RTP", "FEDNOW"]}
    for bad in ([], "ACH", {"rail": "ACH"}):
        assert set(errors({**VALID["USD_ACCOUNT"], "paymentRails": bad})) == {"accountInfo.paymentRails"}


def test_swift_needs_account_number_or_iban():
    swift = {k: v for k, v in VALID["SWIFT_ACCOUNT"].items() if k != "accountNumber"}
    (error,) = validate_account_info(swift)
    assert (
        error.field == "accountInfo.accountNumber"
        and error.message == "one of accountNumber, iban is required"
    )
    assert validate_account_info({**swift, "iban": "GB29NWBK60161331926819"}) == []


# --- beneficiaries ---------------------------------------------------------------------------------------


def test_fiat_beneficiary_rules():
    usd = {k: v for k, v in VALID["USD_ACCOUNT"].items() if k != "beneficiary"}
    assert set(errors(usd)) == {"accountInfo.beneficiary"}
    assert errors({**usd, "beneficiary": "Ana"})["accountInfo.beneficiary"].message == "must be an object"
    (error,) = validate_account_info({**usd, "beneficiary": {"fullName": "Ana"}})
    assert error.field == "accountInfo.beneficiary.beneficiaryType"
    assert error.constraint == {"enum": ["INDIVIDUAL", "BUSINESS"]}
    assert set(errors({**usd, "beneficiary": {"beneficiaryType": "INDIVIDUAL"}})) == {
        "accountInfo.beneficiary.fullName"
    }
    assert set(errors({**usd, "beneficiary": {"beneficiaryType": "BUSINESS", "fullName": "Acme"}})) == {
        "accountInfo.beneficiary.legalName"
    }
    found = errors({**usd, "beneficiary": {**PERSON, "fullName": 5, "address": {"line1": "x", "city": 3}}})
    assert set(found) == {
        "accountInfo.beneficiary.fullName",
        "accountInfo.beneficiary.address.postalCode",
        "accountInfo.beneficiary.address.country",
        "accountInfo.beneficiary.address.city",
    }


def test_per_currency_beneficiary_requirements():
    assert set(errors({**VALID["EUR_ACCOUNT"], "beneficiary": PERSON})) == {
        "accountInfo.beneficiary.countryOfResidence"
    }
    assert set(errors({**VALID["AED_ACCOUNT"], "beneficiary": PERSON})) == {"accountInfo.beneficiary.address"}
    assert set(errors({**VALID["JMD_ACCOUNT"], "beneficiary": PERSON})) == {
        "accountInfo.beneficiary.address",
        "accountInfo.beneficiary.phoneNumber",
    }
    assert validate_account_info({**VALID["EUR_ACCOUNT"], "beneficiary": COMPANY}) == []
    found = errors({**VALID["COP_ACCOUNT"], "beneficiary": {**PERSON, "documentType": "DNI"}})
    assert found["accountInfo.beneficiary.documentType"].constraint == {
        "enum": ["CC", "CE", "TI", "NIT", "PP"]
    }


def test_wallet_beneficiary_is_optional_but_checked():
    wallet = VALID["ETHEREUM_WALLET"]
    assert validate_account_info({**wallet, "beneficiary": {**PERSON, "countryOfResidence": "US"}}) == []
    assert set(errors({**wallet, "beneficiary": PERSON})) == {"accountInfo.beneficiary.countryOfResidence"}
    assert validate_account_info({**wallet, "beneficiary": COMPANY, "vaspName": "Kraken"}) == []
    assert validate_account_info({**VALID["LIGHTNING"], "beneficiary": "ignored"}) == []


# --- EVM addresses, Keccak-256 and EIP-55 ------------------------------------------------------------------

EIP55_VECTORS = [
    "0x52908400098527886E0F7030069857D2E4169EE7",
    "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
    "0xde709f2102306220921060314715629080e2fb77",
    "0x27b1fdb04752bbc536007a920d24acb045561c26",
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
]
EVM_TYPES = ["ETHEREUM_WALLET", "BASE_WALLET", "POLYGON_WALLET", "PLASMA_WALLET"]


def test_keccak256_known_answers():
    assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak256(b"abc").hex() == "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"


@given(st.binary(max_size=600))
def test_keccak256_is_not_sha3(data):
    # Ethereum kept Keccak's original padding byte; SHA3-256 is the same sponge padded differently.
    assert keccak256(data) != hashlib.sha3_256(data).digest()


@pytest.mark.parametrize("account_type", EVM_TYPES)
@pytest.mark.parametrize("address", EIP55_VECTORS)
def test_evm_addresses_valid(account_type, address):
    assert field_error(account_type, "address", address) is None
    assert field_error(account_type, "address", "0x" + address[2:].lower()) is None


@pytest.mark.parametrize(
    ("address", "constraint"),
    [
        ("0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", {"format": "eip-55"}),  # one letter's case flipped
        ("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d35A", {"format": "eip-55"}),
        ("0xAbCDEF1234567890aBCdEf1234567890ABcDef12", {"format": "eip-55"}),  # the reference's example
        ("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", None),
        ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", None),
        ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd", None),
        ("0x5gAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", None),
        ("0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", None),
    ],
)
def test_evm_addresses_invalid(address, constraint):
    for account_type in EVM_TYPES:
        error = field_error(account_type, "address", address)
        assert error is not None
        assert error.constraint == (
            constraint or {"minLength": 42, "maxLength": 42, "pattern": "^0x[0-9a-fA-F]{40}$"}
        )


# --- Solana, Tron ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg",
        "11111111111111111111111111111111",
        "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
        "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    ],
)
def test_solana_valid(address):
    assert field_error("SOLANA_WALLET", "address", address) is None


@pytest.mark.parametrize(
    ("address", "constraint"),
    [
        ("z" * 44, {"format": "solana-address"}),  # base58, but 33 bytes
        ("2" * 32, {"format": "solana-address"}),  # base58, but 24 bytes
        ("0Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg", None),  # '0' is not base58
        ("4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8W", None),
        ("4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8WgXX", None),
    ],
)
def test_solana_invalid(address, constraint):
    error = field_error("SOLANA_WALLET", "address", address)
    assert error is not None
    if constraint is not None:
        assert error.constraint == constraint


@pytest.mark.parametrize(
    "address", ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"]
)
def test_tron_valid(address):
    assert field_error("TRON_WALLET", "address", address) is None


def test_tron_invalid():
    assert field_error("TRON_WALLET", "address", "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM").constraint == {
        "format": "base58check"
    }
    for bad in (
        "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
        "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe",
        "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYq0L",
    ):
        assert (
            field_error("TRON_WALLET", "address", bad).constraint["pattern"] == "^T[1-9A-HJ-NP-Za-km-z]{33}$"
        )


# --- Bitcoin L1 (BIP-173 / BIP-350 vectors and base58check) --------------------------------------------

BITCOIN_VALID = [
    "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
    "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
    "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
    "BC1SW50QGDZ25J",
    "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs",
    "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
    "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
    "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",  # P2PKH
    "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",  # P2SH
    "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
    "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn",  # testnet P2PKH
    "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc",  # testnet P2SH
]
BITCOIN_INVALID = [
    ("tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", "bitcoin-address"),  # unknown HRP
    ("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", "bech32m"),  # bech32 for v1
    ("tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", "bech32m"),
    ("BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", "bech32m"),
    ("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "bech32"),  # bech32m for v0
    ("tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", "bech32"),
    ("bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", "bitcoin-address"),  # 'o'
    ("BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", "bitcoin-address"),  # version 17
    ("bc1pw5dgrnzv", "bitcoin-address"),  # 1-byte program
    ("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", "bitcoin-address"),
    ("BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", "bitcoin-address"),  # 16-byte v0 program
    ("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", "bitcoin-address"),  # mixed case
    ("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", "bitcoin-address"),  # padding
    ("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", "bitcoin-address"),
    ("bc1gmk9yu", "bitcoin-address"),  # empty data
    ("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "bech32"),  # last character changed
    ("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3u4", "bech32"),
    ("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3", "base58check"),
    ("TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "bitcoin-address"),  # a Tron address
]


@pytest.mark.parametrize("address", BITCOIN_VALID)
def test_bitcoin_valid(address):
    assert field_error("BITCOIN_L1", "address", address) is None


@pytest.mark.parametrize(("address", "fmt"), BITCOIN_INVALID)
def test_bitcoin_invalid(address, fmt):
    error = field_error("BITCOIN_L1", "address", address)
    assert error is not None and error.constraint["format"] == fmt


@given(st.sampled_from([a for a in BITCOIN_VALID if a[:3].lower() in ("bc1", "tb1")]), st.data())
def test_bech32_detects_any_single_substitution(address, data):
    lowered = address.lower()
    start = lowered.rindex("1") + 1
    index = data.draw(st.integers(start, len(lowered) - 1))
    replacement = data.draw(st.sampled_from([c for c in BECH32_CHARSET if c != lowered[index]]))
    changed = lowered[:index] + replacement + lowered[index + 1 :]
    assert field_error("BITCOIN_L1", "address", changed) is not None


# --- Spark and Lightning ----------------------------------------------------------------------------------


def test_spark_addresses():
    assert field_error("SPARK_WALLET", "address", SPARK_ADDRESS) is None
    assert field_error("SPARK_WALLET", "address", SPARK_ADDRESS.upper()) is None
    legacy = bech32m_encode("sprt", bytes([0x0A, 0x21, 0x03]) + bytes(32))
    assert field_error("SPARK_WALLET", "address", legacy) is None
    changed = SPARK_ADDRESS[:-1] + ("q" if SPARK_ADDRESS[-1] != "q" else "p")
    assert field_error("SPARK_WALLET", "address", changed).constraint == {"format": "bech32m"}
    # The reference's example address is truncated and fails its bech32m checksum.
    example = "spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu"
    assert field_error("SPARK_WALLET", "address", example).constraint == {"format": "bech32m"}
    for bad in (
        bech32m_encode("bc", bytes(20)),
        "spark1" + "b" * 60,
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    ):
        assert field_error("SPARK_WALLET", "address", bad).constraint == {"format": "spark-address"}


def test_lightning_needs_one_destination():
    (error,) = validate_account_info({"accountType": "LIGHTNING"})
    assert error.field == "accountInfo.invoice"
    assert error.message == "one of invoice, bolt12, lightningAddress is required"


def test_lightning_invoice():
    assert field_error("LIGHTNING", "invoice", LIGHTNING_INVOICE) is None
    assert field_error("LIGHTNING", "invoice", LIGHTNING_INVOICE.upper()) is None
    changed = LIGHTNING_INVOICE[:60] + ("q" if LIGHTNING_INVOICE[60] != "q" else "p") + LIGHTNING_INVOICE[61:]
    assert field_error("LIGHTNING", "invoice", changed).message == "has an invalid BOLT11 checksum"
    for bad in ("lnbc1qqqqqqqq", "satoshi@getalby.com", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"):
        assert field_error("LIGHTNING", "invoice", bad).constraint == {"format": "bolt11"}


def test_lightning_bolt12_offer():
    assert field_error("LIGHTNING", "bolt12", "lno1qcp4256ypqpq86q2pucnq42ngssx2an9wfujqerp0y") is None
    assert field_error("LIGHTNING", "bolt12", "LNO1QCP4256YPQ+ PQ86Q2PUCNQ42NGSSX2AN9WFUJQERP0Y") is None
    # The reference reuses a BOLT11 invoice as its bolt12 example; it is not an offer.
    for bad in (LIGHTNING_INVOICE, "lno1qcp4b56", "lno1", "Lno1qcp4256ypq"):
        assert field_error("LIGHTNING", "bolt12", bad).constraint == {"format": "bolt12"}


@pytest.mark.parametrize("address", ["satoshi@getalby.com", "john.doe@lightningwallet.com", "a_b-c+1@x.co"])
def test_lightning_address_valid(address):
    assert field_error("LIGHTNING", "lightningAddress", address) is None


@pytest.mark.parametrize(
    "address", ["satoshi", "@getalby.com", "satoshi@localhost", "sat oshi@getalby.com", "a@b@c.com"]
)
def test_lightning_address_invalid(address):
    assert field_error("LIGHTNING", "lightningAddress", address).constraint["format"] == "lightning-address"


# --- primary identifier and sandbox magic suffixes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("account_type", "info", "expected"),
    [
        ("USD_ACCOUNT", VALID["USD_ACCOUNT"], "1234567890"),
        ("EUR_ACCOUNT", VALID["EUR_ACCOUNT"], "DE89370400440532013000"),
        ("MXN_ACCOUNT", VALID["MXN_ACCOUNT"], "032180000118359719"),
        ("ARS_ACCOUNT", VALID["ARS_ACCOUNT"], "0000003100062244154712"),
        ("BRL_ACCOUNT", VALID["BRL_ACCOUNT"], "ana.souza@example.com.br"),
        ("GBP_ACCOUNT", VALID["GBP_ACCOUNT"], "12345678"),
        ("KES_ACCOUNT", VALID["KES_ACCOUNT"], "+254712345678"),
        ("INR_ACCOUNT", {"vpa": "ana@upi"}, "ana@upi"),
        ("INR_ACCOUNT", {"vpa": "ana@upi", "accountNumber": "000111222333"}, "000111222333"),
        ("SWIFT_ACCOUNT", {"iban": "GB29NWBK60161331926819"}, "GB29NWBK60161331926819"),
        ("CNY_ACCOUNT", VALID["CNY_ACCOUNT"], "+8613800138000"),
        ("SOLANA_WALLET", VALID["SOLANA_WALLET"], "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg"),
        ("LIGHTNING", {"invoice": LIGHTNING_INVOICE, "lightningAddress": "bob@x.com"}, "bob@x.com"),
        ("LIGHTNING", {"invoice": LIGHTNING_INVOICE}, LIGHTNING_INVOICE),
    ],
)
def test_primary_identifier(account_type, info, expected):
    assert primary_identifier(account_type, info) == expected


def test_primary_identifier_errors():
    with pytest.raises(ValueError, match="unknown account type"):
        primary_identifier("XYZ_ACCOUNT", {})
    with pytest.raises(ValueError, match="clabeNumber"):
        primary_identifier("MXN_ACCOUNT", {"clabeNumber": ""})


@pytest.mark.parametrize(
    ("identifier", "suffix"),
    [
        ("1234567102", "102"),
        ("DE89370400440532013000", "000"),
        ("joao.102@example.com", "102"),  # the user part decides, not the domain
        ("joao@example102.com", ""),
        ("satoshi104@getalby.com", "104"),
        ("+5511987654107", "107"),
        ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", ""),
        ("12", ""),
        ("", ""),
        ("12٣٤٥", ""),  # non-ASCII digits never match
    ],
)
def test_sandbox_suffix(identifier, suffix):
    assert sandbox_suffix(identifier) == suffix


@pytest.mark.parametrize(
    ("identifier", "status"),
    [
        ("000123456102", "NOT_MATCHED"),
        ("000123456103", "PARTIAL_MATCH"),
        ("000123456104", "PENDING"),
        ("000123456106", "UNSUPPORTED"),
        ("000123456107", "CHECKED_BY_RECEIVING_FI"),
        ("000123456101", "MATCHED"),
        ("000123456108", "MATCHED"),
        ("000123456002", "MATCHED"),  # 002-007 are transfer outcomes, not name checks
        ("GB82WEST12345698765432", "MATCHED"),
        ("maria.103@example.com", "PARTIAL_MATCH"),
        ("maria@example.com", "MATCHED"),
        ("maria@bank103.com", "MATCHED"),
        ("satoshi106@getalby.com", "UNSUPPORTED"),
    ],
)
def test_sandbox_beneficiary_status(identifier, status):
    assert sandbox_beneficiary_status(identifier) == status
    assert status in BENEFICIARY_VERIFICATION_STATUSES


@pytest.mark.parametrize("identifier", ["000123456105", "ana.105@example.com", "+5511987654105"])
def test_sandbox_105_is_an_invalid_account(identifier):
    with pytest.raises(InvalidSandboxAccount) as raised:
        sandbox_beneficiary_status(identifier)
    assert raised.value.suffix == "105" and raised.value.identifier == identifier
    assert isinstance(raised.value, ValueError)


def test_suffix_rules_apply_to_the_primary_identifier():
    pix = {**VALID["BRL_ACCOUNT"], "pixKey": "maria.106@example.com"}
    assert validate_account_info(pix) == []
    assert sandbox_beneficiary_status(primary_identifier("BRL_ACCOUNT", pix)) == "UNSUPPORTED"
    usd = {**VALID["USD_ACCOUNT"], "accountNumber": "9876543102"}
    assert sandbox_beneficiary_status(primary_identifier("USD_ACCOUNT", usd)) == "NOT_MATCHED"
    assert sandbox_suffix(primary_identifier("USD_ACCOUNT", {**usd, "accountNumber": "9876543005"})) == "005"
