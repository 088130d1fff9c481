from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from payments import tasks  # noqa: F401 (registers the tasks that domain modules publish by name)
