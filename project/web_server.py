"""The web server that `make run`, `make bench` and the live-server tests start: waitress.

Waitress reads each request (headers and body) on its event loop, and only a complete request goes to
one of its threads, so a slow or idle client holds a connection, never a thread that runs Django. It
closes a connection that sent nothing for CHANNEL_TIMEOUT seconds (checked every 30 s), refuses headers over 256 KB and
bodies over MAX_BODY_BYTES (413), and spills bodies over 512 KB to a temporary file rather than memory.
"""

from __future__ import annotations

import sys

CONNECTION_LIMIT = 1000  # open connections; more wait in the listen backlog
CHANNEL_TIMEOUT = 30  # seconds a connection may send nothing, mid-request or idle between requests
MAX_BODY_BYTES = 32 * 1024 * 1024  # documents are at most 10 MB; the service answers that limit itself


def web_server_command(*, host: str, port: int | str, threads: int | str) -> list[str]:
    listen = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [
        sys.executable,
        "-m",
        "waitress",
        f"--listen={listen}",
        f"--threads={threads}",
        f"--connection-limit={CONNECTION_LIMIT}",
        f"--channel-timeout={CHANNEL_TIMEOUT}",
        f"--max-request-body-size={MAX_BODY_BYTES}",
        "--asyncore-use-poll",  # select() stops at 1024 descriptors
        "project.wsgi:application",
    ]


def main() -> None:
    """`python -m project.web_server`: a web node of a deployment (README "Running in production"),
    listening on HOST:PORT with WEB_THREADS threads."""
    import os

    argv = web_server_command(
        host=os.environ.get("HOST", "127.0.0.1"),
        port=os.environ.get("PORT", "8000"),
        threads=os.environ.get("WEB_THREADS", "8"),
    )
    os.execv(argv[0], argv)  # noqa: S606 (our own interpreter, fixed arguments)


if __name__ == "__main__":
    main()
