"""Slow clients against `make run` (runsystem with its defaults): while SLOW_IDLE connections send
nothing, SLOW_PARTIAL send a request line and then one header every 5 s, and SLOW_TRICKLING send a body
a byte every 5 s, a normal `GET /config` on a new connection every second must answer within 2 s, for
SLOW_SECONDS (60). Run by hand (`.venv/bin/python -m project.bench.slow_clients`); prints the
latencies and exits 1 if any answer was late or failed. tests/project/test_runsystem.py has a short
version."""

from __future__ import annotations

import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from project.bench.live_system import API, running_system

SECONDS = int(os.environ.get("SLOW_SECONDS", "60"))
IDLE = int(os.environ.get("SLOW_IDLE", "200"))
PARTIAL = int(os.environ.get("SLOW_PARTIAL", "200"))
TRICKLING = int(os.environ.get("SLOW_TRICKLING", "20"))
LIMIT_SECONDS = 2.0


def _closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def main() -> int:
    with running_system(Path(tempfile.mkdtemp(prefix="slow-clients-"))) as system:
        address = ("127.0.0.1", system.port)
        idle = [socket.create_connection(address) for _ in range(IDLE)]
        partial = [socket.create_connection(address) for _ in range(PARTIAL)]
        trickling = [socket.create_connection(address) for _ in range(TRICKLING)]
        for sock in partial:
            sock.sendall(f"GET {API}/config HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        for sock in trickling:
            sock.sendall(
                f"POST {API}/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 100000\r\n\r\n{".encode()
            )
        latencies, failures, closed_by_server, reopened = [], [], 0, 0
        started = time.monotonic()
        second = 0
        while time.monotonic() - started < SECONDS:
            tick = time.monotonic()
            try:
                with system.client(timeout=10) as api:
                    status = api.get("/config").status_code
                if status != 200:
                    failures.append(f"{second} s: status {status}")
            except httpx.HTTPError as exc:
                failures.append(f"{second} s: {type(exc).__name__}")
            latencies.append(time.monotonic() - tick)
            if second % 5 == 0:
                for i, sock in enumerate(idle):  # the server closes a silent one after 30 s: replace it
                    if _closed(sock):
                        sock.close()
                        idle[i] = socket.create_connection(address)
                        reopened += 1
                for sock in partial + trickling:
                    try:
                        sock.sendall(b"X-Slow: 1\r\n" if sock in partial else b" ")
                    except OSError:
                        closed_by_server += 1
            second += 1
            time.sleep(max(0.0, 1 - (time.monotonic() - tick)))
        for sock in idle + partial + trickling:
            sock.close()
    late = [round(value, 3) for value in latencies if value >= LIMIT_SECONDS]
    ordered = sorted(latencies)
    report = {
        "seconds": SECONDS,
        "held": {"idle": IDLE, "partial_headers": PARTIAL, "trickling_bodies": TRICKLING},
        "requests": len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1),
        "late": late,
        "failures": failures,
        "slow_sends_refused": closed_by_server,  # connections the server had closed (channel timeout)
        "idle_reopened": reopened,  # idle connections the server closed after 30 s, opened again
    }
    print(json.dumps(report, indent=2))
    return 0 if not late and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
