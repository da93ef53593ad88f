"""The demo web app: a Starlette app serving ``static/`` and a JSON API over the library.

The API routes only call the library (through :mod:`vqametrics.demo.api`); the page draws what
they return. A strict Content-Security-Policy keeps the page from loading anything that is not
served by this app, so it works with no network.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
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

__all__ = ["STATIC_DIR", "create_app"]

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


async def explain(request: Request) -> Response:
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return _error(400, "the request body must be JSON")
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


class _SecurityHeaders(BaseHTTPMiddleware):
    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        if request.url.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response


def create_app() -> Starlette:
    """The demo's ASGI app."""
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
    return Starlette(routes=routes, middleware=[Middleware(_SecurityHeaders)])
