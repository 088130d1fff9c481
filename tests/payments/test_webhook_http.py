"""The webhook POST (payments/webhook_http.py): connections kept alive per endpoint, and what happens
when an endpoint closes one or answers oddly."""

import base64
import socket
import threading

import pytest

from payments import webhook_http
from payments.webhook_http import webhook_post
from tests.payments.webhook_receiver import Receiver


@pytest.fixture(autouse=True)
def fresh_connections():
    webhook_http._connections().clear()
    yield
    for kept in webhook_http._connections().values():
        kept.connection.close()
    webhook_http._connections().clear()


class OneAnswerServer:
    """Answers each connection's first request with `answer`, then closes that connection without
    saying so (as an endpoint that drops idle keep-alive connections does). Counts connections."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(5)
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hooks"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                received = b""
                while b"\r\n\r\n" not in received:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                conn.sendall(self.answer)

    def close(self) -> None:
        self._listener.close()


def test_posts_to_one_endpoint_share_a_connection():
    receiver = Receiver()
    try:
        first = webhook_post(url=receiver.url, body=b"{}", signature="c2ln")
        kept = webhook_http._connections()[
            ("http", "127.0.0.1", int(receiver.url.split(":")[2].split("/")[0]))
        ]
        sock = kept.connection.sock
        second = webhook_post(url=receiver.url, body=b"{}", signature="c2ln")
        assert kept.connection.sock is sock
    finally:
        receiver.close()
    assert (first.status_code, second.status_code) == (200, 200)
    assert [request.headers["X-Service-Signature"] for request in receiver.requests] == ["c2ln", "c2ln"]


@pytest.mark.parametrize("seen_closed", [True, False])
def test_a_connection_the_endpoint_closed_is_replaced_without_a_failed_attempt(monkeypatch, seen_closed):
    server = OneAnswerServer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    if not seen_closed:  # closed between the check and the request: sent again once, on a new one
        monkeypatch.setattr(webhook_http, "_reusable", lambda kept: kept.connection.sock is not None)
    try:
        results = [webhook_post(url=server.url, body=b"{}", signature="c2ln") for _ in range(3)]
    finally:
        server.close()
    assert [(result.status_code, result.body, result.error) for result in results] == [(200, b"ok", "")] * 3
    assert server.connections == 3


def test_only_the_start_of_a_long_answer_is_read_and_its_connection_is_not_kept():
    body = b"x" * (webhook_http._READ_LIMIT + 10)
    server = OneAnswerServer(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    try:
        result = webhook_post(url=server.url, body=b"{}", signature="c2ln")
    finally:
        server.close()
    assert result.status_code == 200 and len(result.body) == webhook_http._READ_LIMIT
    assert webhook_http._connections() == {}


def test_credentials_in_the_url_are_sent_as_basic_auth_and_the_path_is_percent_encoded():
    receiver = Receiver()
    try:
        url = receiver.url.replace("http://", "http://hook%20user:p%40ss@") + "/caf\u00e9 1?a=b"
        assert webhook_post(url=url, body=b"{}", signature="c2ln").status_code == 200
    finally:
        receiver.close()
    request = receiver.requests[0]
    assert request.path == "/hooks/caf%C3%A9%201?a=b"
    assert request.headers["Authorization"] == "Basic " + base64.b64encode(b"hook user:p@ss").decode()


def test_an_answer_that_is_not_http_is_a_failed_attempt():
    server = OneAnswerServer(b"SSH-2.0-OpenSSH_9.2\r\n")
    try:
        result = webhook_post(url=server.url, body=b"{}", signature="c2ln")
    finally:
        server.close()
    assert result.status_code is None and result.error.startswith("RemoteProtocolError: BadStatusLine")
