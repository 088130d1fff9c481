import pytest

from payments import secret_box


def test_round_trip_and_no_plaintext_in_the_sealed_form():
    sealed = secret_box.seal(b"private key bytes", purpose="session-key")
    assert b"private key bytes" not in sealed.encode()
    assert secret_box.unseal(sealed, purpose="session-key") == b"private key bytes"


def test_sealing_is_randomised():
    assert secret_box.seal(b"x", purpose="p") != secret_box.seal(b"x", purpose="p")


def test_a_value_sealed_for_one_purpose_does_not_open_for_another():
    sealed = secret_box.seal(b"x", purpose="webhook-key")
    with pytest.raises(secret_box.SecretBoxError):
        secret_box.unseal(sealed, purpose="session-key")


def test_tampering_is_detected():
    sealed = secret_box.seal(b"abcdef", purpose="p")
    tampered = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    with pytest.raises(secret_box.SecretBoxError):
        secret_box.unseal(tampered, purpose="p")
    with pytest.raises(secret_box.SecretBoxError):
        secret_box.unseal("v0.abc", purpose="p")


def test_a_different_key_cannot_open(settings):
    sealed = secret_box.seal(b"x", purpose="p")
    settings.SERVICE_SECRETS_KEY = "A" * 43
    with pytest.raises(secret_box.SecretBoxError):
        secret_box.unseal(sealed, purpose="p")
