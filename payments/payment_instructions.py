"""Payment instructions: where a payer sends money for a quote, one `accountOrWalletInfo` per account type.

Pure (no Django). Every value is derived from a seed (the quote's id), so a quote's instructions are
stable and distinct from any other quote's: a unique account number, IBAN, CLABE, deposit address or
invoice, plus the `reference` to quote with the payment on the types the reference gives one (all
fiat types except BRL, INR, ARS and COP; none of the wallets). Identifiers pass the same checks as
external accounts (ABA, IBAN, CLABE and CVU check digits, base58check, bech32/bech32m), so a client
that validates them accepts them. Shapes follow the reference's `Payment*AccountInfo` variants.

`EMBEDDED_WALLET` is different: it carries `payloadToSign`, the exact text the wallet's session key
stamps to authorize the transfer (`embedded_wallet_payload`).

An internal account's standing `fundingPaymentInstructions` are built the same way, seeded by the
account's id (`funding_instructions`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from base58 import b58encode, b58encode_check

from payments import bech32

__all__ = [
    "ACCOUNT_TYPES",
    "BTC_NETWORKS",
    "FUNDING_ACCOUNT_TYPE",
    "NETWORK_WALLET_TYPES",
    "STABLECOIN_NETWORKS",
    "account_or_wallet_info",
    "base58",
    "deposit_reference",
    "embedded_wallet_payload",
    "funding_instructions",
    "payment_instruction",
]

_SANDBOX_BANK: Final = "Sandbox Settlement Bank"
_HOLDER: Final = "Payments Service Sandbox Ltd"


class _Seed:
    """Deterministic digits, letters and bytes drawn from a seed, one labelled draw at a time."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed

    def raw(self, label: str, n: int) -> bytes:
        out = b""
        counter = 0
        while len(out) < n:
            out += hashlib.sha256(self._seed + label.encode() + counter.to_bytes(4)).digest()
            counter += 1
        return out[:n]

    def digits(self, label: str, n: int) -> str:
        return str(int.from_bytes(self.raw(label, 16)) % 10**n).zfill(n)


# --- check digits and encodings -------------------------------------------------------------------


def _mod10(digits: str, weights: tuple[int, ...]) -> str:
    return str((10 - sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 10) % 10)


def _iban(country: str, bban: str) -> str:
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def _clabe(body17: str) -> str:
    return body17 + _mod10(body17, ((3, 7, 1) * 6)[:17])


def _cvu(seed: _Seed) -> str:
    block1 = "0000003"  # a CVU starts 0000, then the issuing provider's 3-digit code
    block1 += _mod10(block1, (7, 1, 3, 9, 7, 1, 3))
    block2 = seed.digits("cvu", 13)
    return block1 + block2 + _mod10(block2, (3, 9, 7, 1) * 3 + (3,))


def base58(data: bytes) -> str:
    """Bitcoin's base58 alphabet, leading zero bytes as '1'."""
    return b58encode(data).decode("ascii")


def _bolt11(seed: _Seed, *, amount_msat: int | None, testnet: bool) -> str:
    """A BOLT11-shaped invoice: amount in the prefix, timestamp, payment hash, a signature-sized tail."""
    hrp = "lntbs" if testnet else "lnbc"
    if amount_msat:
        hrp += f"{amount_msat * 10 // 1000}n" if amount_msat * 10 % 1000 == 0 else f"{amount_msat * 10}p"
    timestamp = [(1_750_000_000 >> 5 * (6 - i)) & 31 for i in range(7)]
    payment_hash = [1, 1, 20, *bech32.to_five_bit(seed.raw("payment-hash", 32))]  # tag p, length 52
    signature = bech32.to_five_bit(seed.raw("signature", 65))[:104]
    return bech32.encode(hrp, timestamp + payment_hash + signature, bech32.Encoding.BECH32)


