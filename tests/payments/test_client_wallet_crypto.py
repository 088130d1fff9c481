from __future__ import annotations

import ast
import base64
import json
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

from payments.client import wallet_crypto as client
from tests.vectors import wallet_wire_vectors

VECTORS = wallet_wire_vectors()
KEYS = VECTORS["keys"]
OTP = VECTORS["otpBundles"]
EXPORT = VECTORS["exportBundles"]
CURVE = ec.SECP256R1()


def _public(hex_key: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVE, bytes.fromhex(hex_key))


def test_module_is_self_contained() -> None:
    tree = ast.parse(Path(client.__file__).read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            roots.add(node.module.split(".")[0])
    assert roots - sys.stdlib_module_names == {"cryptography", "pyhpke", "base58"}


def test_generate_key_pair() -> None:
    pair = client.generate_key_pair()
    assert len(pair.private_key_hex) == 64 and pair.private_key_hex == pair.private_key_hex.lower()
    private = ec.derive_private_key(int(pair.private_key_hex, 16), CURVE)
    assert _public(pair.public_key_hex_compressed) == private.public_key()
    assert _public(pair.public_key_hex_uncompressed) == private.public_key()
    assert pair.public_key_hex_compressed[:2] in ("02", "03") and len(pair.public_key_hex_compressed) == 66
    assert pair.public_key_hex_uncompressed.startswith("04") and len(pair.public_key_hex_uncompressed) == 130
    assert client.generate_key_pair().private_key_hex != pair.private_key_hex


def test_key_pair_repr_hides_the_private_key() -> None:
    pair = client.generate_key_pair()
    assert pair.private_key_hex not in repr(pair)
    assert pair.private_key_hex not in str(pair)
    assert pair.public_key_hex_compressed in repr(pair)


@pytest.mark.parametrize("case", VECTORS["stamps"], ids=lambda c: c["id"])
def test_stamp_has_the_wire_shape(case: dict) -> None:
    header = client.stamp(case["payload"], case["privHex"])
    assert "=" not in header and "+" not in header and "/" not in header
    raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)).decode()
    fields = json.loads(raw)
    assert list(fields) == ["publicKey", "scheme", "signature"]
    assert raw == json.dumps(fields, separators=(",", ":"))
    assert fields["publicKey"] == case["publicKeyCompressed"]
    assert fields["scheme"] == client.STAMP_SCHEME == VECTORS["constants"]["stampScheme"]
    # The same key and payload as the vector: verifiable with plain cryptography.
    _public(case["publicKeyCompressed"]).verify(
        bytes.fromhex(fields["signature"]), bytes.fromhex(case["payloadUtf8Hex"]), ec.ECDSA(hashes.SHA256())
    )


def test_stamp_header_name() -> None:
    assert VECTORS["constants"]["stampHeaderName"] == client.STAMP_HEADER


@pytest.mark.parametrize(
    "bad", ["", "00" * 32, "ab" * 31, "ab" * 33, "g" * 64, KEYS["stampKeyA"]["privHex"][2:]]
)
def test_stamp_rejects_bad_private_keys(bad: str) -> None:
    with pytest.raises(client.InvalidKey):
        client.stamp("payload", bad)


def test_otp_bundle_encrypt_against_the_vector_target_bundle() -> None:
    # Same plaintext layout as the real library's output for this case (byte for byte).
    case = OTP["cases"][1]
    encrypted = client.otp_bundle_encrypt(
        OTP["targetBundle"],
        case["otpCode"],
        case["clientPublicKey"],
        trusted_signer_public_hex=OTP["otpSignerPubHex"],
    )
    ours, theirs = json.loads(encrypted), json.loads(case["encryptedOtpBundle"])
    assert list(ours) == list(theirs)
    assert len(ours["ciphertext"]) == len(theirs["ciphertext"])
    suite = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
    target = ec.derive_private_key(int(OTP["targetPrivHex"], 16), CURVE)
    enc = bytes.fromhex(ours["encappedPublic"])
    context = suite.create_recipient_context(
        enc, KEMKey.from_pyca_cryptography_key(target), info=b"turnkey_hpke"
    )
    plaintext = context.open(
        bytes.fromhex(ours["ciphertext"]), aad=enc + bytes.fromhex(OTP["targetPubUncompressed"])
    )
    assert plaintext.hex() == case["expectedPlaintextHex"]


