"""The embedded default broker (project/broker.py) with several processes writing at once while a worker
reads: every message arrives whole, the worker stays up, and pruning removes what was taken."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time

import pytest

from project.bench.live_system import ROOT, environment, free_port

pytestmark = pytest.mark.long

PRODUCERS, MESSAGES = 4, 100

PUBLISH = f"""
import django
django.setup()
from payments.tasks import ping_task
for i in range({MESSAGES}):
    ping_task.delay(str(i))
"""


def _counts(broker) -> tuple[int, int]:
    with sqlite3.connect(broker, timeout=20) as db:
        rows = dict(db.execute("SELECT visible, count(*) FROM kombu_message GROUP BY visible").fetchall())
    return rows.get(1, 0), rows.get(0, 0)


def test_concurrent_writers_and_a_worker_lose_nothing_and_pruning_empties_the_table(tmp_path):
    env = {**environment(tmp_path, free_port()), "DJANGO_SETTINGS_MODULE": "project.settings"}
    broker = tmp_path / "celery-broker.sqlite3"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "project", "worker", "--concurrency", "2", "-l", "WARNING"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        producers = [
            subprocess.Popen(
                [sys.executable, "-c", PUBLISH], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
            )
            for _ in range(PRODUCERS)
        ]
        for producer in producers:
            assert producer.wait(timeout=120) == 0, producer.stderr.read()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _counts(broker) != (0, PRODUCERS * MESSAGES):
            assert worker.poll() is None, worker.stderr.read()
            time.sleep(0.5)
        assert _counts(broker) == (0, PRODUCERS * MESSAGES)  # all taken, none half-read
        assert worker.poll() is None

        prune = (
            "import django; django.setup(); from project.broker import broker_prune; print(broker_prune())"
        )
        pruned = subprocess.run(
            [sys.executable, "-c", prune], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert pruned.stdout.split()[-1] == str(PRODUCERS * MESSAGES), pruned.stderr
        assert _counts(broker) == (0, 0)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    assert "Traceback" not in worker.stderr.read()


def test_a_queue_another_process_creates_at_the_same_moment_is_used_not_an_error(tmp_path):
    from kombu import Connection

    from project.broker import SQLITE_TRANSPORT_OPTIONS, Transport

    url = f"sqlite:///{tmp_path / 'broker.sqlite3'}"
    with Connection(url, transport=Transport, transport_options=SQLITE_TRANSPORT_OPTIONS) as connection:
        channel = connection.default_channel
        session = channel.session
        add = session.add

        def add_after_the_other_process(obj):  # the other process's insert lands between check and insert
            del session.add
            with sqlite3.connect(tmp_path / "broker.sqlite3") as db:
                db.execute("INSERT INTO kombu_queue (name) VALUES ('celery')")
            add(obj)

        session.add = add_after_the_other_process
        channel._put("celery", {"body": "first"})
        assert channel._size("celery") == 1
    with sqlite3.connect(tmp_path / "broker.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM kombu_queue WHERE name = 'celery'").fetchone() == (1,)
