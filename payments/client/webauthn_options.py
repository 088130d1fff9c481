"""Passkey creation options (WebAuthn `navigator.credentials.create`) as this project asks for them,
for any relying party: the portal's sign-in passkeys and the service's SCA enrollment alike.

Like the rest of the client it imports nothing of the service and nothing of Django.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webauthn import generate_registration_options, options_to_json
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)


@dataclass(frozen=True)
class RelyingParty:
    """Who asks for the passkey (WebAuthn `rp.id` and `rp.name`) and how long the browser may take."""

    id: str
    name: str
    timeout_ms: int


def creation_options(
    rp: RelyingParty,
    *,
    user_id: bytes,
    user_name: str,
    user_display_name: str,
    exclude_credential_ids: Iterable[bytes] = (),
) -> tuple[dict[str, Any], bytes]:
    """The creation options in their JSON form, and the fresh 32-byte challenge in them to keep.
    No attestation is asked for; a discoverable credential and user verification are preferred."""
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name=rp.name,
        user_id=user_id,
        user_name=user_name,
        user_display_name=user_display_name,
        challenge=secrets.token_bytes(32),
        timeout=rp.timeout_ms,
        attestation=AttestationConveyancePreference.NONE,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=cid) for cid in exclude_credential_ids],
    )
    return json.loads(options_to_json(options)), options.challenge
