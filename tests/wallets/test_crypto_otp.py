from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from payments.client import wallet_crypto as client
from tests.vectors import wallet_wire_vectors
from wallets.crypto import (
    BundleDecryptFailed,
    BundleMalformed,
    OtpPlaintext,
    hpke_open,
    hpke_seal,
    otp_bundle_open,
    private_key_from_hex,
    private_key_generate,
    public_key_from_hex,
    public_key_hex,
    same_point,
    target_bundle_issue,
)

VECTORS = wallet_wire_vectors()
OTP = VECTORS["otpBundles"]
TEK = VECTORS["keys"]["otpClientTek"]
SIGNER = private_key_from_hex(OTP["otpSignerPrivHex"])
TARGET = private_key_from_hex(OTP["targetPrivHex"])
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
ENVELOPE_FIELDS = ["version", "data", "dataSignature", "enclaveQuorumPublic"]


@pytest.mark.parametrize("case", OTP["cases"], ids=lambda c: c["id"])
def test_vector_plaintext_bytes(case: dict) -> None:
    outer = json.loads(case["encryptedOtpBundle"])
    enc = bytes.fromhex(outer["encappedPublic"])
    plaintext = hpke_open(enc, bytes.fromhex(outer["ciphertext"]), recipient_private_key=TARGET)
    assert plaintext == bytes.fromhex(case["expectedPlaintextHex"])
    assert plaintext == case["expectedPlaintext"].encode("utf-8")
    # The AAD rule: enc (65) || pkR (65), as the vector records it.
    assert case["aadHex"] == outer["encappedPublic"] + OTP["targetPubUncompressed"]


@pytest.mark.parametrize("case", OTP["cases"], ids=lambda c: c["id"])
def test_vector_opens(case: dict) -> None:
    result = otp_bundle_open(case["encryptedOtpBundle"], TARGET)
    assert result.otp_code == case["otpCode"]
    assert same_point(result.public_key_hex, case["clientPublicKey"])
    assert result.public_key_hex == TEK["pubHexCompressed"]  # canonical, whatever was sent


@pytest.mark.parametrize("case", OTP["cases"], ids=lambda c: c["id"])
def test_vector_request_body_form_is_a_json_string(case: dict) -> None:
    assert json.loads(case["encryptedOtpBundleAsJsonStringLiteral"]) == case["encryptedOtpBundle"]


def test_vector_opens_with_compressed_enc() -> None:
    # hpke_open uncompresses enc before it enters the KEM context and the AAD.
    outer = json.loads(OTP["cases"][0]["encryptedOtpBundle"])
    enc = public_key_from_hex(outer["encappedPublic"])
    enc33 = bytes.fromhex(public_key_hex(enc))
    plaintext = hpke_open(enc33, bytes.fromhex(outer["ciphertext"]), recipient_private_key=TARGET)
    assert plaintext.hex() == OTP["cases"][0]["expectedPlaintextHex"]


def test_vector_target_bundle_verifies_under_its_signer() -> None:
    _assert_target_bundle_shape(OTP["targetBundle"], signer=SIGNER, target=TARGET)


def _assert_target_bundle_shape(
    bundle: str, *, signer: ec.EllipticCurvePrivateKey, target: ec.EllipticCurvePrivateKey
) -> dict:
    envelope = json.loads(bundle)
    assert list(envelope) == ENVELOPE_FIELDS
    assert all(isinstance(value, str) for value in envelope.values())
    assert envelope["version"] == "v1.0.0"
    assert envelope["data"] == envelope["data"].lower()
    assert envelope["enclaveQuorumPublic"] == public_key_hex(signer, compressed=False)
    data = bytes.fromhex(envelope["data"])
    signer_public = public_key_from_hex(envelope["enclaveQuorumPublic"])
    signer_public.verify(bytes.fromhex(envelope["dataSignature"]), data, ec.ECDSA(hashes.SHA256()))
    payload = json.loads(data)
    assert data.startswith(b'{"targetPublic":"04')
    assert payload["targetPublic"] == public_key_hex(target, compressed=False)
    return payload


