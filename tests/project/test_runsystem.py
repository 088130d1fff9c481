"""`make run` (runsystem) as a person meets it: the embedded defaults (SQLite, the SQLite broker, the
waitress web server) under parallel writers and slow clients, children that die, and Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from project.bench.live_system import API, port_is_free, running_system
from tests.payments.kyc_support import individual

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    with running_system(tmp_path_factory.mktemp("runsystem")) as running:
        yield running


def _pid_running(system, program: str) -> int:
    for pid in system.children():
        if program in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return pid
    raise AssertionError(f"no {program} child of runsystem")


def _usd_account(api: httpx.Client, customer_id: str) -> dict:
    accounts = api.get("/customers/internal-accounts", params={"customerId": customer_id}).json()["data"]
    return next(a for a in accounts if a["balance"]["currency"]["code"] == "USD")


def test_a_clean_start_prints_what_a_person_needs_and_no_more(system):
    with system.client() as api:
        assert api.get("/openapi.yaml").status_code == 200  # the docs page's first request
    printed = system.output()
    assert "Client secret" in printed and "Serving on" in printed
    for noise in ("Warning", "celery@", "Traceback", "superuser privileges"):
        assert noise not in printed, noise


def test_sixteen_parallel_writers_on_sqlite_get_no_server_error_and_every_credit_counts(system):
    with system.client() as api:
        customer = api.post("/customers", json=individual("Fund Target")).json()["id"]
        account = _usd_account(api, customer)["id"]
    statuses: Counter[int] = Counter()
    funded = Counter()
    lock = threading.Lock()
    stop_at = time.monotonic() + 6

    def writer(n: int) -> None:
        with system.client() as api:
            i = 0
            while time.monotonic() < stop_at:
                if i % 2:
                    response = api.post(f"/sandbox/internal-accounts/{account}/fund", json={"amount": 1})
                else:
                    response = api.post("/customers", json=individual(f"Writer {n} {i} Smith"))
                with lock:
                    statuses[response.status_code] += 1
                    funded["cents"] += int(i % 2 == 1 and response.is_success)
                i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(statuses.values()) >= 32, statuses
    assert set(statuses) <= {200, 201}, statuses  # no 5xx ("database is locked"), no refusals
    with system.client() as api:
        balance = _usd_account(api, customer)["balance"]["amount"]
    assert balance == funded["cents"]


def test_idle_and_half_sent_requests_do_not_hold_up_anyone(system):
    address = ("127.0.0.1", system.port)
    idle = [socket.create_connection(address) for _ in range(200)]  # connected, never a byte
    partial = [socket.create_connection(address) for _ in range(200)]  # a header now and then
    trickling = [socket.create_connection(address) for _ in range(20)]  # a body that never ends
    try:
        for sock in partial:
            sock.sendall(f"GET {API}/config HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        for sock in trickling:
            sock.sendall(
                f"POST {API}/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 1000\r\n\r\n{".encode()
            )
        timings = []
        for round_ in range(12):
            started = time.monotonic()
            with system.client() as api:  # a new connection each time
                assert api.get("/config").status_code == 200
            timings.append(time.monotonic() - started)
            if round_ % 4 == 0:
                for sock in partial:
                    sock.sendall(b"X-Slow: 1\r\n")
                for sock in trickling:
                    sock.sendall(b" ")
            time.sleep(0.5)
    finally:
        for sock in idle + partial + trickling:
            sock.close()
    assert max(timings) < 2, timings


def test_a_child_that_dies_is_restarted_and_the_reason_logged(system):
    web = _pid_running(system, "waitress")
    os.kill(web, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{system.base_url}{API}/config", timeout=2).status_code == 401:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    assert _pid_running(system, "waitress") != web
    assert "runsystem: web server was killed by SIGKILL" in system.output()

    worker = _pid_running(system, "celery")
    os.kill(worker, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "Celery worker was killed by SIGKILL" not in system.output():
        time.sleep(0.2)
    time.sleep(1.5)  # the first restart waits 1 s
    assert _pid_running(system, "celery") != worker
    assert system.process.poll() is None


def test_ctrl_c_frees_the_port_even_when_the_web_server_ignores_sigterm(tmp_path):
    with running_system(tmp_path) as system:
        os.kill(_pid_running(system, "waitress"), signal.SIGSTOP)  # a stopped process acts on no SIGTERM
        started = time.monotonic()
        system.process.send_signal(signal.SIGINT)
        system.process.wait(timeout=40)
        took = time.monotonic() - started
        assert port_is_free(system.port)
    assert took < 25  # the grace period (10 s), then SIGKILL
