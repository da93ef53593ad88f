"""``vqametrics demo``: the local web demo (``--terminal``: a plain-text summary instead)."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys

from ._common import add_command

__all__ = ["register"]


def _install_hint() -> str:
    from ..core.extras import install_hint

    return f"vqametrics demo needs the demo extra: {install_hint('demo')}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "demo")
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
    from ..demo.server import uvicorn_config

    problem = _cannot_listen(args.host, args.port)
    if problem:
        print(
            f"vqametrics: error: cannot serve on {args.host}:{args.port}: {problem}",
            file=sys.stderr,
        )
        return 1
    exposed = not _is_loopback(args.host)
    names = _host_names(args.host) if exposed else []
    app = create_app(allowed_hosts=names)
    url = f"http://{names[0] if exposed else _display_host(args.host)}:{args.port}/"
    # deadlines for reading a request, an idle timeout and a connection cap (demo/server.py)
    config = uvicorn_config(app, args.host, args.port, log_level="warning")
    server = uvicorn.Server(config)
    print(f"vqametrics demo: serving on {url}  (Ctrl-C to stop)", file=sys.stderr)
    if exposed:
        print(
            f"vqametrics demo: warning: listening on {args.host}, not only on this machine: "
            "anyone who can reach it on the network can use the demo",
            file=sys.stderr,
        )
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


def _is_loopback(host: str) -> bool:
    """Whether *host* is reachable from this machine only."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: loopback if every address it resolves to is
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return False
        return bool(infos) and all(
            ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos
        )


def _host_names(host: str) -> list[str]:
    """The names a browser may use for a server bound to *host* (for the ``Host`` check), the
    one to print first: the address itself, or for a wildcard bind this machine's names and
    addresses."""
    if host not in ("0.0.0.0", "", "::"):
        return [f"[{host}]" if ":" in host else host]
    names: list[str] = []
    with contextlib.suppress(OSError):
        hostname = socket.gethostname()
        _, aliases, addresses = socket.gethostbyname_ex(hostname)
        names += [a for a in addresses if not a.startswith("127.")]
        names += [hostname, socket.getfqdn(), *aliases]
    return list(dict.fromkeys(n.lower() for n in names if n)) or ["127.0.0.1"]


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
    from ..tasks.vqav2 import evaluate_vqa
    from ..views.text import table

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