def test_issued_target_bundle_has_the_documented_shape() -> None:
    bundle, target = target_bundle_issue(SIGNER)
    payload = _assert_target_bundle_shape(bundle, signer=SIGNER, target=target)
    assert list(payload) == ["targetPublic"]
    assert bundle == json.dumps(json.loads(bundle), separators=(",", ":"))  # compact
    assert list(json.loads(OTP["targetBundle"])) == list(json.loads(bundle))


def test_issued_target_bundle_carries_optional_ids_like_the_vector() -> None:
    bundle, target = target_bundle_issue(SIGNER, organization_id="org_vectors", user_id="user_vectors")
    payload = _assert_target_bundle_shape(bundle, signer=SIGNER, target=target)
    assert list(payload) == list(json.loads(OTP["targetBundleSignedDataJson"]))
    assert payload["organizationId"] == "org_vectors" and payload["userId"] == "user_vectors"


def test_issued_signatures_are_low_s_and_targets_fresh() -> None:
    targets = set()
    for _ in range(20):
        bundle, target = target_bundle_issue(SIGNER)
        _, s = decode_dss_signature(bytes.fromhex(json.loads(bundle)["dataSignature"]))
        assert s <= N // 2
        targets.add(public_key_hex(target))
    assert len(targets) == 20


@pytest.mark.parametrize("client_key", [TEK["pubHexUncompressed"], TEK["pubHexCompressed"]])
@pytest.mark.parametrize("code", ["000000", "123456", "A7K2Q9", "0"])
def test_client_encrypt_server_open_round_trip(client_key: str, code: str) -> None:
    bundle, target = target_bundle_issue(SIGNER)
    encrypted = client.otp_bundle_encrypt(
        bundle, code, client_key, trusted_signer_public_hex=public_key_hex(SIGNER, compressed=False)
    )
    outer = json.loads(encrypted)
    assert list(outer) == ["encappedPublic", "ciphertext"]
    assert len(outer["encappedPublic"]) == 130 and outer["encappedPublic"].startswith("04")
    expected = json.dumps({"otp_code": code, "public_key": client_key}, separators=(",", ":"))
    assert len(bytes.fromhex(outer["ciphertext"])) == len(expected) + 16
    assert otp_bundle_open(encrypted, target) == OtpPlaintext(
        otp_code=code, public_key_hex=TEK["pubHexCompressed"]
    )


def test_client_encrypt_without_pinned_signer_round_trip() -> None:
    bundle, target = target_bundle_issue(SIGNER)
    encrypted = client.otp_bundle_encrypt(
        bundle, "424242", TEK["pubHexCompressed"], trusted_signer_public_hex=None
    )
    assert otp_bundle_open(encrypted, target).otp_code == "424242"


def test_client_refuses_target_bundle_of_another_signer() -> None:
    bundle, _ = target_bundle_issue(private_key_generate())
    with pytest.raises(client.BundleUntrusted):
        client.otp_bundle_encrypt(
            bundle, "000000", TEK["pubHexCompressed"], trusted_signer_public_hex=OTP["otpSignerPubHex"]
        )


def test_client_refuses_target_bundle_whose_signature_fails() -> None:
    envelope = json.loads(OTP["targetBundle"])
    other = target_bundle_issue(SIGNER)[0]
    # A genuine signature, but over other data: the target key was swapped.
    envelope["data"] = json.loads(other)["data"]
    with pytest.raises(client.BundleUntrusted):
        client.otp_bundle_encrypt(
            json.dumps(envelope),
            "000000",
            TEK["pubHexCompressed"],
            trusted_signer_public_hex=OTP["otpSignerPubHex"],
        )


def test_opening_with_another_target_key_fails() -> None:
    with pytest.raises(BundleDecryptFailed):
        otp_bundle_open(OTP["cases"][0]["encryptedOtpBundle"], private_key_generate())


