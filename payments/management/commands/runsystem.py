"""`make run`: first-run set-up, then the web server and a Celery worker with its scheduler, in the
foreground (project/runner.py restarts either if it dies). Ctrl-C (or SIGTERM) stops all of them."""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from payments.platforms import platform_create
from project.runner import Child, supervise
from project.web_server import web_server_command


def _first_run_credentials() -> dict:
    """Created once; kept in the data directory so later runs can print them again (sandbox only)."""
    path = settings.DATA_DIR / "sandbox-credentials.json"
    if path.exists():
        return json.loads(path.read_text())
    platform, token, secret = platform_create(name="Sandbox platform")
    password = secrets.token_urlsafe(12)
    user_model = get_user_model()
    if not user_model.objects.filter(username="admin").exists():
        user_model.objects.create_superuser("admin", "admin@localhost", password)
    creds = {
        "platformId": platform.public_id,
        "clientId": token.client_id,
        "clientSecret": secret,
        "adminUser": "admin",
        "adminPassword": password,
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(creds, fh, indent=2)
    return creds


def _portal_credentials() -> dict:
    """The portal's own platform, created once (sandbox only); the portal reads this file when
    PORTAL_CLIENT_ID and PORTAL_CLIENT_SECRET are unset (wallets/portal/service.py)."""
    path = settings.DATA_DIR / "portal-credentials.json"
    if path.exists():
        return json.loads(path.read_text())
    platform, token, secret = platform_create(name="Portal")
    creds = {"platformId": platform.public_id, "clientId": token.client_id, "clientSecret": secret}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(creds, fh, indent=2)
    return creds


class Command(BaseCommand):
    help = "Run the whole system: migrations, first-run platform, web server and Celery worker with beat."

    def handle(self, *args, **options) -> None:
        if settings.PRODUCTION:
            raise CommandError(
                "runsystem is the sandbox development runner; deploy the web server and celery directly"
            )
        host = os.environ.get("HOST", "127.0.0.1")
        port = os.environ.get("PORT", "8000")
        call_command("migrate", interactive=False, verbosity=0)
        creds = _first_run_credentials()
        if not (settings.PORTAL_CLIENT_ID and settings.PORTAL_CLIENT_SECRET):
            _portal_credentials()
        base = f"http://{host}:{port}"
        # Passkeys need the host name localhost (WebAuthn's relying party id), not a loopback address.
        portal = f"http://localhost:{port}" if host in ("127.0.0.1", "::1", "localhost") else base
        api = f"{base}/{settings.API_PREFIX.rstrip('/')}"
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"  Service API     {api}",
                    f"  API docs        {api}/docs/",
                    f"  Admin           {base}/admin/   (user {creds['adminUser']}, password {creds['adminPassword']})",
                    f"  Portal          {portal}/",
                    f"  Dev OIDC        {settings.DEV_OIDC_ISSUER if settings.DEV_OIDC_ENABLED else 'off'}",
                    f"  Client id       {creds['clientId']}",
                    f"  Client secret   {creds['clientSecret']}",
                    "",
                    f"  Try: curl -u {creds['clientId']}:{creds['clientSecret']} {api}/config",
                    "",
                ]
            )
        )
        self.stdout.flush()
        bin_dir = os.path.dirname(sys.executable)
        children = [
            Child(
                "web server",
                web_server_command(host=host, port=port, threads=os.environ.get("WEB_THREADS", "8")),
            ),
            Child(
                "Celery worker",
                [
                    os.path.join(bin_dir, "celery"),
                    "--quiet",  # no banner: the runner printed what a person needs
                    "-A",
                    "project",
                    "worker",
                    "--beat",
                    "--loglevel",  # INFO would log the relay's run every second (CELERY_BEAT_SCHEDULE)
                    os.environ.get("CELERY_LOG_LEVEL", "WARNING"),
                    "--concurrency",
                    os.environ.get("CELERY_CONCURRENCY", "2"),
                ],
                # Sandboxes in containers run as root; Celery's multi-line warning about it tells a
                # person nothing to do here (this runner refuses production mode, see above).
                env={
                    **os.environ,
                    "PYTHONWARNINGS": "ignore:You're running the worker with superuser privileges",
                },
            ),
        ]
        stopping = False

        def stop(*_args) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        supervise(
            children, stopping=lambda: stopping, say=lambda line: self.stderr.write(f"runsystem: {line}")
        )
