"""The names people give their passkeys in the portal.

The service has no operation to rename a credential, so the portal keeps its own label per account
and credential id (`PortalCredentialLabel`) and shows it instead of the nickname the passkey was
registered with. Labels are looked up through the signed-in account only, so one person's label
can never name another's credential.
"""

from __future__ import annotations

from payments.client import AuthMethod
from wallets.portal.models import PortalAccount, PortalCredentialLabel


def credential_labels(account: PortalAccount) -> dict[str, str]:
    """Credential id → the name this person gave it in the portal."""
    return dict(PortalCredentialLabel.objects.filter(account=account).values_list("credential_id", "label"))


def credential_name(credential: AuthMethod, labels: dict[str, str]) -> str:
    return labels.get(credential.id) or credential.nickname


def credential_label_set(account: PortalAccount, credential: AuthMethod, label: str) -> None:
    """Name `credential` (already checked to be one of `account`'s); an empty label, or the
    registered nickname, goes back to the nickname."""
    if label and label != credential.nickname:
        PortalCredentialLabel.objects.update_or_create(
            account=account, credential_id=credential.id, defaults={"label": label}
        )
    else:
        credential_label_forget(account, credential.id)


def credential_label_forget(account: PortalAccount, credential_id: str) -> None:
    PortalCredentialLabel.objects.filter(account=account, credential_id=credential_id).delete()
