"""The processes: PgBouncer, the Redis proxy, the web nodes behind HAProxy, the workers and beat."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from project.multinode.config import (
    BALANCER,
    DATABASE_URL,
    PGBOUNCER,
    REDIS_PROXY,
    REDIS_URL,
    ROOT,
    WEB_PORTS,
    WORKER_METRICS_PORTS,
    say,
)
from project.web_server import web_server_command


@dataclass
class Proc:
    name: str
    argv: list[str]
    env: dict[str, str] | None
    log: Path
    user: str | None = None
    process: subprocess.Popen | None = None

    def start(self) -> None:
        out = self.log.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 (fixed argument lists)
            self.argv,
            cwd=ROOT,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=self.user,
        )
        out.close()

    def signal(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        if self.process is None:
            return
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.signal(signal.SIGKILL)  # what is left of its group (a worker's pool)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=10)


def _require_tools() -> None:
    missing = [tool for tool in ("haproxy", "pgbouncer") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"multinode: {' and '.join(missing)} missing; `make cluster-tools` installs Debian's")


def _fresh_database() -> None:
    """The test's database, made anew: its rows (and the secrets sealed in them) are this run's."""
    import psycopg

    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def _pgbouncer_config(work: Path) -> Path:
    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    user = parts.username or "postgres"
    config = work / "pgbouncer.ini"
    (work / "userlist.txt").write_text(f'"{user}" ""\n')
    config.write_text(
        "\n".join(
            [
                "[databases]",
                f"{name} = host={parts.hostname or '127.0.0.1'} port={parts.port or 5432} dbname={name}",
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                f"listen_port = {PGBOUNCER}",
                "unix_socket_dir =",
                "auth_type = trust",
                f"auth_file = {work / 'userlist.txt'}",
                "pool_mode = transaction",
                "max_client_conn = 1000",
                "default_pool_size = 40",
                "ignore_startup_parameters = extra_float_digits,options",
                "log_connections = 0",
                "log_disconnections = 0",
                "",
            ]
        )
    )
    return config


def _haproxy_config(work: Path) -> Path:
    servers = "\n".join(
        f"    server web{i} 127.0.0.1:{port} check inter 1s fall 2 rise 2"
        for i, port in enumerate(WEB_PORTS, 1)
    )
    config = work / "haproxy.cfg"
    config.write_text(
        f"""global
    maxconn 4000
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch
    retry-on conn-failure empty-response
frontend api
    bind 127.0.0.1:{BALANCER}
    unique-id-format %[uuid()]
    http-request set-header X-Request-Id %[unique-id] unless {{ req.hdr(X-Request-Id) -m found }}
    http-request deny if {{ path /metrics }}
    default_backend web
backend web
    balance roundrobin
    option httpchk
    http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host 127.0.0.1
    http-check expect status 200
{servers}
"""
    )
    return config


def _redis_proxy_config(work: Path) -> Path:
    parts = urlsplit(REDIS_URL)
    config = work / "redis-proxy.cfg"
    config.write_text(
        f"""defaults
    mode tcp
    timeout connect 2s
    timeout client 1h
    timeout server 1h
listen redis
    bind 127.0.0.1:{REDIS_PROXY}
    server redis {parts.hostname or "127.0.0.1"}:{parts.port or 6379}
