"""The demo web app: a Starlette app serving ``static/`` and a JSON API over the library.

The API routes only call the library (through :mod:`vqametrics.demo.api`); the page draws what
they return. A strict Content-Security-Policy keeps the page from loading anything that is not
served by this app, so it works with no network. What the server accepts is bounded: requests
must name an allowed host (400 otherwise: no DNS rebinding), POST bodies must be
``application/json`` (415: no cross-origin form or ``text/plain`` posts) and at most
:data:`MAX_BODY` bytes, counted while they arrive (413).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import api

__all__ = ["LOCAL_HOSTS", "MAX_BODY", "STATIC_DIR", "create_app"]

#: The largest request body accepted (an explain request is a few hundred bytes).
MAX_BODY = 256 * 1024
#: Host names always accepted in the ``Host`` header (the port is ignored).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")

STATIC_DIR = Path(str(resources.files(__package__).joinpath("static")))

#: Nothing but this app's own origin, no inline script, no plugins, no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


class _JSON(JSONResponse):
    """JSON via orjson (floats printed exactly as Python's repr)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def _error(status: int, message: str) -> Response:
    return _JSON({"error": message}, status_code=status)


async def _off_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a (possibly slow, first-call) library computation off the event loop."""
    return await asyncio.to_thread(fn, *args)


async def index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8")


async def profiles(request: Request) -> Response:
    return _JSON(api.profiles_payload())


async def presets(request: Request) -> Response:
    return _JSON(api.presets_payload())


class _Rejected(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def _json_body(request: Request) -> Any:
    """The JSON body, read chunk by chunk and refused as soon as it exceeds :data:`MAX_BODY`."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise _Rejected(415, "the request body must be sent as application/json")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise _Rejected(413, f"the request body is larger than {MAX_BODY} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise _Rejected(413, f"the request body is larger than {MAX_BODY} bytes")
        chunks.append(chunk)
    try:
        return orjson.loads(b"".join(chunks))
    except orjson.JSONDecodeError:
        raise _Rejected(400, "the request body must be JSON") from None


async def explain(request: Request) -> Response:
    try:
        body = await _json_body(request)
    except _Rejected as exc:
        return _error(exc.status, str(exc))
    try:
        prediction, answers, profile = api.check_explain_input(body)
    except api.BadRequest as exc:
        return _error(400, str(exc))
    return _JSON(await _off_loop(api.explain_payload, prediction, answers, profile))


def _cached(name: str) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        from . import yardsticks

        fn: Callable[[], dict[str, Any]] = getattr(yardsticks, name)
        try:
            return _JSON(await _off_loop(fn))
        except Exception as exc:  # report it to the page instead of dropping the connection
            return _error(500, f"{type(exc).__name__}: {exc}")

    endpoint.__name__ = name
    return endpoint


def _host_name(header: str) -> str:
    """The host of a ``Host`` header without its port (``[::1]:8000`` -> ``[::1]``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _SecurityHeaders(BaseHTTPMiddleware):
    def __init__(self, app: Any, allowed_hosts: frozenset[str]) -> None:
        super().__init__(app)
        self.allowed_hosts = allowed_hosts

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if _host_name(request.headers.get("host", "")) not in self.allowed_hosts:
            response: Response = _error(
                400, "unknown Host header: open the demo by the URL it printed"
            )
        else:
            response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        if request.url.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response


def create_app(allowed_hosts: Sequence[str] = ()) -> Starlette:
    """The demo's ASGI app; requests must name one of :data:`LOCAL_HOSTS` or *allowed_hosts*
    (IPv6 addresses in brackets) in their ``Host`` header."""
    hosts = frozenset(h.lower() for h in (*LOCAL_HOSTS, *allowed_hosts))
    routes = [
        Route("/", index),
        Route("/api/profiles", profiles),
        Route("/api/presets", presets),
        Route("/api/explain", explain, methods=["POST"]),
        Route("/api/yardsticks", _cached("yardsticks_payload")),
        Route("/api/misconceptions", _cached("misconceptions_payload")),
        Route("/api/quiz", _cached("quiz_payload")),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(_SecurityHeaders, allowed_hosts=hosts)])