def _pix_qr(seed: _Seed, reference: str) -> str:
    """A PIX "copia e cola" (EMV merchant-presented) payload ending in its CRC16-CCITT."""

    def field(tag: str, value: str) -> str:
        return f"{tag}{len(value):02d}{value}"

    key = seed.raw("pix-key", 16).hex()
    random_key = f"{key[:8]}-{key[8:12]}-{key[12:16]}-{key[16:20]}-{key[20:32]}"
    body = (
        field("00", "01")
        + field("26", field("00", "br.gov.bcb.pix") + field("01", random_key))
        + field("52", "0000")
        + field("53", "986")
        + field("58", "BR")
        + field("59", "PAYMENTS SANDBOX")
        + field("60", "SAO PAULO")
        + field("62", field("05", reference[:25]))
        + "6304"
    )
    crc = 0xFFFF
    for byte in body.encode():
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return body + f"{crc:04X}"


# --- one builder per account type ----------------------------------------------------------------

type Builder = Callable[[_Seed, dict[str, Any]], dict[str, Any]]


def _rails(ctx: Mapping[str, Any], default: str) -> list[str]:
    return [ctx.get("rail") or default]


def _bank(country: str, digits: int = 12, *, phone: str | None = None, swift: bool = True) -> Builder:
    def build(seed: _Seed, ctx: dict[str, Any]) -> dict[str, Any]:
        info = {"bankName": _SANDBOX_BANK, "accountNumber": seed.digits("account", digits)}
        if swift:
            info["swiftCode"] = f"SBOX{country}22"
        if phone:
            info["phoneNumber"] = phone + seed.digits("phone", 10)
        info["paymentRails"] = _rails(ctx, "BANK_TRANSFER")
        return info

    return build


def _mobile(prefix: str, digits: int, provider: str, region: str | None = None) -> Builder:
    def build(seed: _Seed, ctx: dict[str, Any]) -> dict[str, Any]:
        info = {"phoneNumber": f"+{prefix}{seed.digits('phone', digits)}", "provider": provider}
        if region:
            info["region"] = region
        info["paymentRails"] = ["MOBILE_MONEY"]
        return info

    return build


def _wallet(address: Callable[[_Seed, dict[str, Any]], str], *, asset: bool = True) -> Builder:
    def build(seed: _Seed, ctx: dict[str, Any]) -> dict[str, Any]:
        info = {"address": address(seed, ctx)}
        if asset and ctx.get("asset"):
            info["assetType"] = ctx["asset"]
        return info

    return build


def _evm(seed: _Seed, ctx: dict[str, Any]) -> str:
    return "0x" + seed.raw("evm", 20).hex()


def _solana(seed: _Seed, ctx: dict[str, Any]) -> str:
    return base58(b"\x01" + seed.raw("solana", 31))  # 32 bytes, never leading zeros


def _tron(seed: _Seed, ctx: dict[str, Any]) -> str:
    return b58encode_check(b"\x41" + seed.raw("tron", 20)).decode("ascii")


def _bitcoin(seed: _Seed, ctx: dict[str, Any]) -> str:
    hrp = "tb" if ctx.get("testnet", True) else "bc"
    return bech32.encode(hrp, [0, *bech32.to_five_bit(seed.raw("p2wpkh", 20))], bech32.Encoding.BECH32)


def _spark(seed: _Seed, ctx: dict[str, Any]) -> str:
    hrp = "sparkrt" if ctx.get("testnet", True) else "spark"
    return bech32.encode(hrp, bech32.to_five_bit(b"\x02" + seed.raw("spark", 32)), bech32.Encoding.BECH32M)


def _spark_wallet(seed: _Seed, ctx: dict[str, Any]) -> dict[str, Any]:
    info = {"address": _spark(seed, ctx), "assetType": ctx.get("asset") or "BTC"}
    if ctx.get("amount_msat"):
        info["invoice"] = _bolt11(seed, amount_msat=ctx["amount_msat"], testnet=ctx.get("testnet", True))
    return info


