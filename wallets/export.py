"""The wallet secret: created with the wallet, exported sealed to the client, never returned twice.

`POST /internal-accounts/{id}/export` `{clientPublicKey}` (uncompressed, the same on both legs) is
a signed retry; its outcome, `encryptedWalletCredentials`, is the mnemonic HPKE-sealed to that
key inside an envelope signed by the service's export key (`organizationId` = the account id). The
bundle is made when it is delivered and is not recorded anywhere; if the challenge lapses before
delivery, the export is lost and must be started again.
"""

from __future__ import annotations

from payments import secret_box
from payments.models import InternalAccount, Platform
from wallets import service_keys
from wallets.accounts import account_operation
from wallets.crypto import export_bundle_seal
from wallets.mnemonic import mnemonic_generate
from wallets.models import SignedRequest, Wallet
from wallets.signed_retry import Attempt, Challenge, Outcome, Processing, performs

_MNEMONIC_PURPOSE = "wallets.mnemonic"


def wallet_create(account: InternalAccount) -> Wallet:
    wallet, _ = Wallet.objects.get_or_create(
        account=account,
        defaults={
            "platform_id": account.platform_id,
            "mnemonic_sealed": secret_box.seal(mnemonic_generate().encode(), purpose=_MNEMONIC_PURPOSE),
        },
    )
    return wallet


def wallet_export(
    *, platform: Platform, account_id: str, client_public_key: str | None, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """`client_public_key` is the first leg's; None on the retry."""
    return account_operation(
        platform=platform,
        account_id=account_id,
        attempt=attempt,
        kind=SignedRequest.Kind.WALLET_EXPORT,
        parameters={"targetPublicKey": client_public_key},
        params={"clientPublicKey": client_public_key},
    )


@performs(SignedRequest.Kind.WALLET_EXPORT)
def wallet_export_perform(request: SignedRequest) -> Outcome:
    account = InternalAccount.objects.get(pk=request.account_id)
    wallet = wallet_create(account)  # accounts older than the wallet feature get theirs now
    bundle = export_bundle_seal(
        secret_box.unseal(wallet.mnemonic_sealed, purpose=_MNEMONIC_PURPOSE).decode(),
        request.params["clientPublicKey"],
        service_keys.signing_key(service_keys.Purpose.EXPORT),
        organization_id=account.public_id,
    )
    return Outcome(200, {"id": account.public_id, "encryptedWalletCredentials": bundle})
