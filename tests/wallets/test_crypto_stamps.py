from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from hypothesis import given, settings
from hypothesis import strategies as st

from payments.client import wallet_crypto as client
from tests.vectors import wallet_wire_vectors
from wallets.crypto import (
    SCHEME,
    StampInvalid,
    StampMalformed,
    VerifiedStamp,
    private_key_from_bytes,
    private_key_hex,
    public_key_from_hex,
    public_key_hex,
    same_point,
    stamp_verify,
)

VECTORS = wallet_wire_vectors()
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
STAMP_1 = VECTORS["stamps"][0]
KEY_A = VECTORS["keys"]["stampKeyA"]
KEY_B = VECTORS["keys"]["stampKeyB"]


def _encode(obj: object) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _stamp_fields(**changes: object) -> dict[str, object]:
    fields: dict[str, object] = json.loads(STAMP_1["stampJson"])
    fields.update(changes)
    return fields


@pytest.mark.parametrize("case", VECTORS["stamps"], ids=lambda c: c["id"])
def test_vector_stamps_verify(case: dict) -> None:
    assert case["payload"].encode("utf-8").hex() == case["payloadUtf8Hex"]  # fixture kept its bytes
    result = stamp_verify(case["stampHeader"], case["payload"])
    assert result.public_key_hex_compressed == case["publicKeyCompressed"]
    assert same_point(result.public_key, case["publicKeyUncompressed"])


def test_high_s_vector_signatures_are_accepted() -> None:
    high_s = [case for case in VECTORS["stamps"] if not case["signatureIsLowS"]]
    assert {case["id"] for case in high_s} >= {"stamp-2-verification-token", "stamp-3-unicode-high-s"}
    for case in high_s:
        _, s = decode_dss_signature(bytes.fromhex(case["signatureDerHex"]))
        assert s > N // 2
        stamp_verify(case["stampHeader"], case["payload"])


def test_low_s_twin_of_a_high_s_signature_is_also_accepted() -> None:
    # Both (r, s) and (r, n - s) are valid: the verifier must not care which one it gets.
    case = VECTORS["stamps"][2]
    r, s = decode_dss_signature(bytes.fromhex(case["signatureDerHex"]))
    header = _encode({**json.loads(case["stampJson"]), "signature": encode_dss_signature(r, N - s).hex()})
    assert stamp_verify(header, case["payload"]).public_key_hex_compressed == case["publicKeyCompressed"]


@pytest.mark.parametrize("case", VECTORS["stampsMustFail"], ids=lambda c: c["id"])
def test_vector_stamps_that_must_fail(case: dict) -> None:
    with pytest.raises(StampInvalid):
        stamp_verify(case["stampHeader"], case["payload"])


@pytest.mark.parametrize("case", VECTORS["stampsEdge"], ids=lambda c: c["id"])
def test_uncompressed_public_key_is_accepted_and_canonicalised(case: dict) -> None:
    # Policy: keys are compared as points, so the uncompressed form some stampers emit is
    # accepted and reported in its canonical compressed form.
    assert len(json.loads(case["stampJson"])["publicKey"]) == 130
    result = stamp_verify(case["stampHeader"], case["payload"])
    assert result.public_key_hex_compressed == case["publicKeyCompressed"]


def test_uncompressed_public_key_stamp_still_checks_the_signature() -> None:
    case = VECTORS["stampsEdge"][0]
    with pytest.raises(StampInvalid):
        stamp_verify(case["stampHeader"], case["payload"] + " ")


_VALID_HEADER = STAMP_1["stampHeader"]
_STANDARD_B64 = base64.b64encode(STAMP_1["stampJson"].encode()).decode()
_NON_CANONICAL_LAST = _VALID_HEADER[:-1] + chr(ord(_VALID_HEADER[-1]) + 1)

MALFORMED = {
    "empty": "",
    "padding": _VALID_HEADER + "=" * (-len(_VALID_HEADER) % 4 or 4),
    "standard-alphabet": _STANDARD_B64,
    "space": _VALID_HEADER[:20] + " " + _VALID_HEADER[20:],
    "newline-suffix": _VALID_HEADER + "\n",
    "dot": _VALID_HEADER[:20] + "." + _VALID_HEADER[20:],
    "non-ascii": _VALID_HEADER[:20] + "é" + _VALID_HEADER[20:],
    "impossible-length": _VALID_HEADER + "A" * (5 - len(_VALID_HEADER) % 4),
    "non-canonical-bits": _NON_CANONICAL_LAST,
    "too-long": "A" * 4096,
    "not-json": _encode(b"not json at all"),
    "not-utf8": _encode(b'{"publicKey":"\xff"}'),
    "json-array": _encode([STAMP_1["stampJson"]]),
    "json-string": _encode(STAMP_1["stampJson"]),
    "json-null": _encode(None),
    "missing-signature": _encode({k: v for k, v in _stamp_fields().items() if k != "signature"}),
    "missing-publicKey": _encode({k: v for k, v in _stamp_fields().items() if k != "publicKey"}),
    "missing-scheme": _encode({k: v for k, v in _stamp_fields().items() if k != "scheme"}),
    "extra-field": _encode(_stamp_fields(extra="x")),
    "duplicate-field": _encode(("{" + STAMP_1["stampJson"][1:-1] + ',"scheme":"' + SCHEME + '"}').encode()),
    "signature-not-string": _encode(_stamp_fields(signature=12345)),
    "publicKey-null": _encode(_stamp_fields(publicKey=None)),
    "wrong-scheme": _encode(_stamp_fields(scheme="SIGNATURE_SCHEME_TK_API_ED25519")),
    "scheme-lowercase": _encode(_stamp_fields(scheme=SCHEME.lower())),
    "signature-not-hex": _encode(_stamp_fields(signature="zz" + STAMP_1["signatureDerHex"][2:])),
    "signature-odd-hex": _encode(_stamp_fields(signature=STAMP_1["signatureDerHex"][:-1])),
    "signature-empty": _encode(_stamp_fields(signature="")),
    "signature-garbage-der": _encode(_stamp_fields(signature="deadbeef")),
    "signature-der-trailing-byte": _encode(_stamp_fields(signature=STAMP_1["signatureDerHex"] + "00")),
    "signature-raw-r-s": _encode(_stamp_fields(signature="11" * 64)),
    "publicKey-off-curve": _encode(_stamp_fields(publicKey="02" + (1).to_bytes(32, "big").hex())),
    "publicKey-truncated": _encode(_stamp_fields(publicKey=STAMP_1["publicKeyCompressed"][:-2])),
    "publicKey-not-hex": _encode(_stamp_fields(publicKey="x" * 66)),
    "publicKey-empty": _encode(_stamp_fields(publicKey="")),
}


