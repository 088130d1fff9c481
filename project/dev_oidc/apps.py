from django.apps import AppConfig


class DevOidcConfig(AppConfig):
    name = "project.dev_oidc"
    label = "dev_oidc"
    verbose_name = "Development OIDC provider"
    default_auto_field = "django.db.models.BigAutoField"