_BUILDERS: Final[dict[str, Builder]] = {
    "USD_ACCOUNT": lambda s, c: {
        "accountNumber": s.digits("account", 12),
        "routingNumber": "021000021",
        "bankName": _SANDBOX_BANK,
        "bankAccountType": "CHECKING",
        "paymentRails": _rails(c, "RTP"),
        "bankAddress": "1 Sandbox Plaza, New York, NY 10001, US",
    },
    "BRL_ACCOUNT": lambda s, c: {"qrCode": _pix_qr(s, c["reference"])},
    "MXN_ACCOUNT": lambda s, c: {
        "clabeNumber": _clabe("646180" + s.digits("clabe", 11)),
        "paymentRails": ["SPEI"],
    },
    "DKK_ACCOUNT": lambda s, c: {
        "iban": _iban("DK", "5000" + s.digits("iban", 10)),
        "swiftCode": "SBOXDKKK",
        "paymentRails": _rails(c, "SEPA_INSTANT"),
    },
    "EUR_ACCOUNT": lambda s, c: {
        "iban": _iban("DE", "50010517" + s.digits("iban", 10)),
        "swiftCode": "SBOXDEFF",
        "paymentRails": _rails(c, "SEPA_INSTANT"),
    },
    "INR_ACCOUNT": lambda s, c: {"vpa": f"sbx{s.digits('vpa', 10)}@sandbox", "paymentRails": ["UPI"]},
    "NGN_ACCOUNT": lambda s, c: {
        "accountNumber": s.digits("account", 10),
        "bankName": _SANDBOX_BANK,
        "paymentRails": ["BANK_TRANSFER"],
    },
    "CAD_ACCOUNT": lambda s, c: {
        "bankCode": "001",
        "branchCode": s.digits("branch", 5),
        "accountNumber": s.digits("account", 10),
        "paymentRails": ["BANK_TRANSFER"],
    },
    "GBP_ACCOUNT": lambda s, c: {
        "sortCode": "040004",
        "accountNumber": s.digits("account", 8),
        "paymentRails": ["FASTER_PAYMENTS"],
    },
    "HKD_ACCOUNT": _bank("HK"),
    "IDR_ACCOUNT": _bank("ID", phone="+62"),
    "MYR_ACCOUNT": _bank("MY"),
    "PHP_ACCOUNT": _bank("PH", swift=False),
    "SGD_ACCOUNT": lambda s, c: {
        "bankName": _SANDBOX_BANK,
        "accountNumber": s.digits("account", 12),
        "swiftCode": "SBOXSGSG",
        "paymentRails": _rails(c, "PAYNOW"),
    },
    "THB_ACCOUNT": _bank("TH"),
    "VND_ACCOUNT": _bank("VN"),
    "AED_ACCOUNT": lambda s, c: {
        "iban": _iban("AE", "033" + s.digits("iban", 16)),
        "swiftCode": "SBOXAEAD",
        "paymentRails": ["BANK_TRANSFER"],
    },
    "KES_ACCOUNT": _mobile("254", 9, "M-PESA"),
    "MWK_ACCOUNT": _mobile("265", 9, "Airtel Money"),
    "RWF_ACCOUNT": _mobile("250", 9, "MTN MoMo"),
    "TZS_ACCOUNT": _mobile("255", 9, "M-Pesa"),
    "UGX_ACCOUNT": _mobile("256", 9, "MTN MoMo"),
    "XOF_ACCOUNT": _mobile("221", 9, "Orange Money", "SN"),
    "ZAR_ACCOUNT": _bank("ZA", 11, swift=False),
    "ZMW_ACCOUNT": _mobile("260", 9, "Airtel Money"),
    "BWP_ACCOUNT": _mobile("267", 8, "Orange Money"),
    "XAF_ACCOUNT": _mobile("237", 9, "MTN MoMo", "CM"),
    "BDT_ACCOUNT": lambda s, c: {
        **_bank("BD")(s, c),
        "branchCode": s.digits("branch", 5),
    },
    "ARS_ACCOUNT": lambda s, c: {"accountNumber": _cvu(s)},
    "COP_ACCOUNT": lambda s, c: {"paymentUrl": f"https://pay.sandbox.payments.example/cop/{c['reference']}"},
    "EGP_ACCOUNT": lambda s, c: {
        "bankName": _SANDBOX_BANK,
        "iban": _iban("EG", "0019" + s.digits("iban", 21)),
        "paymentRails": ["BANK_TRANSFER"],
    },
    "GHS_ACCOUNT": _bank("GH", swift=False),
    "GTQ_ACCOUNT": lambda s, c: {
        "accountNumber": s.digits("account", 12),
        "bankAccountType": "CHECKING",
        "bankName": _SANDBOX_BANK,
        "paymentRails": ["BANK_TRANSFER"],
    },
    "HTG_ACCOUNT": _mobile("509", 8, "MonCash"),
    "JMD_ACCOUNT": lambda s, c: {
        "accountNumber": s.digits("account", 12),
        "branchCode": s.digits("branch", 5),
        "bankAccountType": "CHECKING",
        "bankName": _SANDBOX_BANK,
        "paymentRails": ["BANK_TRANSFER"],
    },
    "PKR_ACCOUNT": lambda s, c: {
        "bankName": _SANDBOX_BANK,
        "accountNumber": s.digits("account", 12),
        "iban": _iban("PK", "SBOX" + s.digits("iban", 16)),
        "paymentRails": ["BANK_TRANSFER"],
    },
    "SLV_ACCOUNT": lambda s, c: {
        "bankName": _SANDBOX_BANK,
        "accountNumber": s.digits("account", 12),
        "bankAccountType": "CHECKING",
        "paymentRails": ["BANK_TRANSFER"],
    },
    "SWIFT_ACCOUNT": lambda s, c: {
        "swiftCode": "SBOXUS33XXX",
        "bankName": _SANDBOX_BANK,
        "country": "US",
        "accountNumber": s.digits("account", 12),
        "accountHolderName": _HOLDER,
        "bankAddress": "1 Sandbox Plaza, New York, NY 10001, United States",
        "paymentRails": ["SWIFT"],
    },
    "CNY_ACCOUNT": _bank("CN", swift=False),
    "SPARK_WALLET": _spark_wallet,
    "LIGHTNING": lambda s, c: {
        "invoice": _bolt11(s, amount_msat=c.get("amount_msat"), testnet=c.get("testnet", True))
    },
    "SOLANA_WALLET": _wallet(_solana),
    "TRON_WALLET": _wallet(_tron),
    "PLASMA_WALLET": _wallet(_evm),
    "POLYGON_WALLET": _wallet(_evm),
    "BASE_WALLET": _wallet(_evm),
    "ETHEREUM_WALLET": _wallet(_evm),
    "BITCOIN_L1": lambda s, c: {"address": _bitcoin(s, c), "network": "BITCOIN"},
}