@pytest.mark.parametrize("header", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_headers(header: str) -> None:
    with pytest.raises(StampMalformed):
        stamp_verify(header, STAMP_1["payload"])


def test_reencoded_vector_header_is_still_valid() -> None:
    # The malformed cases above are built with _encode; make sure it is the wire encoding.
    assert _encode(_stamp_fields()) == _VALID_HEADER


def test_stamp_naming_another_key_is_invalid_not_malformed() -> None:
    header = _encode(_stamp_fields(publicKey=KEY_B["pubHexCompressed"]))
    with pytest.raises(StampInvalid):
        stamp_verify(header, STAMP_1["payload"])


def test_verified_stamp_repr_shows_no_private_material() -> None:
    result = stamp_verify(_VALID_HEADER, STAMP_1["payload"])
    assert isinstance(result, VerifiedStamp)
    assert KEY_A["privHex"] not in repr(result)


@pytest.mark.parametrize(
    "payload",
    [
        "",
        " ",
        "plain",
        '{"a":1}',
        '{ "a" : 1 }\n',
        "  leading and trailing  ",
        "tab\there\r\nCRLF\n",
        "Zahlung für Café ☕ — 東京 🚀",
        "\u00a0non-breaking\u2028line-separator",
        "e\u0301 vs \u00e9",  # not normalised: two different byte strings
        "\x00nul",
    ],
)
def test_client_stamp_verifies_on_the_server(payload: str) -> None:
    pair = client.generate_key_pair()
    result = stamp_verify(client.stamp(payload, pair.private_key_hex), payload)
    assert result.public_key_hex_compressed == pair.public_key_hex_compressed


def test_unicode_normalisation_changes_the_message() -> None:
    pair = client.generate_key_pair()
    header = client.stamp("e\u0301", pair.private_key_hex)
    with pytest.raises(StampInvalid):
        stamp_verify(header, "\u00e9")


utf8_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
private_keys = st.integers(min_value=1, max_value=N - 1).map(
    lambda value: private_key_from_bytes(value.to_bytes(32, "big"))
)


def _sign_header(key: ec.EllipticCurvePrivateKey, payload: str, *, named_key: str | None = None) -> str:
    signature = key.sign(payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    return _encode(
        {"publicKey": named_key or public_key_hex(key), "scheme": SCHEME, "signature": signature.hex()}
    )


@settings(max_examples=60, deadline=None)
@given(key=private_keys, payload=utf8_text)
def test_property_stamp_verifies(key: ec.EllipticCurvePrivateKey, payload: str) -> None:
    for header in (_sign_header(key, payload), client.stamp(payload, private_key_hex(key))):
        assert stamp_verify(header, payload).public_key_hex_compressed == public_key_hex(key)


@settings(max_examples=60, deadline=None)
@given(key=private_keys, payload=utf8_text, data=st.data())
def test_property_any_payload_change_fails(key: ec.EllipticCurvePrivateKey, payload: str, data) -> None:
    header = client.stamp(payload, private_key_hex(key))
    edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
    if edit == "insert" or not payload:
        at = data.draw(st.integers(0, len(payload)))
        changed = payload[:at] + data.draw(st.characters(codec="utf-8")) + payload[at:]
    elif edit == "delete":
        at = data.draw(st.integers(0, len(payload) - 1))
        changed = payload[:at] + payload[at + 1 :]
    else:
        at = data.draw(st.integers(0, len(payload) - 1))
        char = data.draw(st.characters(codec="utf-8").filter(lambda c: c != payload[at]))
        changed = payload[:at] + char + payload[at + 1 :]
    assert changed != payload
    with pytest.raises(StampInvalid):
        stamp_verify(header, changed)


@settings(max_examples=60, deadline=None)
@given(key=private_keys, other=private_keys, payload=utf8_text, compressed=st.booleans())
def test_property_other_key_fails(
    key: ec.EllipticCurvePrivateKey, other: ec.EllipticCurvePrivateKey, payload: str, compressed: bool
) -> None:
    if same_point(key.public_key(), other.public_key()):
        return
    header = _sign_header(key, payload, named_key=public_key_hex(other, compressed=compressed))
    with pytest.raises(StampInvalid):
        stamp_verify(header, payload)
    # The same signature under the signer's own key, as a sanity check of the construction.
    signed = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    own = _encode({**signed, "publicKey": public_key_hex(key)})
    assert same_point(stamp_verify(own, payload).public_key, public_key_from_hex(public_key_hex(key)))
