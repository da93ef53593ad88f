"""A local OpenAI-compatible chat-completions stub on 127.0.0.1 (no network beyond loopback).

Imported by the tests as ``judge.stub`` (the tests directory is on ``sys.path``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Stub:
    """What the stub answers; tests change the fields."""

    url: str = ""
    reply: Callable[[str], str] = lambda prompt: "Yes"
    fail_first: int = 0  # answer HTTP 500 to the first N requests
    delay: float = 0.0  # seconds to wait before answering
    garbage: bool = False  # answer 200 with a body that is not a completion
    fail_status: int = 500  # the status of the first fail_first answers
    retry_after: str | None = None  # a Retry-After header sent with those answers
    echo_headers: bool = False  # a hostile judge: reply with the request's headers
    times: list[float] = field(default_factory=list)  # monotonic time of each request
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep the test output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with stub.lock:
                stub.requests.append(body)
                stub.headers.append(dict(self.headers))
                stub.times.append(time.monotonic())
                n = len(stub.requests)
            if stub.delay:
                time.sleep(stub.delay)
            if self.path != "/v1/chat/completions":
                self._send(404, b'{"error": "not found"}')
            elif n <= stub.fail_first:
                extra = {"Retry-After": stub.retry_after} if stub.retry_after is not None else {}
                self._send(stub.fail_status, b'{"error": "overloaded"}', extra)
            elif stub.garbage:
                self._send(200, b"<html>not json</html>")
            else:
                text = stub.reply(body["messages"][0]["content"])
                if stub.echo_headers:
                    text = f"Yes. You sent: {dict(self.headers)!r}"
                out = {"choices": [{"message": {"role": "assistant", "content": text}}]}
                self._send(200, json.dumps(out).encode())

        def _send(self, status: int, data: bytes, extra: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout test)
                pass

    return Handler


@contextmanager
def serve(s: Stub) -> Iterator[Stub]:
    """Run *s* on 127.0.0.1 (a free port) until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(s))
    server.daemon_threads = True
    s.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield s
    finally:
        server.shutdown()
        server.server_close()
