from __future__ import annotations

import json

import base58
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from payments.client import wallet_crypto as client
from tests.vectors import wallet_wire_vectors
from wallets.crypto import (
    InvalidKey,
    credential_bundle_seal,
    export_bundle_seal,
    private_key_from_hex,
    private_key_generate,
    public_key_from_hex,
    public_key_hex,
)

VECTORS = wallet_wire_vectors()
CREDENTIAL_CASES = VECTORS["credentialBundles"]["cases"]
EXPORT = VECTORS["exportBundles"]
EXPORT_SIGNER = private_key_from_hex(VECTORS["keys"]["exportSigner"]["privHex"])
EXPORT_CLIENT = VECTORS["keys"]["exportClient"]
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"


# Credential bundles (encryptedSessionSigningKey)


@pytest.mark.parametrize("case", CREDENTIAL_CASES, ids=lambda c: c["id"])
def test_client_opens_vector_credential_bundles(case: dict) -> None:
    session_key = client.credential_bundle_open(case["bundle"], case["recipientPrivHex"])
    assert session_key == bytes.fromhex(case["expectedPlaintextHex"])
    assert len(session_key) == 32
    assert public_key_hex(private_key_from_hex(session_key.hex())) == case["expectedSessionPubCompressed"]


def test_vector_with_leading_zero_session_key_stays_32_bytes() -> None:
    (case,) = [c for c in CREDENTIAL_CASES if c["expectedPlaintextHex"].startswith("00")]
    assert client.credential_bundle_open(case["bundle"], case["recipientPrivHex"])[:1] == b"\x00"


@pytest.mark.parametrize("case", CREDENTIAL_CASES, ids=lambda c: c["id"])
def test_vector_credential_bundle_structure(case: dict) -> None:
    payload = base58.b58decode_check(case["bundle"])
    assert payload.hex() == case["bundleBytesHex"]
    assert len(payload) == 81 and payload[0] in (2, 3)
    assert payload[:33].hex() == case["encappedPublicCompressed"]


@pytest.mark.parametrize("recipient_form", ["recipientPubUncompressed", "recipientPubCompressed"])
@pytest.mark.parametrize("case", CREDENTIAL_CASES, ids=lambda c: c["id"])
def test_server_seal_client_open_round_trip(case: dict, recipient_form: str) -> None:
    session_key = bytes.fromhex(case["expectedPlaintextHex"])
    bundle = credential_bundle_seal(session_key, case[recipient_form])
    payload = base58.b58decode_check(bundle)
    assert len(payload) == 81 and payload[0] in (2, 3)
    public_key_from_hex(payload[:33].hex())  # enc is a real compressed point
    assert client.credential_bundle_open(bundle, case["recipientPrivHex"]) == session_key


def test_server_seal_fresh_session_key_round_trip() -> None:
    pair = client.generate_key_pair()
    session_key = bytes.fromhex(client.generate_key_pair().private_key_hex)
    bundle = credential_bundle_seal(session_key, pair.public_key_hex_uncompressed)
    assert bundle != credential_bundle_seal(session_key, pair.public_key_hex_uncompressed)  # randomised
    assert client.credential_bundle_open(bundle, pair.private_key_hex) == session_key


@pytest.mark.parametrize("size", [0, 31, 33, 64])
def test_server_seal_refuses_non_32_byte_keys(size: int) -> None:
    with pytest.raises(InvalidKey):
        credential_bundle_seal(b"\x01" * size, CREDENTIAL_CASES[0]["recipientPubUncompressed"])


def test_server_seal_refuses_bad_recipient() -> None:
    with pytest.raises(InvalidKey):
        credential_bundle_seal(b"\x01" * 32, "04aa")


def test_credential_bundle_for_another_recipient_fails() -> None:
    with pytest.raises(client.BundleDecryptFailed):
        client.credential_bundle_open(CREDENTIAL_CASES[1]["bundle"], CREDENTIAL_CASES[0]["recipientPrivHex"])


def test_credential_bundle_checksum_and_alphabet_are_checked() -> None:
    bundle = CREDENTIAL_CASES[0]["bundle"]
    swapped = bundle[:-1] + ("2" if bundle[-1] != "2" else "3")
    for bad in (swapped, bundle + "0", bundle.replace(bundle[5], "l", 1), "", " " + bundle):
        with pytest.raises(client.BundleMalformed):
            client.credential_bundle_open(bad, CREDENTIAL_CASES[0]["recipientPrivHex"])


