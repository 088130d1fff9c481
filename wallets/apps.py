from django.apps import AppConfig


class WalletsConfig(AppConfig):
    name = "wallets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the signed-retry operations and tasks; install what payments calls through its one
        seam (`payments/wallet_seam.py`)."""
        from payments import wallet_seam
        from wallets import export, otp, privacy, sessions, tasks  # noqa: F401 (they register themselves)
        from wallets.contact import contact_change_guard, contact_changes_settle_due
        from wallets.credentials import wallet_bootstrap
        from wallets.delegated_keys import delegated_key_active
        from wallets.passkeys import assertion_verify, registration_verify
        from wallets.stamp_check import wallet_stamp_verify

        wallet_seam.install(
            wallet_stamp_verify=wallet_stamp_verify,
            registration_verify=registration_verify,
            assertion_verify=assertion_verify,
            contact_change_guard=contact_change_guard,
            contact_changes_settle_due=contact_changes_settle_due,
            wallet_bootstrap=wallet_bootstrap,
            delegated_key_active=delegated_key_active,
        )