def test_otp_bundle_encrypt_refuses_an_unpinned_signer_name() -> None:
    envelope = json.loads(OTP["targetBundle"])
    envelope["enclaveQuorumPublic"] = KEYS["exportSigner"]["pubHexUncompressed"]
    with pytest.raises(client.BundleUntrusted):
        client.otp_bundle_encrypt(
            json.dumps(envelope),
            "000000",
            KEYS["otpClientTek"]["pubHexCompressed"],
            trusted_signer_public_hex=OTP["otpSignerPubHex"],
        )


def test_otp_bundle_encrypt_refuses_a_tampered_signature() -> None:
    envelope = json.loads(OTP["targetBundle"])
    signature = bytearray.fromhex(envelope["dataSignature"])
    signature[-1] ^= 1
    envelope["dataSignature"] = signature.hex()
    with pytest.raises(client.BundleUntrusted):
        client.otp_bundle_encrypt(
            json.dumps(envelope),
            "000000",
            KEYS["otpClientTek"]["pubHexCompressed"],
            trusted_signer_public_hex=OTP["otpSignerPubHex"],
        )


def test_otp_bundle_encrypt_accepts_the_pin_in_either_encoding() -> None:
    encrypted = client.otp_bundle_encrypt(
        OTP["targetBundle"],
        "000000",
        KEYS["otpClientTek"]["pubHexCompressed"],
        trusted_signer_public_hex=KEYS["otpSigner"]["pubHexCompressed"],
    )
    assert json.loads(encrypted)["encappedPublic"].startswith("04")


def _target_bundle_with(data: dict) -> str:
    signer = ec.derive_private_key(int(OTP["otpSignerPrivHex"], 16), CURVE)
    raw = json.dumps(data).encode()
    envelope = json.loads(OTP["targetBundle"])
    envelope.update(data=raw.hex(), dataSignature=signer.sign(raw, ec.ECDSA(hashes.SHA256())).hex())
    return json.dumps(envelope)


@pytest.mark.parametrize(
    "bundle",
    [
        "not json",
        "[]",
        json.dumps({**json.loads(OTP["targetBundle"]), "data": "zz"}),
        _target_bundle_with({"organizationId": "org"}),
        _target_bundle_with({"targetPublic": "04aa"}),
        _target_bundle_with({"targetPublic": 4}),
    ],
    ids=["not-json", "array", "data-not-hex", "no-target", "target-not-a-point", "target-not-string"],
)
def test_otp_bundle_encrypt_rejects_malformed_target_bundles(bundle: str) -> None:
    with pytest.raises(client.BundleMalformed):
        client.otp_bundle_encrypt(
            bundle, "000000", KEYS["otpClientTek"]["pubHexCompressed"], trusted_signer_public_hex=None
        )


def test_otp_bundle_encrypt_validates_the_client_key() -> None:
    with pytest.raises(client.InvalidKey):
        client.otp_bundle_encrypt(OTP["targetBundle"], "000000", "04aa", trusted_signer_public_hex=None)


def test_otp_bundle_encrypt_accepts_uppercase_data_hex() -> None:
    envelope = json.loads(OTP["targetBundle"])
    envelope["data"] = envelope["data"].upper()
    client.otp_bundle_encrypt(
        json.dumps(envelope),
        "000000",
        KEYS["otpClientTek"]["pubHexCompressed"],
        trusted_signer_public_hex=OTP["otpSignerPubHex"],
    )


def test_credential_bundle_open_rejects_bad_private_key() -> None:
    with pytest.raises(client.InvalidKey):
        client.credential_bundle_open(VECTORS["credentialBundles"]["cases"][0]["bundle"], "00")


def test_errors_form_one_hierarchy() -> None:
    for error in (
        client.InvalidKey,
        client.BundleMalformed,
        client.BundleUntrusted,
        client.BundleDecryptFailed,
    ):
        assert issubclass(error, client.WalletCryptoError) and issubclass(error, ValueError)


def test_export_bundle_open_rejects_malformed_envelopes() -> None:
    case = EXPORT["cases"][0]
    for bundle in ("", "{}", json.dumps({"data": "7b7d"})):
        with pytest.raises(client.BundleMalformed):
            client.export_bundle_open(
                bundle, case["recipientPrivHex"], trusted_signer_public_hex=None, organization_id=None
            )
