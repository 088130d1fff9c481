"""The webhook receiver the service delivers to."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