def test_credential_bundle_with_tampered_ciphertext_fails() -> None:
    payload = bytearray(base58.b58decode_check(CREDENTIAL_CASES[0]["bundle"]))
    payload[-1] ^= 1
    with pytest.raises(client.BundleDecryptFailed):
        client.credential_bundle_open(
            base58.b58encode_check(bytes(payload)).decode(), CREDENTIAL_CASES[0]["recipientPrivHex"]
        )


# Export bundles (encryptedWalletCredentials)


@pytest.mark.parametrize("case", EXPORT["cases"], ids=lambda c: c["id"])
def test_client_opens_vector_export_bundles(case: dict) -> None:
    assert EXPORT["signerPubHex"] == VECTORS["keys"]["exportSigner"]["pubHexUncompressed"]
    secret = client.export_bundle_open(
        case["exportBundle"],
        case["recipientPrivHex"],
        trusted_signer_public_hex=EXPORT["signerPubHex"],
        organization_id=case["organizationId"],
    )
    assert secret == case["expectedMnemonic"]


@pytest.mark.parametrize(
    "recipient", [EXPORT_CLIENT["pubHexUncompressed"], EXPORT_CLIENT["pubHexCompressed"]]
)
def test_server_seal_client_open_export_round_trip(recipient: str) -> None:
    bundle = export_bundle_seal(MNEMONIC, recipient, EXPORT_SIGNER, "org_round_trip")
    secret = client.export_bundle_open(
        bundle,
        EXPORT_CLIENT["privHex"],
        trusted_signer_public_hex=EXPORT["signerPubHex"],
        organization_id="org_round_trip",
    )
    assert secret == MNEMONIC


def test_export_bundle_shape_matches_the_vectors() -> None:
    bundle = export_bundle_seal(MNEMONIC, EXPORT_CLIENT["pubHexUncompressed"], EXPORT_SIGNER, "org_shape")
    envelope = json.loads(bundle)
    vector_envelope = json.loads(EXPORT["cases"][0]["exportBundle"])
    assert (
        list(envelope) == list(vector_envelope) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    )
    assert envelope["version"] == "v1.0.0"
    assert envelope["enclaveQuorumPublic"] == EXPORT["signerPubHex"]
    data = bytes.fromhex(envelope["data"])
    public_key_from_hex(envelope["enclaveQuorumPublic"]).verify(
        bytes.fromhex(envelope["dataSignature"]), data, ec.ECDSA(hashes.SHA256())
    )
    assert decode_dss_signature(bytes.fromhex(envelope["dataSignature"]))[1] <= N // 2
    inner = json.loads(data)
    assert list(inner) == list(json.loads(bytes.fromhex(vector_envelope["data"])))
    assert list(inner) == ["encappedPublic", "ciphertext", "organizationId"]
    assert inner["organizationId"] == "org_shape"
    assert len(inner["encappedPublic"]) == 130 and inner["encappedPublic"].startswith("04")
    assert len(bytes.fromhex(inner["ciphertext"])) == len(MNEMONIC) + 16


def test_export_non_ascii_secret_round_trip() -> None:
    secret = "あいこくしん あいさつ"
    bundle = export_bundle_seal(secret, EXPORT_CLIENT["pubHexCompressed"], EXPORT_SIGNER, "org")
    opened = client.export_bundle_open(
        bundle,
        EXPORT_CLIENT["privHex"],
        trusted_signer_public_hex=EXPORT["signerPubHex"],
        organization_id="org",
    )
    assert opened == secret


def _resigned(bundle: str, *, drop: tuple[str, ...] = (), **data_changes: str) -> str:
    """Edit the signed data and sign it again with the genuine signer."""
    envelope = json.loads(bundle)
    inner = json.loads(bytes.fromhex(envelope["data"]))
    inner.update(data_changes)
    for name in drop:
        del inner[name]
    data = json.dumps(inner, separators=(",", ":")).encode()
    signature = EXPORT_SIGNER.sign(data, ec.ECDSA(hashes.SHA256()))
    return json.dumps({**envelope, "data": data.hex(), "dataSignature": signature.hex()})


