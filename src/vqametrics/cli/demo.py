"""``vqametrics demo``: the local web demo (``--terminal``: a plain-text summary instead)."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys

__all__ = ["register"]


def _install_hint() -> str:
    from .._extras import install_hint

    return f"vqametrics demo needs the demo extra: {install_hint('demo')}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="open the local web demo: how a VQA answer is scored, step by step",
        description="Serve the explainable-scoring demo on a local port and open it in the "
        "browser. Every number on the page comes from the library. Needs the demo extra: "
        "pip install 'vqametrics[demo]'.",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument(
        "--terminal",
        action="store_true",
        help="print a plain-text summary of the bundled sample instead of serving the page",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.terminal:
        return run_terminal()
    if not 0 <= args.port <= 65535:
        print(f"vqametrics: error: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ModuleNotFoundError:
        print(f"vqametrics: error: {_install_hint()}", file=sys.stderr)
        return 1
    from ..demo.app import create_app

    problem = _cannot_listen(args.host, args.port)
    if problem:
        print(
            f"vqametrics: error: cannot serve on {args.host}:{args.port}: {problem}",
            file=sys.stderr,
        )
        return 1
    app = create_app()
    url = f"http://{_display_host(args.host)}:{args.port}/"
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    print(f"vqametrics demo: serving on {url}  (Ctrl-C to stop)", file=sys.stderr)
    if not args.no_browser:
        _open_browser_when_up(server, url)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn handles SIGINT itself
            server.run()
    except SystemExit:  # uvicorn exits when it cannot start (the port was taken meanwhile)
        pass
    if not server.started:
        print(f"vqametrics: error: could not serve on {args.host}:{args.port}", file=sys.stderr)
        return 1
    print("vqametrics demo: stopped", file=sys.stderr)
    return 0


def _cannot_listen(host: str, port: int) -> str | None:
    """Why *host*:*port* cannot be listened on (for example, already in use), or None."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host, port), family=family):
            return None
    except OSError as exc:
        return os.strerror(exc.errno) if exc.errno else str(exc)


def _display_host(host: str) -> str:
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _open_browser_when_up(server: object, url: str) -> None:
    """Open *url* in a browser once the server is accepting connections (if there is one)."""
    import threading
    import time
    import webbrowser

    def wait_and_open() -> None:
        for _ in range(100):
            if getattr(server, "started", False):
                break
            if getattr(server, "should_exit", False):
                return
            time.sleep(0.05)
        else:
            return
        try:
            opened = webbrowser.open(url)
        except Exception:  # no usable browser: just leave the URL on stderr
            opened = False
        if not opened:
            print(f"vqametrics demo: open {url} in a browser", file=sys.stderr)

    threading.Thread(target=wait_and_open, daemon=True).start()


def run_terminal() -> int:
    """The terminal summary: the bundled sample and the textbook example under two profiles."""
    from ..data import ANSWER_SETS, sample_files
    from ..evaluate import evaluate_vqa
    from ..report.text import table

    rows: list[list[object]] = []
    for name in ["textbook", *ANSWER_SETS]:
        files = sample_files(name)
        for profile in ("official", "simple"):
            r = evaluate_vqa(files["annotations"], files["results"], profile=profile)
            rows.append([name, profile, len(r.scores), r.accuracy["overall"]])
    print("Bundled VQA v2 val sample (CC BY 4.0) with SIMULATED answer sets:")
    for name, what in ANSWER_SETS.items():
        print(f"  {name:<15} {what}")
    print()
    print(table(rows, ["answer set", "profile", "n", "VQA acc"]))
    return 0
