"""Test helpers for webhooks: a real HTTP receiver on 127.0.0.1 with scripted answers, and a stand-in
for the broker that keeps queued delivery tasks until the test runs them."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kombu.exceptions import OperationalError

from payments.tasks import webhook_deliver_task


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b"ok"
    delay: float = 0.0  # seconds to wait before answering (a hanging endpoint)
    content_type: str = "text/plain"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """`replies` are used in order, then `default`. Requests are recorded as they arrive."""

    replies: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    requests: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    receiver.requests.append(Received(self.path, dict(self.headers.items()), body))
                    reply = receiver.replies.pop(0) if receiver.replies else receiver.default
                if reply.delay:
                    receiver._release.wait(reply.delay)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass  # the client gave up waiting

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks"

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def event_ids(self) -> list[str]:
        return [json.loads(r.body)["id"] for r in self.requests]


class FakeBroker:
    """Replaces `webhook_deliver_task.apply_async` (which `.delay` calls): tasks wait here until `run`.
    `down = True` makes publishing fail the way kombu does when the broker is unreachable."""

    def __init__(self, capture_on_commit=None) -> None:
        self.queued: list[tuple[str, float | None]] = []
        self.down = False
        # pytest-django's django_capture_on_commit_callbacks, for tests inside a transaction: retries are
        # queued on commit of the attempt's transaction.
        self._capture = capture_on_commit

    def apply_async(self, args=None, kwargs=None, countdown=None, **options):
        if self.down:
            raise OperationalError("Error 111 connecting to broker. Connection refused.")
        self.queued.append((args[0], countdown))

    def run(self) -> int:
        """Run the tasks queued so far, as a worker would. A countdown is not waited for: the task is a
        no-op until the event is due, and tests move the clock instead. Tasks queued meanwhile wait."""
        batch, self.queued = self.queued, []
        for event_id, _countdown in batch:
            if self._capture is None:
                webhook_deliver_task(event_id)
            else:
                with self._capture(execute=True):
                    webhook_deliver_task(event_id)
        return len(batch)

    def install(self, monkeypatch) -> FakeBroker:
        monkeypatch.setattr(webhook_deliver_task, "apply_async", self.apply_async)
        return self
