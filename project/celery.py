import os

from celery import Celery
from celery.signals import task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
def _refresh_database_connections(task=None, **kwargs) -> None:
    """What Django does at the start of a web request: drop connections that failed or outlived
    CONN_MAX_AGE, and health-check the others on first use. Connections are kept between tasks
    (CELERY_DB_REUSE_MAX), so this is what keeps a broken one from failing the tasks after it."""
    if task is not None and getattr(task.request, "is_eager", False):
        return  # runs inside the caller's transaction
    from django.db import close_old_connections

    close_old_connections()


@app.task
def broker_prune_task() -> int:
    """Every 5 minutes with the SQLite broker (CELERY_BEAT_SCHEDULE): delete the messages taken."""
    from project.broker import broker_prune

    return broker_prune()
