"""The multi-node test (README "Running in production"): the production process layout on this machine.

    make multinode        # or: .venv/bin/python -m project.multinode

Starts, as separate processes: PgBouncer (transaction mode) in front of this machine's PostgreSQL,
an HAProxy TCP proxy in front of this machine's Redis (so the test can take "Redis" away from its own
processes only), three web nodes (waitress) behind an HAProxy load balancer that checks
/health/ready, two Celery workers and one Celery beat, after one migration step. Every process of the
service talks to PostgreSQL through PgBouncer (DATABASE_TRANSACTION_POOLING=1) and to Redis for the
broker and the cache; each logs JSON. The service runs in sandbox mode: its test rails and funding
endpoint are what the scenarios drive, and production mode refuses loopback webhook endpoints.

Scenarios, each printing its figures; the run exits 1 when any check fails:
0. quote+execute through PgBouncer on a fourth node that prepares its statements (the setting for
   PostgreSQL directly; its errors are printed, not failed) and on a node of the cluster;
1. money races across nodes: 50 executes of one quote with one Idempotency-Key, and 200 quote+execute
   pairs draining one account, spread over the three nodes;
2. SIGKILL of one web node and one worker under load (through the load balancer, each execute
   retried with its Idempotency-Key on a connection error or 5xx);
3. a webhook storm of 10,000 events through the two workers;
4. readiness red and green again when PgBouncer, then the Redis proxy, is stopped.

Environment: MULTINODE_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/multinode; dropped and
created anew at each run), MULTINODE_REDIS_URL (default redis://127.0.0.1:6379/15;
that database is flushed), MULTINODE_STORM_EVENTS (10000). Ports 8360-8395 on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from project.bench.soak import customer_body
from project.web_server import web_server_command

ROOT = Path(__file__).resolve().parent.parent
API = "/api/2025-10-13"
DATABASE_URL = os.environ.get("MULTINODE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/multinode")
REDIS_URL = os.environ.get("MULTINODE_REDIS_URL", "redis://127.0.0.1:6379/15")
STORM_EVENTS = int(os.environ.get("MULTINODE_STORM_EVENTS", "10000"))
BALANCER, PGBOUNCER, REDIS_PROXY, RECEIVER = 8360, 8361, 8362, 8363
WEB_PORTS = (8371, 8372, 8373)
WORKER_METRICS_PORTS = (8381, 8382)
PREPARING_WEB_PORT = 8374  # a node without DATABASE_TRANSACTION_POOLING, for scenario 0
KILL_LOAD_SECONDS = 30
OUTCOME_WAIT_SECONDS = 600  # the webhook sweeper re-queues a lost delivery after 300 s
TERMINAL = {"COMPLETED", "REJECTED", "FAILED", "REFUNDED", "EXPIRED"}
UMA_SUCCESS = "$success.usd@sandbox.uma.example"


def say(line: str) -> None:
    print(line, flush=True)


# --- the processes -------------------------------------------------------------------------------------


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


# --- the webhook receiver -------------------------------------------------------------------------------


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real endpoint would
    lock = threading.Lock()
    deliveries: Counter[str] = Counter()
    in_flight: Counter[str] = Counter()
    overlapping = 0
    first_seen: dict[str, float] = {}

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            event_id = json.loads(body)["id"]
        except (ValueError, KeyError):
            event_id = "?"
        cls = Receiver
        with cls.lock:
            if cls.in_flight[event_id]:
                cls.overlapping += 1
            cls.in_flight[event_id] += 1
            cls.deliveries[event_id] += 1
            cls.first_seen.setdefault(event_id, time.monotonic())
        time.sleep(0.002)  # a real endpoint takes a moment: overlapping deliveries would show
        with cls.lock:
            cls.in_flight[event_id] -= 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # a worker killed mid-POST resets its connection: expected here, and counted by the checks


# --- API helpers -----------------------------------------------------------------------------------------


class Api:
    def __init__(self, client_id: str, secret: str) -> None:
        self.auth = (client_id, secret)
        self.local = threading.local()

    def client(self, base: str) -> httpx.Client:
        clients = self.local.__dict__.setdefault("clients", {})
        if base not in clients:
            clients[base] = httpx.Client(base_url=base + API, auth=self.auth, timeout=30)
        return clients[base]

    def funded_account(self, base: str, amount: int) -> str:
        api = self.client(base)
        customer = api.post("/customers", json=customer_body(secrets.randbelow(10**12)))
        customer.raise_for_status()
        accounts = api.get("/customers/internal-accounts", params={"customerId": customer.json()["id"]})
        account = next(a for a in accounts.json()["data"] if a["balance"]["currency"]["code"] == "USD")["id"]
        api.post(f"/sandbox/internal-accounts/{account}/fund", json={"amount": amount}).raise_for_status()
        return account

    def quote(self, base: str, account: str, amount: int) -> httpx.Response:
        return self.client(base).post(
            "/quotes",
            json={
                "source": {"sourceType": "ACCOUNT", "accountId": account},
                "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": UMA_SUCCESS},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": amount,
            },
        )

    def execute(self, base: str, quote_id: str, key: str) -> httpx.Response:
        return self.client(base).post(f"/quotes/{quote_id}/execute", headers={"Idempotency-Key": key})


def _node(i: int) -> str:
    return f"http://127.0.0.1:{WEB_PORTS[i % len(WEB_PORTS)]}"


BALANCED = f"http://127.0.0.1:{BALANCER}"


# --- checks in the database (this process, Django set up against the cluster's PgBouncer) -------------


def _django(cluster: Cluster) -> None:
    os.environ.update(cluster.env, CELERY_PUBLISH_IN_BACKGROUND="0")
    import django

    django.setup()


def _ledger_ok() -> tuple[bool, dict]:
    from payments.ledger import ledger_balance_mismatches, ledger_currency_totals

    totals = ledger_currency_totals()
    mismatches = ledger_balance_mismatches()
    return all(v == 0 for v in totals.values()) and not mismatches, {
        "currency_totals": totals,
        "balance_mismatches": len(mismatches),
    }


def _negative_balances() -> int:
    from payments.accounts import account_balance
    from payments.models import InternalAccount

    return sum(1 for account in InternalAccount.objects.all() if account_balance(account) < 0)


@dataclass
class Report:
    figures: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str) -> None:
        say(f"  [{'ok' if ok else 'FAIL'}] {what}")
        if not ok:
            self.failures.append(what)


# --- 0. the execute path's statements through PgBouncer -------------------------------------------------


def prepared_statements(cluster: Cluster, api: Api, report: Report) -> None:
    """The same load on a node that prepares its hot statements (the default on PostgreSQL) and on one
    with DATABASE_TRANSACTION_POOLING=1: what the setting is for."""
    say("0. quote+execute through PgBouncer (transaction mode), with and without prepared statements")
    env = {**cluster.env, "DATABASE_TRANSACTION_POOLING": "0"}
    preparing = Proc(
        "web-preparing",
        web_server_command(host="127.0.0.1", port=PREPARING_WEB_PORT, threads=8),
        env,
        cluster.work / "web-preparing.log",
    )
    preparing.start()
    try:
        _wait_ready(f"http://127.0.0.1:{PREPARING_WEB_PORT}")
        for name, base in (
            ("prepared (pooling 0)", f"http://127.0.0.1:{PREPARING_WEB_PORT}"),
            ("unnamed (pooling 1)", _node(1)),
        ):
            account = api.funded_account(_node(1), 10**9)

            def pair(i: int, base=base, account=account) -> str:
                try:
                    q = api.quote(base, account, 100)
                    if q.status_code >= 300:
                        return str(q.status_code)
                    return str(api.execute(base, q.json()["id"], str(uuid.uuid4())).status_code)
                except httpx.HTTPError as exc:
                    return type(exc).__name__

            with ThreadPoolExecutor(8) as pool:
                answers = Counter(pool.map(pair, range(200)))
            errors = sum(c for k, c in answers.items() if not k.startswith(("2", "4")))
            report.figures[f"pgbouncer_{name.split()[0]}_statements"] = dict(answers)
            if name.startswith("unnamed"):
                report.check(errors == 0, f"200 pairs with {name}: {dict(answers)}")
            else:
                log = (cluster.work / "web-preparing.log").read_text(errors="replace")
                missing = sum("prepared statement" in line for line in log.splitlines())  # one per error
                report.figures["pgbouncer_prepared_statement_errors_logged"] = missing
                say(
                    f"  [info] 200 pairs with {name}: {dict(answers)}; {missing} prepared-statement errors logged"
                )
    finally:
        preparing.stop()


# --- 1. money races --------------------------------------------------------------------------------------


def money_races(api: Api, report: Report) -> None:
    say("1. money races across the three nodes")
    account = api.funded_account(_node(0), 1_000_000)
    quote = api.quote(_node(1), account, 10_000).json()
    key = str(uuid.uuid4())
    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(lambda i: api.execute(_node(i), quote["id"], key), range(50)))
    statuses = Counter(a.status_code for a in answers)
    txns = {a.json().get("transactionId") for a in answers if a.status_code < 300}
    debits = _debits_of(quote["transactionId"])
    report.figures["same_key_executes"] = {
        "answers": dict(statuses),
        "transactions": len(txns),
        "debits": debits,
    }
    report.check(
        len(txns) == 1 and debits == 1,
        f"50 same-key executes: {dict(statuses)} -> {len(txns)} transaction, {debits} debit",
    )

    # 200 quote+execute pairs draining one account that holds 100 of them.
    amount, holds = 1_000, 100
    account = api.funded_account(_node(2), amount * holds)

    def pair(i: int) -> tuple[int, str | None]:
        q = api.quote(_node(i), account, amount)
        if q.status_code >= 300:
            return q.status_code, None
        e = api.execute(_node(i + 1), q.json()["id"], str(uuid.uuid4()))
        return e.status_code, q.json()["transactionId"] if e.status_code < 300 else None

    started = time.monotonic()
    with ThreadPoolExecutor(40) as pool:
        results = list(pool.map(pair, range(200)))
    elapsed = time.monotonic() - started
    executed = [t for s, t in results if t]
    balance = _balance(account)
    ledger_ok, ledger = _ledger_ok()
    negatives = _negative_balances()
    once = all(_debits_of(t) == 1 for t in executed)
    report.figures["draining_pairs"] = {
        "answers": dict(Counter(s for s, _ in results)),
        "executed": len(executed),
        "balance_left": balance,
        "seconds": round(elapsed, 1),
        "negative_balances": negatives,
        **ledger,
    }
    report.check(
        len(executed) <= holds and balance == (holds - len(executed)) * amount and negatives == 0 and once,
        f"200 draining pairs: {len(executed)} executed of {holds} affordable, balance left {balance}, "
        f"no negative balance, one debit each ({elapsed:.1f} s)",
    )
    report.check(ledger_ok, f"ledger invariants hold: {ledger}")


def _balance(public_account_id: str) -> int:
    from payments import ids
    from payments.accounts import account_balance
    from payments.models import InternalAccount

    kind = public_account_id.split(":", 1)[0]
    return account_balance(InternalAccount.objects.get(pk=ids.parse(kind, public_account_id)))


def _debits_of(public_transaction_id: str) -> int:
    from payments import ids
    from payments.models import LedgerJournal

    pk = ids.parse("Transaction", public_transaction_id)
    return LedgerJournal.objects.filter(transaction_id=pk, kind="DEBIT").count()


# --- 2. SIGKILL under load ------------------------------------------------------------------------------


def kill_under_load(cluster: Cluster, api: Api, report: Report) -> None:
    say(
        f"2. SIGKILL web1 and worker1 under load ({KILL_LOAD_SECONDS} s; half the clients through HAProxy, "
        "half straight to a node)"
    )
    accounts = [api.funded_account(BALANCED, 10**9) for _ in range(8)]
    stop_at = time.monotonic() + KILL_LOAD_SECONDS
    outcomes: list[dict] = []
    lock = threading.Lock()
    statuses: Counter[str] = Counter()

    def client(n: int, account: str) -> None:
        # Even clients go through HAProxy; odd ones to a node of their own (web1, web2, web3, ...),
        # and after a connection error or 5xx to the next node, as a client with a node list would.
        node = 0  # the direct clients start on web1, the node that is killed
        target = lambda: BALANCED if n % 2 == 0 else _node(node)  # noqa: E731
        while time.monotonic() < stop_at:
            try:
                q = api.quote(target(), account, 500)
            except httpx.HTTPError:
                statuses["quote error"] += 1
                node += 1
                time.sleep(0.5)
                continue
            statuses[f"quote {q.status_code}"] += 1
            if q.status_code >= 300:
                continue
            key, answers = str(uuid.uuid4()), []
            for _ in range(6):
                try:
                    e = api.execute(target(), q.json()["id"], key)
                except httpx.HTTPError as exc:
                    answers.append(type(exc).__name__)
                    node += 1
                    time.sleep(0.5)
                    continue
                answers.append(e.status_code)
                if e.status_code < 500:
                    if e.status_code < 300:
                        answers.append(e.json()["transactionId"])
                    break
                node += 1
                time.sleep(0.5)
            with lock:
                outcomes.append(
                    {
                        "quote": q.json()["id"],
                        "key": key,
                        "answers": answers,
                        "txn": q.json()["transactionId"],
                    }
                )
                statuses[f"execute {answers[-1] if isinstance(answers[-1], int) else answers[-2]}"] += 1

    threads = [threading.Thread(target=client, args=(n, a)) for n, a in enumerate(accounts)]
    for t in threads:
        t.start()
    time.sleep(KILL_LOAD_SECONDS / 3)
    cluster.webs[0].kill()
    cluster.workers[0].kill()
    killed_at = time.monotonic()
    say("  killed web1 and worker1 (SIGKILL to each process group)")
    for t in threads:
        t.join()
    retried = [o for o in outcomes if len(o["answers"]) > 2 or not isinstance(o["answers"][0], int)]
    succeeded = [
        o
        for o in outcomes
        if isinstance(o["answers"][-1], str) and o["answers"][-1].startswith("Transaction:")
    ]
    committed = all(_debits_of(o["answers"][-1]) == 1 for o in succeeded)
    same = all(o["answers"][-1] == o["txn"] for o in succeeded)
    # Each key again, on a surviving node: the same transaction comes back, and nothing new is debited.
    with ThreadPoolExecutor(8) as pool:
        replays = list(
            pool.map(
                lambda io: api.execute(_node(1 + io[0] % 2), io[1]["quote"], io[1]["key"]),
                enumerate(succeeded),
            )
        )
    replay_same = all(
        r.status_code < 300 and r.json()["transactionId"] == o["txn"]
        for r, o in zip(replays, succeeded, strict=True)
    ) and all(_debits_of(o["txn"]) == 1 for o in succeeded)
    server_errors = sum(
        c for k, c in statuses.items() if k.split()[-1].isdigit() and int(k.split()[-1]) >= 500
    )
    report.check(
        committed and same,
        f"{len(succeeded)} executes answered 2xx, each committed once with its quote's transaction",
    )
    report.check(
        replay_same,
        f"{len(retried)} executes retried by their client after the kill; all {len(replays)} keys replayed on "
        "web2/web3 return the same transaction, still one debit each",
    )
    # Every delayed outcome and webhook completes: the surviving worker, the relay and the sweeper.
    from payments import ids

    txn_ids = [ids.parse("Transaction", o["txn"]) for o in succeeded]
    done_after = _wait_all_done(txn_ids, killed_at)
    report.figures["kill_under_load"] = {
        "requests": dict(statuses),
        "executes_2xx": len(succeeded),
        "retried_keys": len(retried),
        "keys_replayed_same_transaction": sum(
            r.status_code < 300 and r.json()["transactionId"] == o["txn"]
            for r, o in zip(replays, succeeded, strict=True)
        ),
        "final_5xx_answers": server_errors,
        "all_outcomes_and_webhooks_done_seconds_after_kill": done_after,
    }
    report.check(
        done_after is not None, f"every outcome and webhook completed, {done_after} s after the kill"
    )
    cluster.webs[0].start()  # a real deployment restarts them; the later scenarios want all nodes
    cluster.workers[0].start()
    _wait_ready(_node(0))


def _wait_all_done(txn_ids: list[uuid.UUID], since: float) -> float | None:
    from django.db import close_old_connections

    from payments.models import Transaction, WebhookEvent

    deadline = since + OUTCOME_WAIT_SECONDS
    last = ""
    while time.monotonic() < deadline:
        close_old_connections()
        open_txns = Transaction.objects.filter(pk__in=txn_ids).exclude(status__in=TERMINAL).count()
        pending = WebhookEvent.objects.filter(status=WebhookEvent.Status.PENDING).count()
        line = f"  waiting: {open_txns} transactions not final, {pending} webhook events pending"
        if line != last:
            say(line)
            last = line
        if open_txns == 0 and pending == 0:
            return round(time.monotonic() - since, 1)
        time.sleep(2)
    return None


# --- 3. webhook storm -----------------------------------------------------------------------------------


def webhook_storm(api: Api, report: Report) -> None:
    say(f"3. webhook storm: {STORM_EVENTS} events through {len(WORKER_METRICS_PORTS)} workers")
    from django.db import transaction

    from payments.models import ApiToken, WebhookEvent
    from payments.webhook_types import WebhookType
    from payments.webhooks import webhook_emit

    platform = ApiToken.objects.select_related("platform").get(client_id=api.auth[0]).platform
    before = set(WebhookEvent.objects.filter(platform=platform).values_list("pk", flat=True))
    Receiver.deliveries.clear()
    Receiver.overlapping = 0
    peak = {"backlog": 0.0}
    sampling = threading.Event()

    def sample() -> None:  # what an operator's scraper sees while the storm drains
        while not sampling.is_set():
            peak["backlog"] = max(peak["backlog"], _scrape(_node(1), "webhook_backlog_events"))
            sampling.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    committed = {}
    with transaction.atomic():  # one commit: every delivery task is queued at once, a real backlog
        transaction.on_commit(lambda: committed.setdefault("at", time.monotonic()))  # runs first
        for i in range(STORM_EVENTS):
            webhook_emit(
                platform=platform, type=WebhookType.CUSTOMER_KYC_APPROVED, data={"id": f"Customer:{i}"}
            )
    queued = time.monotonic() - started
    say(f"  {STORM_EVENTS} events recorded in one transaction and queued on its commit in {queued:.1f} s")
    ids = set(WebhookEvent.objects.filter(platform=platform).values_list("pk", flat=True)) - before
    wanted = {str(pk) for pk in ids}
    deadline = time.monotonic() + OUTCOME_WAIT_SECONDS
    while time.monotonic() < deadline:
        with Receiver.lock:
            got = sum(1 for e in wanted if Receiver.deliveries.get(_public(e)))
        if got == len(wanted):
            break
        time.sleep(1)
    elapsed = time.monotonic() - started
    sampling.set()
    sampler.join()
    peak_backlog = peak["backlog"]
    with Receiver.lock:
        counts = [Receiver.deliveries.get(_public(e), 0) for e in wanted]
        overlapping = Receiver.overlapping
    delivered_rows = WebhookEvent.objects.filter(pk__in=ids, status=WebhookEvent.Status.DELIVERED).count()
    lost = sum(1 for c in counts if c == 0)
    twice = sum(1 for c in counts if c > 1)
    report.figures["webhook_storm"] = {
        "events": len(wanted),
        "seconds": round(elapsed, 1),
        "events_per_second": round(len(wanted) / elapsed, 1),
        "recorded_and_queued_seconds": round(queued, 1),
        "delivered_seconds_after_commit": round(started + elapsed - committed["at"], 1),
        "drained_seconds_after_the_last_was_queued": round(elapsed - queued, 1),
        "lost": lost,
        "delivered_more_than_once": twice,
        "delivered_twice_at_the_same_time": overlapping,
        "rows_delivered": delivered_rows,
        "peak_webhook_backlog_metric": peak_backlog,
        "delivery_tasks_by_worker_metrics": [
            _scrape_sum(
                f"http://127.0.0.1:{port}", "celery_tasks_total", "payments.tasks.webhook_deliver_task"
            )
            for port in WORKER_METRICS_PORTS
        ],
    }
    report.check(
        lost == 0 and overlapping == 0 and delivered_rows == len(wanted),
        f"{len(wanted)} events in {elapsed:.1f} s ({len(wanted) / elapsed:.0f}/s): {lost} lost, "
        f"{overlapping} delivered twice at once, {twice} more than once; peak backlog metric {peak_backlog:.0f}",
    )


def _public(pk: str) -> str:
    from payments import ids

    return ids.render("Webhook", uuid.UUID(pk))


def _scrape(base: str, name: str) -> float:
    try:
        text = httpx.get(base + "/metrics", timeout=10).text
    except httpx.HTTPError:
        return 0.0
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _scrape_sum(base: str, name: str, contains: str) -> float:
    try:
        text = httpx.get(base + "/metrics", timeout=10).text
    except httpx.HTTPError:
        return 0.0
    return sum(
        float(line.split()[-1]) for line in text.splitlines() if line.startswith(name) and contains in line
    )


# --- 4. readiness ---------------------------------------------------------------------------------------


def readiness(cluster: Cluster, report: Report) -> None:
    say("4. readiness red and green (web2 asked directly)")
    node = _node(1)
    for proc, broken in ((cluster.pgbouncer, {"database"}), (cluster.redis_proxy, {"broker", "cache"})):
        proc.stop()
        red_after, body = _poll(node, 503)
        live = httpx.get(node + "/health/live", timeout=10).status_code
        proc.start()
        green_after, _ = _poll(node, 200)
        unavailable = {k for k, v in (body or {}).get("checks", {}).items() if v != "ok"}
        report.figures[f"readiness_without_{proc.name.replace(' ', '_')}"] = {
            "red_after_seconds": red_after,
            "unavailable": sorted(unavailable),
            "liveness_while_red": live,
            "green_again_after_seconds": green_after,
        }
        report.check(
            red_after is not None and unavailable == broken and live == 200 and green_after is not None,
            f"{proc.name} stopped: ready 503 after {red_after} s naming {sorted(unavailable)}, live {live}; "
            f"started again: ready 200 after {green_after} s",
        )


def _poll(base: str, status: int, timeout: float = 60) -> tuple[float | None, dict | None]:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            r = httpx.get(base + "/health/ready", timeout=15)
            if r.status_code == status:
                return round(time.monotonic() - started, 1), r.json()
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return None, None


# --- the run --------------------------------------------------------------------------------------------


def main() -> int:
    _require_tools()
    _fresh_database()
    work = Path(tempfile.mkdtemp(prefix="multinode-"))
    say(f"multinode: logs and files in {work}")
    receiver = QuietServer(("127.0.0.1", RECEIVER), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    cluster = Cluster(work)
    report = Report()
    try:
        cluster.start()
        say(
            f"  up: PgBouncer, Redis proxy, {len(cluster.webs)} web nodes, {len(cluster.workers)} workers, 1 beat, HAProxy"
        )
        creds = json.loads(cluster.manage("create_platform", "--name", "Multi-node"))
        api = Api(creds["clientId"], creds["clientSecret"])
        hook = f"http://127.0.0.1:{RECEIVER}/hooks"
        api.client(BALANCED).patch("/config", json={"webhookEndpoint": hook}).raise_for_status()
        _django(cluster)
        prepared_statements(cluster, api, report)
        money_races(api, report)
        kill_under_load(cluster, api, report)
        webhook_storm(api, report)
        readiness(cluster, report)
    finally:
        cluster.stop()
        receiver.shutdown()
    say(json.dumps(report.figures, indent=2, default=str))
    say(f"multinode: {len(report.failures)} failed" + "".join(f"\n  - {f}" for f in report.failures))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