# Types whose instructions carry no `reference` (the reference's schemas define none for them).
_NO_REFERENCE: Final = frozenset(
    {"BRL_ACCOUNT", "INR_ACCOUNT", "ARS_ACCOUNT", "COP_ACCOUNT", "EMBEDDED_WALLET"}
    | {t for t in _BUILDERS if not t.endswith("_ACCOUNT")}
)

ACCOUNT_TYPES: Final = (*_BUILDERS, "EMBEDDED_WALLET")
"""Every `accountType` of the reference's PaymentInstructions `oneOf` (49)."""

# The account type a payer funds a currency with (fiat), and the wallet type per crypto network.
FUNDING_ACCOUNT_TYPE: Final[Mapping[str, str]] = {
    code: f"{code}_ACCOUNT"
    for code in (t.removesuffix("_ACCOUNT") for t in _BUILDERS if t.endswith("_ACCOUNT"))
}
NETWORK_WALLET_TYPES: Final[Mapping[str, str]] = {
    "SPARK": "SPARK_WALLET",
    "LIGHTNING": "LIGHTNING",
    "SOLANA": "SOLANA_WALLET",
    "TRON": "TRON_WALLET",
    "PLASMA": "PLASMA_WALLET",
    "POLYGON": "POLYGON_WALLET",
    "BASE": "BASE_WALLET",
    "ETHEREUM": "ETHEREUM_WALLET",
    "BITCOIN": "BITCOIN_L1",
}


