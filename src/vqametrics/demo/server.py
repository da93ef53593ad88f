"""How the demo is served: uvicorn over h11 with deadlines and a connection cap.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) and answers 503 beyond
``limit_concurrency`` requests, but it has no deadline for reading a request: a client that
connects and sends nothing, or sends its headers a byte at a time, holds a connection (and a
file descriptor) for ever, so a few hundred of them lock the demo. :func:`uvicorn_config` adds

* a **request-read deadline** — :data:`REQUEST_TIMEOUT` seconds from the connection (or the end
  of the previous response) to the whole request having arrived, headers and body; a connection
  that misses it is closed;
* an **idle timeout** — :data:`IDLE_TIMEOUT` seconds between requests on a kept-alive connection
  (uvicorn's ``timeout_keep_alive``);
* a **connection cap** — at most :data:`MAX_CONNECTIONS` open connections; one beyond the cap is
  closed at once, and at most that many requests run (503 beyond, uvicorn's
  ``limit_concurrency``);
* a head of at most :data:`MAX_HEAD` bytes (h11's incomplete-event limit: 400 beyond).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import h11
from uvicorn import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "IDLE_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_HEAD",
    "REQUEST_TIMEOUT",
    "guarded_protocol",
    "uvicorn_config",
]

#: Seconds a client has to send a whole request (headers and body) once connected.
REQUEST_TIMEOUT = 10.0
#: Seconds a kept-alive connection may wait for its next request.
IDLE_TIMEOUT = 5
#: Open connections at most (a browser opens about six).
MAX_CONNECTIONS = 64
#: Bytes of request line and headers at most.
MAX_HEAD = 16 * 1024


def guarded_protocol(request_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the request-read deadline and the connection cap."""

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _waiting_for: object = None  # the cycle current when the deadline was armed

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.transport.close()  # beyond the cap: closed before it can hold anything
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if cycle is not self._waiting_for and cycle is not None and not cycle.more_body:
                self._disarm()  # a new request arrived whole: the app has it now

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request must arrive in time too (keep-alive)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._waiting_for = self.cycle
            self._deadline = self.loop.call_later(request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            with contextlib.suppress(h11.LocalProtocolError):  # mid-message: just drop it
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()

    return Guarded


def uvicorn_config(
    app: Any,
    host: str,
    port: int,
    *,
    request_timeout: float = REQUEST_TIMEOUT,
    idle_timeout: int = IDLE_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    **kwargs: Any,
) -> Config:
    """The uvicorn configuration the demo runs with (see the module docstring)."""
    return Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(request_timeout, max_connections),
        timeout_keep_alive=idle_timeout,
        limit_concurrency=max_connections,
        h11_max_incomplete_event_size=MAX_HEAD,
        **kwargs,
    )
