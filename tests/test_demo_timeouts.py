"""Issue 22, the demo: half-open connections are closed, a request must arrive in time, and the
number of open connections is capped. The audit held 300 silent connections for 10 s and more
(about 1,000 exhaust the file descriptors). Bounded: a few dozen sockets on 127.0.0.1, every
wait capped, the server stopped at the end."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import uvicorn

from vqametrics.demo.app import create_app
from vqametrics.demo.server import MAX_CONNECTIONS, REQUEST_TIMEOUT, uvicorn_config

DEADLINE = 0.5  # the request-read deadline of the test server (seconds)


@contextmanager
def _server(max_connections: int = 16) -> Iterator[int]:
    """The demo on 127.0.0.1 (a free port) with a short deadline; yields the port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn_config(
        create_app(),
        "127.0.0.1",
        port,
        request_timeout=DEADLINE,
        idle_timeout=1,
        max_connections=max_connections,
        log_level="critical",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.02)
        assert server.started, "the demo server did not start"
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(3)  # well past the test deadline: a socket still open then was not closed
    return s


def _closed_by_server(s: socket.socket) -> bool:
    """The server closed *s*: reads reach end-of-file (or a reset) before the socket's
    time-out (any bytes before it, such as an error response, are read past)."""
    try:
        while s.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def _get(port: int) -> bytes:
    with _connect(port) as s:
        s.sendall(b"GET /api/profiles HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_defaults_are_bounded() -> None:
    assert 0 < REQUEST_TIMEOUT <= 30 and 0 < MAX_CONNECTIONS <= 256


def test_half_open_connections_are_closed() -> None:
    with _server() as port:
        silent = [_connect(port) for _ in range(10)]  # connect, send nothing
        slow = [_connect(port) for _ in range(5)]  # half a request head, never finished
        for s in slow:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        start = time.monotonic()
        try:
            assert all(_closed_by_server(s) for s in silent + slow)
            elapsed = time.monotonic() - start
        finally:
            for s in silent + slow:
                s.close()
        assert elapsed < 5  # closed near the 0.5 s deadline, not left open
        assert _get(port).startswith(b"HTTP/1.1 200")  # and the demo still serves


def test_a_request_arriving_in_time_is_served_and_the_idle_one_closed() -> None:
    with _server() as port, _connect(port) as s:
        s.sendall(b"GET /api/profiles HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = s.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        # keep-alive: after the response nothing more is sent; the server closes it
        while s.recv(65536):
            pass


def test_connections_beyond_the_cap_are_closed_at_once() -> None:
    with _server(max_connections=4) as port:
        held = [_connect(port) for _ in range(4)]
        time.sleep(0.1)
        extra = [_connect(port) for _ in range(3)]
        try:
            for s in extra:
                s.settimeout(DEADLINE / 2)  # closed before the request deadline could
                assert _closed_by_server(s)
        finally:
            for s in held + extra:
                s.close()
        time.sleep(0.2)
        assert _get(port).startswith(b"HTTP/1.1 200")  # the slots are free again
