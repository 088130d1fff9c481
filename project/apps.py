from django.apps import AppConfig


class ProjectConfig(AppConfig):
    """The deployment's own pieces: its system checks (project/checks.py)."""

    name = "project"
    verbose_name = "Deployment"

    def ready(self) -> None:
        from project import checks  # noqa: F401 - registers the system checks