def _vector_outer(**changes: object) -> str:
    outer = json.loads(OTP["cases"][0]["encryptedOtpBundle"])
    outer.update(changes)
    return json.dumps({k: v for k, v in outer.items() if v is not None})


def test_tampered_ciphertext_fails() -> None:
    outer = json.loads(OTP["cases"][0]["encryptedOtpBundle"])
    ciphertext = bytearray.fromhex(outer["ciphertext"])
    ciphertext[0] ^= 1
    with pytest.raises(BundleDecryptFailed):
        otp_bundle_open(_vector_outer(ciphertext=ciphertext.hex()), TARGET)


def test_other_valid_enc_fails_authentication() -> None:
    with pytest.raises(BundleDecryptFailed):
        otp_bundle_open(_vector_outer(encappedPublic=TEK["pubHexUncompressed"]), TARGET)


_GOOD_ENC = json.loads(OTP["cases"][0]["encryptedOtpBundle"])["encappedPublic"]
MALFORMED_OUTER = {
    "not-json": "encappedPublic=04…",
    "empty": "",
    "array": "[]",
    "double-encoded": json.dumps(OTP["cases"][0]["encryptedOtpBundle"]),
    "missing-enc": _vector_outer(encappedPublic=None),
    "missing-ciphertext": _vector_outer(ciphertext=None),
    "enc-not-string": _vector_outer(encappedPublic=4),
    "enc-not-hex": _vector_outer(encappedPublic="zz" + _GOOD_ENC[2:]),
    "enc-odd-hex": _vector_outer(encappedPublic=_GOOD_ENC[:-1]),
    "enc-not-a-point": _vector_outer(encappedPublic="04aa"),
    "enc-off-curve": _vector_outer(
        encappedPublic=_GOOD_ENC[:-2] + format(int(_GOOD_ENC[-2:], 16) ^ 1, "02x")
    ),
    "ciphertext-not-hex": _vector_outer(ciphertext="not hex"),
    "ciphertext-too-short": _vector_outer(ciphertext="00" * 15),
}


@pytest.mark.parametrize("value", MALFORMED_OUTER.values(), ids=MALFORMED_OUTER.keys())
def test_malformed_encrypted_otp_bundle(value: str) -> None:
    with pytest.raises(BundleMalformed):
        otp_bundle_open(value, TARGET)


def _sealed_to_target(plaintext: bytes) -> str:
    enc, ciphertext = hpke_seal(plaintext, recipient_public_key=TARGET.public_key())
    return json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})


MALFORMED_PLAINTEXT = {
    "not-utf8": b"\xff\xfe",
    "not-json": b"otp_code=000000",
    "not-object": b'["000000"]',
    "missing-code": json.dumps({"public_key": TEK["pubHexCompressed"]}).encode(),
    "code-not-string": json.dumps({"otp_code": 123456, "public_key": TEK["pubHexCompressed"]}).encode(),
    "missing-key": b'{"otp_code":"000000"}',
    # The client library does not validate public_key (it encrypts "04aa" happily); the server does.
    "key-garbage": b'{"otp_code":"000000","public_key":"04aa"}',
    "key-off-curve": json.dumps(
        {"otp_code": "0", "public_key": "02" + (1).to_bytes(32, "big").hex()}
    ).encode(),
}


@pytest.mark.parametrize("plaintext", MALFORMED_PLAINTEXT.values(), ids=MALFORMED_PLAINTEXT.keys())
def test_malformed_plaintext(plaintext: bytes) -> None:
    with pytest.raises(BundleMalformed):
        otp_bundle_open(_sealed_to_target(plaintext), TARGET)


def test_otp_plaintext_repr_hides_the_code() -> None:
    result = otp_bundle_open(OTP["cases"][2]["encryptedOtpBundle"], TARGET)
    assert "A7K2Q9" not in repr(result)
    assert result.public_key_hex in repr(result)


def test_target_private_key_is_not_in_any_repr() -> None:
    issued = target_bundle_issue(SIGNER)
    secret = format(issued[1].private_numbers().private_value, "064x")
    assert secret not in repr(issued)
