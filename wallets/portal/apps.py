from django.apps import AppConfig


class PortalConfig(AppConfig):
    """The portal is its own app (label `wallets_portal`) so its tables stay apart from the service's."""

    name = "wallets.portal"
    label = "wallets_portal"
    verbose_name = "End-user portal"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from wallets.portal import checks  # noqa: F401 - registers the system checks
