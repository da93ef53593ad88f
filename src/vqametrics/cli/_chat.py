"""Options shared by the scoring commands for chat-model outputs: ``--extract`` and the judge."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ._common import float_in_range, int_in_range, warn_verbose

if TYPE_CHECKING:
    from ..judge import JudgeClient
    from ..mmbench import MMBenchResult

__all__ = [
    "add_extract_option",
    "add_judge_options",
    "judge_from_args",
    "mmbench_judge_checked",
    "warn_verbose",
]


def add_extract_option(parser: argparse.ArgumentParser) -> None:
    """``--extract NAME``: a traced answer-extraction stage before normalization."""
    from ..extract import answer_extractor_names  # the extractors themselves load when used

    names = answer_extractor_names()
    parser.add_argument(
        "--extract",
        choices=names,
        metavar="NAME",
        help="extract the answer from chat-style predictions before scoring (recorded in the "
        f"signature as extract:NAME); one of: {', '.join(names)}. Default: score as written",
    )


def add_judge_options(parser: argparse.ArgumentParser, use: str) -> None:
    """``--judge-url``, ``--judge-model``, ``--judge-key-env``, ``--judge-cache`` and limits."""
    g = parser.add_argument_group(
        "LLM judge (optional; needs pip install 'vqametrics[judge]')", use
    )
    g.add_argument("--judge-url", metavar="URL", help="OpenAI-compatible API base URL (…/v1)")
    g.add_argument("--judge-model", metavar="NAME", help="judge model name (in the signature)")
    g.add_argument(
        "--judge-key-env",
        metavar="VAR",
        # the default is judge.DEFAULT_KEY_ENV, resolved when a judge is asked for, so that
        # the command line starts without importing the judge client
        help="environment variable holding the API key (default VQAMETRICS_JUDGE_API_KEY); "
        "the key itself is never taken on the command line",
    )
    g.add_argument(
        "--judge-cache",
        metavar="DIR",
        help="reply cache keyed by (model, prompt) (default: $XDG_CACHE_HOME/vqametrics/judge)",
    )
    limits = (
        (
            "--judge-timeout",
            float_in_range(0, 3600),
            60.0,
            "S",
            "seconds per request, at most 3600 (60)",
        ),
        (
            "--judge-retries",
            int_in_range(1, 100),
            3,
            "N",
            "tries per prompt on timeouts, HTTP 429/5xx and malformed replies (3)",
        ),
        ("--judge-concurrency", int_in_range(1, 256), 4, "N", "requests in flight, 1-256 (4)"),
        (
            "--judge-max-wait",
            float_in_range(0, 86400),
            300.0,
            "S",
            "seconds a prompt may wait between its tries in all, backoff and the server's "
            "Retry-After together (300)",
        ),
    )
    for flag, kind, default, metavar, text in limits:
        g.add_argument(flag, type=kind, default=default, metavar=metavar, help=text)
    g.add_argument(
        "--allow-unjudged",
        action="store_true",
        help="score even when some items got no reply from the judge (failed calls); without "
        "it such a run fails (exit 1). The signature then says judge:MODEL(unjudged:K/N)",
    )
    g.add_argument(
        "--judge-seed",
        type=int_in_range(0, 2**63 - 1),
        default=0,
        metavar="S",
        help="seed sent with temperature 0, 0 <= S < 2**63 (0)",
    )


def judge_from_args(args: argparse.Namespace) -> JudgeClient | None:
    """The client the judge options describe, or ``None`` without ``--judge-url``."""
    from ..core.exceptions import InputError

    url = getattr(args, "judge_url", None)
    model = getattr(args, "judge_model", None)
    if url is None:
        if model is not None:
            raise InputError("--judge-model needs --judge-url")
        return None
    if model is None:
        raise InputError("--judge-url needs --judge-model")
    from ..judge import DEFAULT_KEY_ENV, JudgeClient

    return JudgeClient(
        url,
        model,
        key_env=args.judge_key_env or DEFAULT_KEY_ENV,
        cache_dir=args.judge_cache,
        timeout=args.judge_timeout,
        retries=args.judge_retries,
        concurrency=args.judge_concurrency,
        seed=args.judge_seed,
        max_wait=args.judge_max_wait,
        allow_unjudged=args.allow_unjudged,
    )


def mmbench_judge_checked(result: MMBenchResult, client: JudgeClient | None) -> MMBenchResult:
    """*result* with its signature's ``judge:`` naming the rows the judge could not be asked
    about (``MODEL(unjudged:K/N)``); without ``--allow-unjudged`` such rows fail the run."""
    if client is None:
        return result
    from dataclasses import replace

    value = client.judged_value()
    return result if value == result.judge else replace(result, judge=value)
