"""Wire shapes of the wallet's records (output serializers).

Built on the service's wire layer (`payments.wire`). Shared by the API layer, which renders and
documents them, and by the operations behind signed retries, whose outcomes are recorded in these shapes so that a re-send replays them exactly.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import ids
from payments.accounts import account_rendered
from payments.models import InternalAccount
from payments.wire.ids import PublicIdField
from payments.wire.signed_requests import SignedRequestChallengeSerializer
from payments.wire.time import UtcDateTimeField, utc_timestamp
from wallets.models import AuthCredential, AuthSession, CredentialType, DelegatedKey


class AuthMethodSerializer(serializers.Serializer):
    id = PublicIdField("AuthMethod")
    accountId = PublicIdField("InternalAccount", source="account_id")
    type = serializers.ChoiceField(choices=CredentialType.choices)
    credentialId = serializers.CharField(source="credential_id", required=False, help_text="PASSKEY only")
    nickname = serializers.CharField()
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def to_representation(self, instance: AuthCredential) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.type != CredentialType.PASSKEY:
            data.pop("credentialId", None)
        return data


class AuthMethodResponseSerializer(AuthMethodSerializer):
    otpEncryptionTargetBundle = serializers.CharField(
        required=False, help_text="OTP credentials, when a code was just sent: the HPKE target bundle"
    )


class AuthSessionSerializer(serializers.Serializer):
    """For the OpenAPI document only; responses are built by `auth_session`."""

    id = PublicIdField("Session")
    accountId = PublicIdField("InternalAccount", source="account_id")
    type = serializers.ChoiceField(choices=CredentialType.choices, source="credential.type")
    credentialId = serializers.CharField(source="credential.credential_id", required=False)
    nickname = serializers.CharField(source="credential.nickname")
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")
    expiresAt = UtcDateTimeField(source="expires_at")
    encryptedSessionSigningKey = serializers.CharField(  # not read-only: drf-spectacular requires those
        required=False,
        help_text="Only when an uncompressed clientPublicKey was sent (legacy flow): the session key sealed to it",
    )


class PasskeyAuthChallengeSerializer(AuthMethodSerializer):
    challenge = serializers.CharField(help_text="Lowercase hex; UTF-8 encode it as the WebAuthn challenge")
    requestId = serializers.CharField()
    expiresAt = serializers.DateTimeField()


class AuthSignedRequestChallengeSerializer(SignedRequestChallengeSerializer):
    type = serializers.ChoiceField(choices=CredentialType.choices)


class DelegatedKeySerializer(serializers.Serializer):
    """For the OpenAPI document only; responses are built by `delegated_key_rendered`."""

    id = PublicIdField("DelegatedKey")
    cardId = PublicIdField("Card")
    fundingSourceId = PublicIdField("CardFundingSource")
    accountId = PublicIdField("InternalAccount")
    publicKey = serializers.CharField(
        help_text="Compressed P-256 public key (hex) of the delegated API keypair"
    )
    nickname = serializers.CharField()
    status = serializers.ChoiceField(choices=["PENDING", "ACTIVE", "REVOKED"])
    createdAt = UtcDateTimeField()
    updatedAt = UtcDateTimeField()

    class Meta:
        ref_name = "DelegatedKey"


class WalletOperationProcessingSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["PROCESSING"])
    message = serializers.CharField()


def auth_method(credential: AuthCredential, *, otp_bundle: str | None = None) -> dict[str, Any]:
    data = AuthMethodSerializer(credential).data
    if otp_bundle is not None:
        data["otpEncryptionTargetBundle"] = otp_bundle
    return data


def auth_session(session: AuthSession, *, encrypted_key: str | None = None) -> dict[str, Any]:
    """The reference's AuthSession (`credentialId` for passkeys only). Built by hand, not by
    `AuthSessionSerializer`: every sign-in renders one, and the serializer took 0.35 ms of it."""
    credential = session.credential
    data: dict[str, Any] = {
        "id": session.public_id,
        "accountId": ids.render(InternalAccount.ID_KIND, session.account_id),
        "type": str(credential.type),
    }
    if credential.type == CredentialType.PASSKEY:
        data["credentialId"] = str(credential.credential_id)
    data["nickname"] = str(credential.nickname)
    data["createdAt"] = utc_timestamp(session.created_at)
    data["updatedAt"] = utc_timestamp(session.updated_at)
    data["expiresAt"] = utc_timestamp(session.expires_at)
    if encrypted_key is not None:
        data["encryptedSessionSigningKey"] = encrypted_key
    return data


def delegated_key_rendered(key: DelegatedKey) -> dict[str, Any]:
    """The reference's DelegatedKey: never the private key."""
    return {
        "id": key.public_id,
        "cardId": ids.render("Card", key.card_id),
        "fundingSourceId": ids.render("CardFundingSource", key.funding_source_id),
        "accountId": ids.render(InternalAccount.ID_KIND, key.account_id),
        "publicKey": key.public_key,
        "nickname": key.nickname,
        "status": key.status,
        "createdAt": utc_timestamp(key.created_at),
        "updatedAt": utc_timestamp(key.updated_at),
    }


def internal_account(account: InternalAccount) -> dict[str, Any]:
    return account_rendered(account)
