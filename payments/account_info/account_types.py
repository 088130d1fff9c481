"""``ACCOUNT_TYPES``: every supported ``accountType``, one row each."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from payments.account_info.account_spec import (
    _BANK_OR_MOBILE_OPTIONAL,
    AccountTypeSpec,
    _bank_by_swift,
    _bank_or_mobile,
    _fiat,
    _individual_needs,
    _mobile_money,
    _wallet,
)
from payments.account_info.beneficiaries import _COP_PERSON_FIELDS, BeneficiaryRule
from payments.account_info.fields import (
    ABA_ROUTING_NUMBER,
    ACCOUNT_NUMBER,
    BANK_ACCOUNT_TYPE,
    BANK_ADDRESS,
    BITCOIN_ADDRESS,
    BOLT11_INVOICE,
    BOLT12_OFFER,
    CBU_CVU,
    CLABE,
    EVM_ADDRESS,
    IBAN,
    LIGHTNING_ADDRESS,
    PHONE,
    PIX_KEY,
    PIX_KEY_TYPE,
    SOLANA_ADDRESS,
    SORT_CODE,
    SPARK_ADDRESS,
    SWIFT_BANK_ADDRESS,
    SWIFT_BIC,
    TAX_ID_BR,
    TRON_ADDRESS,
    UK_ACCOUNT_NUMBER,
    US_ACCOUNT_NUMBER,
    _country_iban,
    _national_phone,
)
from payments.account_info.specs import FieldSpec, _digits, _shaped, _text

_SPECS: Final = (
    _fiat(
        "AED_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("iban",),
        required={"iban": _country_iban("^AE[0-9]{21}$", 23)},
        optional={"swiftCode": SWIFT_BIC},
        beneficiary=_individual_needs("address"),
    ),
    _fiat(
        "ARS_ACCOUNT",
        rails=(),
        primary=("accountNumber",),
        required={"accountNumber": CBU_CVU},
        external_account=False,
    ),
    _bank_or_mobile("BDT_ACCOUNT", branchCode=_digits(5), swiftCode=SWIFT_BIC),
    _fiat(
        "BRL_ACCOUNT",
        rails=("PIX",),
        primary=("pixKey",),
        required={"pixKey": PIX_KEY, "pixKeyType": PIX_KEY_TYPE, "taxId": TAX_ID_BR},
    ),
    _mobile_money("BWP_ACCOUNT"),
    _fiat(
        "CAD_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={
            "bankCode": _digits(3, what="institution number"),
            "branchCode": _digits(5, what="transit number"),
            "accountNumber": _digits(7, 12),
        },
    ),
    _bank_or_mobile("CNY_ACCOUNT"),
    _fiat(
        "COP_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={"bankName": _text()},
        optional={**_BANK_OR_MOBILE_OPTIONAL, "bankAccountType": BANK_ACCOUNT_TYPE},
        any_of={
            "BANK_TRANSFER": ("accountNumber", "bankAccountType", "bankName"),
            "MOBILE_MONEY": ("bankName", "phoneNumber"),
        },
        beneficiary=BeneficiaryRule(required=True, fields=_COP_PERSON_FIELDS),
    ),
    _fiat(
        "DKK_ACCOUNT",
        rails=("SEPA", "SEPA_INSTANT"),
        primary=("iban",),
        required={"iban": _country_iban("^DK[0-9]{16}$", 18)},
        optional={"swiftCode": SWIFT_BIC},
    ),
    _fiat(
        "EGP_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("iban", "phoneNumber"),
        required={"bankName": _text()},
        optional={"iban": _country_iban("^EG[0-9]{27}$", 29), "phoneNumber": PHONE},
        any_of={"BANK_TRANSFER": ("bankName", "iban"), "MOBILE_MONEY": ("bankName", "phoneNumber")},
    ),
    _fiat(
        "EUR_ACCOUNT",
        rails=("SEPA", "SEPA_INSTANT"),
        primary=("iban",),
        required={"iban": IBAN},
        optional={"swiftCode": SWIFT_BIC},
        beneficiary=_individual_needs("countryOfResidence"),
    ),
    _fiat(
        "GBP_ACCOUNT",
        rails=("FASTER_PAYMENTS",),
        primary=("accountNumber",),
        required={"sortCode": SORT_CODE, "accountNumber": UK_ACCOUNT_NUMBER},
    ),
    _bank_or_mobile("GHS_ACCOUNT"),
    _fiat(
        "GTQ_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": ACCOUNT_NUMBER, "bankAccountType": BANK_ACCOUNT_TYPE, "bankName": _text()},
        beneficiary=_individual_needs("countryOfResidence", "phoneNumber"),
    ),
    _bank_by_swift("HKD_ACCOUNT"),
    _fiat("HTG_ACCOUNT", rails=("MOBILE_MONEY",), primary=("phoneNumber",), required={"phoneNumber": PHONE}),
    _bank_by_swift("IDR_ACCOUNT", phoneNumber=_national_phone("62", "9,12", "Indonesian")),
    _fiat(
        "INR_ACCOUNT",
        rails=("UPI", "NEFT", "RTGS"),
        primary=("accountNumber", "vpa"),
        required={},
        optional={
            "vpa": _shaped(r"^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$", "a UPI address (name@bank)", 3, 255),
            "accountNumber": _digits(9, 18),
            "ifsc": _shaped(r"^[A-Z]{4}0[A-Z0-9]{6}$", "an 11-character IFSC (ABCD0123456)", 11, 11),
            "rail": _text(32),
            "bankName": _text(),
        },
        any_of={
            "UPI": ("vpa",),
            "NEFT": ("accountNumber", "ifsc", "rail"),
            "RTGS": ("accountNumber", "ifsc", "rail"),
        },
    ),
    _fiat(
        "JMD_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={
            "accountNumber": ACCOUNT_NUMBER,
            "branchCode": _digits(5),
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "bankName": _text(),
        },
        beneficiary=_individual_needs("address", "phoneNumber"),
    ),
    _mobile_money("KES_ACCOUNT", _national_phone("254", "9", "Kenyan")),
    _mobile_money("MWK_ACCOUNT"),
    _fiat("MXN_ACCOUNT", rails=("SPEI",), primary=("clabeNumber",), required={"clabeNumber": CLABE}),
    _bank_by_swift("MYR_ACCOUNT"),
    _fiat(
        "NGN_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": _digits(10, what="NUBAN"), "bankName": _text()},
    ),
    _fiat(
        "PHP_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"bankName": _text(), "accountNumber": _digits(8, 16)},
    ),
    _bank_or_mobile(
        "PKR_ACCOUNT",
        primary=("accountNumber", "iban", "phoneNumber"),
        iban=_country_iban("^PK[0-9]{2}[A-Z]{4}[0-9]{16}$", 24),
    ),
    _mobile_money("RWF_ACCOUNT", _national_phone("250", "9", "Rwandan")),
    _fiat(
        "SGD_ACCOUNT",
        rails=("PAYNOW", "FAST", "BANK_TRANSFER"),
        primary=("accountNumber",),
        required={"accountNumber": ACCOUNT_NUMBER, "swiftCode": SWIFT_BIC},
        optional={"bankName": _text()},
    ),
    # El Salvador's legal tender is the US dollar; "SLV" names the country, not a currency.
    _fiat(
        "SLV_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={},
        optional={
            "bankName": _text(),
            "accountNumber": ACCOUNT_NUMBER,
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "phoneNumber": PHONE,
        },
        currencies=("USD",),
        any_of={"BANK_TRANSFER": ("bankAccountType", "accountNumber"), "MOBILE_MONEY": ("phoneNumber",)},
    ),
    _bank_by_swift("THB_ACCOUNT"),
    _mobile_money("TZS_ACCOUNT", _national_phone("255", "9", "Tanzanian")),
    _mobile_money("UGX_ACCOUNT"),
    _fiat(
        "USD_ACCOUNT",
        rails=("ACH", "WIRE", "RTP", "FEDNOW"),
        primary=("accountNumber",),
        required={"accountNumber": US_ACCOUNT_NUMBER, "routingNumber": ABA_ROUTING_NUMBER},
        optional={
            "bankName": _text(140),
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "intermediaryBankName": _text(140),
            "intermediaryRoutingNumber": ABA_ROUTING_NUMBER,
            "fiToFiInformation": FieldSpec({"maxLength": 210}),
            "bankAddress": BANK_ADDRESS,
        },
    ),
    _bank_by_swift("VND_ACCOUNT"),
    _mobile_money("XAF_ACCOUNT", region=FieldSpec({"minLength": 2, "maxLength": 2, "enum": ("CM", "CG")})),
    _mobile_money(
        "XOF_ACCOUNT", region=FieldSpec({"minLength": 2, "maxLength": 2, "enum": ("BJ", "CI", "SN", "TG")})
    ),
    _fiat(
        "ZAR_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": _digits(9, 13), "bankName": _text()},
    ),
    _mobile_money("ZMW_ACCOUNT", _national_phone("260", "9", "Zambian")),
    _fiat(
        "SWIFT_ACCOUNT",
        rails=("SWIFT",),
        primary=("accountNumber", "iban"),
        required={
            "swiftCode": SWIFT_BIC,
            "bankName": _text(),
            "country": _shaped("^[A-Z]{2}$", "an ISO 3166-1 alpha-2 country code", 2, 2),
        },
        optional={"accountNumber": ACCOUNT_NUMBER, "iban": IBAN, "bankAddress": SWIFT_BANK_ADDRESS},
        currencies=(),  # any currency
        any_of={"accountNumber": ("accountNumber",), "iban": ("iban",)},
    ),
    _wallet("BASE_WALLET", "BASE", ("USDC",), EVM_ADDRESS),
    _wallet("ETHEREUM_WALLET", "ETHEREUM", ("USDC", "USDT"), EVM_ADDRESS),
    AccountTypeSpec(
        account_type="LIGHTNING",
        currencies=("BTC",),
        required=MappingProxyType({}),
        optional=MappingProxyType(
            {"invoice": BOLT11_INVOICE, "bolt12": BOLT12_OFFER, "lightningAddress": LIGHTNING_ADDRESS}
        ),
        payment_rails=(),
        primary_identifier=("lightningAddress", "invoice", "bolt12"),
        any_of=MappingProxyType(
            {"invoice": ("invoice",), "bolt12": ("bolt12",), "lightningAddress": ("lightningAddress",)}
        ),
        beneficiary=None,
        network="LIGHTNING",
    ),
    _wallet("PLASMA_WALLET", "PLASMA", ("USDT",), EVM_ADDRESS),
    _wallet("POLYGON_WALLET", "POLYGON", ("USDC",), EVM_ADDRESS),
    _wallet("SOLANA_WALLET", "SOLANA", ("USDC", "USDT"), SOLANA_ADDRESS),
    _wallet("SPARK_WALLET", "SPARK", ("BTC",), SPARK_ADDRESS),
    _wallet("TRON_WALLET", "TRON", ("USDT",), TRON_ADDRESS),
    _wallet("BITCOIN_L1", "BITCOIN", ("BTC",), BITCOIN_ADDRESS, external_account=False),
)

ACCOUNT_TYPES: Final[Mapping[str, AccountTypeSpec]] = MappingProxyType({s.account_type: s for s in _SPECS})
"""Every supported ``accountType``: the reference's 46 external-account types plus ARS_ACCOUNT and BITCOIN_L1."""

EXTERNAL_ACCOUNT_TYPES: Final = frozenset(t for t, s in ACCOUNT_TYPES.items() if s.external_account)
"""The reference's ``ExternalAccountType`` enum, for callers that want to follow it exactly."""