def test_tampered_export_signature_is_refused() -> None:
    envelope = json.loads(EXPORT["cases"][0]["exportBundle"])
    r, s = decode_dss_signature(bytes.fromhex(envelope["dataSignature"]))
    for signature in (
        encode_dss_signature(r, (s + 1) % N).hex(),
        json.loads(EXPORT["cases"][1]["exportBundle"])["dataSignature"],  # genuine, other data
        "",
        "3000",
    ):
        tampered = json.dumps({**envelope, "dataSignature": signature})
        with pytest.raises(client.BundleUntrusted):
            client.export_bundle_open(
                tampered,
                EXPORT["cases"][0]["recipientPrivHex"],
                trusted_signer_public_hex=EXPORT["signerPubHex"],
                organization_id=EXPORT["cases"][0]["organizationId"],
            )


def test_tampered_export_data_is_refused() -> None:
    envelope = json.loads(EXPORT["cases"][0]["exportBundle"])
    inner = json.loads(bytes.fromhex(envelope["data"]))
    inner["organizationId"] = "org_attacker"
    tampered = json.dumps({**envelope, "data": json.dumps(inner).encode().hex()})
    with pytest.raises(client.BundleUntrusted):
        client.export_bundle_open(
            tampered,
            EXPORT["cases"][0]["recipientPrivHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id="org_attacker",
        )


def test_export_signed_by_another_key_is_refused() -> None:
    bundle = export_bundle_seal(MNEMONIC, EXPORT_CLIENT["pubHexCompressed"], private_key_generate(), "org")
    with pytest.raises(client.BundleUntrusted):
        client.export_bundle_open(
            bundle,
            EXPORT_CLIENT["privHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id="org",
        )


def test_export_for_another_organization_is_refused() -> None:
    case = EXPORT["cases"][0]
    with pytest.raises(client.BundleUntrusted):
        client.export_bundle_open(
            case["exportBundle"],
            case["recipientPrivHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id=EXPORT["cases"][1]["organizationId"],
        )


def test_export_without_organization_id_is_refused_when_one_is_expected() -> None:
    bundle = export_bundle_seal(MNEMONIC, EXPORT_CLIENT["pubHexCompressed"], EXPORT_SIGNER, "org")
    stripped = _resigned(bundle, drop=("organizationId",))
    with pytest.raises(client.BundleUntrusted):
        client.export_bundle_open(
            stripped,
            EXPORT_CLIENT["privHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id="org",
        )
    opened = client.export_bundle_open(
        stripped,
        EXPORT_CLIENT["privHex"],
        trusted_signer_public_hex=EXPORT["signerPubHex"],
        organization_id=None,
    )
    assert opened == MNEMONIC


def test_export_opens_without_checks_when_none_are_requested() -> None:
    # The sandbox-style path: no signer pinned, no organization compared.
    bundle = json.dumps(
        {**json.loads(EXPORT["cases"][1]["exportBundle"]), "dataSignature": "", "enclaveQuorumPublic": ""}
    )
    secret = client.export_bundle_open(
        bundle, EXPORT["cases"][1]["recipientPrivHex"], trusted_signer_public_hex=None, organization_id=None
    )
    assert secret == MNEMONIC


def test_export_for_another_recipient_fails_decryption() -> None:
    case = EXPORT["cases"][0]
    with pytest.raises(client.BundleDecryptFailed):
        client.export_bundle_open(
            case["exportBundle"],
            VECTORS["keys"]["legacyClientA"]["privHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id=case["organizationId"],
        )


def test_export_with_swapped_ciphertext_fails_decryption() -> None:
    other = json.loads(bytes.fromhex(json.loads(EXPORT["cases"][1]["exportBundle"])["data"]))
    bundle = _resigned(EXPORT["cases"][0]["exportBundle"], ciphertext=other["ciphertext"])
    with pytest.raises(client.BundleDecryptFailed):
        client.export_bundle_open(
            bundle,
            EXPORT["cases"][0]["recipientPrivHex"],
            trusted_signer_public_hex=EXPORT["signerPubHex"],
            organization_id=EXPORT["cases"][0]["organizationId"],
        )