"""
    )
    return config


class Cluster:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.media = work / "media"  # the one document directory every node mounts
        self.media.mkdir()
        os.chmod(work, 0o755)  # noqa: S103 (pgbouncer runs as postgres and reads its files here)
        parts = urlsplit(DATABASE_URL)
        db_name = parts.path.lstrip("/")
        redis_db = urlsplit(REDIS_URL).path.lstrip("/") or "0"
        self.database_url = f"postgres://{parts.username or 'postgres'}@127.0.0.1:{PGBOUNCER}/{db_name}"
        self.redis_url = f"redis://127.0.0.1:{REDIS_PROXY}/{redis_db}"
        keys = {
            "SECRET_KEY": secrets.token_urlsafe(40),
            "SERVICE_SECRETS_KEY": _b64(secrets.token_bytes(32)),
            "PORTAL_SECRETS_KEY": _b64(secrets.token_bytes(32)),
        }
        base = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DATABASE_", "CACHE_"))}
        self.env = {
            **base,
            **keys,
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "SERVICE_ENVIRONMENT": "sandbox",
            "DATA_DIR": str(work / "data"),
            "MEDIA_ROOT": str(self.media),
            "DATABASE_URL": self.database_url,
            "DATABASE_TRANSACTION_POOLING": "1",
            "DATABASE_LISTEN_URL": DATABASE_URL,  # past PgBouncer: its session cache's listener
            "CELERY_BROKER_URL": self.redis_url,
            "CACHE_URL": self.redis_url,
            "LOG_FORMAT": "json",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            "PYTHONWARNINGS": "ignore:You're running the worker with superuser privileges",
        }
        bin_dir = os.path.dirname(sys.executable)
        celery = os.path.join(bin_dir, "celery")
        log = lambda name: work / f"{name}.log"  # noqa: E731
        self.pgbouncer = Proc(
            "pgbouncer", ["pgbouncer", str(_pgbouncer_config(work))], None, log("pgbouncer"), user=_pg_user()
        )
        self.redis_proxy = Proc(
            "redis proxy", ["haproxy", "-db", "-f", str(_redis_proxy_config(work))], None, log("redis-proxy")
        )
        self.balancer = Proc(
            "haproxy", ["haproxy", "-db", "-f", str(_haproxy_config(work))], None, log("haproxy")
        )
        self.webs = [
            Proc(
                f"web{i}",
                web_server_command(host="127.0.0.1", port=port, threads=8),
                self.env,
                log(f"web{i}"),
            )
            for i, port in enumerate(WEB_PORTS, 1)
        ]
        self.workers = []
        for i, metrics_port in enumerate(WORKER_METRICS_PORTS, 1):
            metrics_dir = work / f"worker{i}-metrics"  # its pool processes' counters
            metrics_dir.mkdir()
            self.workers.append(
                Proc(
                    f"worker{i}",
                    [
                        celery,
                        "-A",
                        "project",
                        "worker",
                        "-n",
                        f"worker{i}@%h",
                        "--concurrency",
                        "2",
                        "-l",
                        "WARNING",
                    ],
                    {
                        **self.env,
                        "WORKER_METRICS_PORT": str(metrics_port),
                        "WORKER_METRICS_HOST": "127.0.0.1",
                        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
                    },
                    log(f"worker{i}"),
                )
            )
        self.beat = Proc(
            "beat",
            [celery, "-A", "project", "beat", "-l", "WARNING", "--schedule", str(work / "beat-schedule")],
            self.env,
            log("beat"),
        )

    def all(self) -> list[Proc]:
        return [self.pgbouncer, self.redis_proxy, *self.webs, *self.workers, self.beat, self.balancer]

    def manage(self, *args: str) -> str:
        result = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-3000:]}")
        return result.stdout

    def start(self) -> None:
        self.pgbouncer.start()
        self.redis_proxy.start()
        _wait_port(PGBOUNCER)
        _wait_port(REDIS_PROXY)
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()  # this test's Redis database
        started = time.monotonic()
        self.manage("migrate", "--noinput")  # the migration step, once, before any node serves
        say(f"  migrate through PgBouncer: {time.monotonic() - started:.1f} s")
        for proc in [*self.webs, *self.workers, self.beat]:
            proc.start()
        for port in WEB_PORTS:
            _wait_ready(f"http://127.0.0.1:{port}")
        self.balancer.start()
        _wait_ready(f"http://127.0.0.1:{BALANCER}")

    def stop(self) -> None:
        for proc in reversed(self.all()):
            try:
                proc.stop()
            except Exception as exc:  # keep stopping the others
                say(f"  could not stop {proc.name}: {exc!r}")


def _pg_user() -> str | None:
    return "postgres" if os.geteuid() == 0 else None  # pgbouncer refuses to run as root


def _b64(raw: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(raw).decode()


def _wait_port(port: int, timeout: float = 30) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def _wait_ready(base: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/health/ready", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{base} did not become ready")
