import os

from celery import Celery
from celery.signals import celeryd_init, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from project import metrics, request_ids  # noqa: E402, F401 (their signal handlers: task metrics, request ids)

BEAT_IN_WORKER_REFUSED = (
    "a worker with --beat in production mode: run exactly one `celery -A project beat` beside the "
    'workers instead (README "Running in production")'
)


@celeryd_init.connect
def _one_scheduler(options=None, **kwargs) -> None:
    """Every worker started with --beat would run the whole schedule again: refused in production
    mode, where the scheduler is its own single process (`make run` keeps its all-in-one worker)."""
    from django.conf import settings

    if settings.PRODUCTION and (options or {}).get("beat"):
        raise SystemExit(BEAT_IN_WORKER_REFUSED)


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