# The networks each crypto currency moves on (quote sources name one; the first is the default).
STABLECOIN_NETWORKS: Final[Mapping[str, tuple[str, ...]]] = {
    "USDC": ("SOLANA", "ETHEREUM", "BASE", "POLYGON"),
    "USDT": ("TRON", "ETHEREUM", "PLASMA", "SOLANA"),
}
BTC_NETWORKS: Final = ("LIGHTNING", "SPARK", "BITCOIN")
# A standing deposit address takes no amount, so Lightning (an invoice per payment) is left out.
_DEPOSIT_NETWORKS: Final[Mapping[str, tuple[str, ...]]] = {
    **STABLECOIN_NETWORKS,
    "BTC": tuple(n for n in BTC_NETWORKS if n != "LIGHTNING"),
}


def account_or_wallet_info(
    account_type: str,
    *,
    seed: bytes,
    reference: str,
    rail: str | None = None,
    asset: str | None = None,
    amount_msat: int | None = None,
    testnet: bool = True,
) -> dict[str, Any]:
    """The `accountOrWalletInfo` a payer uses to pay, for `account_type` (not EMBEDDED_WALLET).

    `rail` picks `paymentRails` where the type has a choice; `asset` the token a wallet receives;
    `amount_msat` puts the amount into Lightning invoices; `testnet` picks test-network address
    prefixes (the sandbox's networks are test networks).
    """
    try:
        builder = _BUILDERS[account_type]
    except KeyError:
        raise ValueError(f"no payment instructions for account type {account_type!r}") from None
    ctx = {
        "reference": reference,
        "rail": rail,
        "asset": asset,
        "amount_msat": amount_msat,
        "testnet": testnet,
    }
    info: dict[str, Any] = {"accountType": account_type, **builder(_Seed(seed), ctx)}
    if account_type not in _NO_REFERENCE:
        info["reference"] = reference
    return info


def payment_instruction(info: dict[str, Any], *, notes: str, is_platform_account: bool) -> dict[str, Any]:
    """One `PaymentInstructions` item."""
    return {"instructionsNotes": notes, "isPlatformAccount": is_platform_account, "accountOrWalletInfo": info}


def deposit_reference(seed: bytes) -> str:
    """The code a depositor quotes so a deposit is credited to the account `seed` names."""
    return "DEP" + hashlib.sha256(b"deposit:" + seed).hexdigest()[:12].upper()


def funding_instructions(currency: str, *, seed: bytes, is_platform_account: bool) -> list[dict[str, Any]]:
    """Standing instructions to fund an account of `currency` from outside (its
    `fundingPaymentInstructions`): a deposit account of the currency's account type for fiat, a
    deposit address on each network a crypto currency moves on; [] for a currency with neither.
    Derived from `seed` (the account's id), so they are the account's own and never change."""
    reference = deposit_reference(seed)
    if currency in _DEPOSIT_NETWORKS:
        infos = [
            account_or_wallet_info(
                NETWORK_WALLET_TYPES[network], seed=seed, reference=reference, asset=currency
            )
            for network in _DEPOSIT_NETWORKS[currency]
        ]
    elif currency in FUNDING_ACCOUNT_TYPE:
        infos = [account_or_wallet_info(FUNDING_ACCOUNT_TYPE[currency], seed=seed, reference=reference)]
    else:
        return []
    return [
        payment_instruction(
            info,
            notes=f"Deposits to these {currency} coordinates credit this account"
            + (f"; quote reference {reference}" if "reference" in info else ""),
            is_platform_account=is_platform_account,
        )
        for info in infos
    ]


def embedded_wallet_payload(
    *,
    quote_id: str,
    source_account_id: str,
    destination: Mapping[str, Any],
    sending: Mapping[str, Any],
    receiving: Mapping[str, Any],
    expires_at: str,
    nonce: bytes,
) -> str:
    """The canonical `payloadToSign` of an embedded-wallet quote: compact JSON with sorted keys naming
    the quote, the wallet, the destination and both amounts. Stamped byte for byte; stored as issued."""
    return json.dumps(
        {
            "type": "QUOTE_EXECUTE",
            "quoteId": quote_id,
            "sourceAccountId": source_account_id,
            "destination": dict(destination),
            "sendingAmount": dict(sending),
            "receivingAmount": dict(receiving),
            "expiresAt": expires_at,
            "nonce": base64.urlsafe_b64encode(nonce).decode().rstrip("="),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
