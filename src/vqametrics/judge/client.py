"""An OpenAI-compatible chat-completions client for LLM judges: cached, bounded, recorded.

One user message per prompt, ``temperature`` 0 and a fixed ``seed`` (a caller may set the
temperature and ``max_tokens`` per call: the toolkits' own retries raise the temperature); at
most *concurrency* requests in flight (threads); each request has a timeout and is retried with
exponential backoff on timeouts, connection errors, HTTP 429/5xx and replies that are not a
completion. A ``Retry-After`` header (seconds or an HTTP date) on 429/503 sets the wait instead, and
a prompt's waits add up to at most *max_wait* seconds. Replies are cached on disk, keyed by
(model, prompt), so a re-run makes no calls; a reply that cannot be cached is a warning. The API
key is read from an environment variable and never printed, logged or cached: a reply that
echoes it is stored and returned with the key replaced by ``[redacted]``. httpx is an optional
extra (``pip install 'vqametrics[judge]'``), imported when the client is built.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError, MissingDependencyError, VqaMetricsError, VqaMetricsWarning

# threads, paths, hashes, HTTP dates and JSON are imported where a client is made or asks:
# a score from recorded verdicts imports this module for check_judged and the types alone
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DEFAULT_KEY_ENV",
    "JudgeCacheWarning",
    "JudgeClient",
    "JudgeReply",
    "JudgeSettingsError",
    "UnjudgedError",
    "check_judged",
    "default_cache_dir",
]

#: The environment variable the API key is read from unless another name is given.
DEFAULT_KEY_ENV = "VQAMETRICS_JUDGE_API_KEY"
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


#: Statuses whose ``Retry-After`` header is honoured (RFC 9110 §10.2.3).
_RETRY_AFTER_STATUS = frozenset({429, 503})
_REDACTED = "[redacted]"


class JudgeSettingsError(InputError):
    """A judge setting is unusable (URL, model, cache directory, concurrency...)."""


class UnjudgedError(VqaMetricsError):
    """Some items could not be judged (no reply), and ``--allow-unjudged`` was not given: the
    score would pass for a judged one. A runtime failure (exit code 1), not bad input."""

    exit_code = 1


class JudgeCacheWarning(VqaMetricsWarning):
    """A judge reply could not be written to the cache (the run goes on; a re-run asks again)."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/vqametrics/judge`` (``~/.cache/vqametrics/judge`` by default)."""
    from pathlib import Path

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vqametrics" / "judge"


@dataclass(frozen=True)
class JudgeReply:
    """One prompt's outcome.

    Attributes
    ----------
    prompt, response:
        What was sent and the reply's text (``None`` when every try failed).
    cached:
        The reply came from the cache (no call was made).
    calls:
        HTTP requests made for it (0 when cached).
    error:
        Why there is no response, e.g. ``"timeout after 3 tries"``.
    """

    prompt: str
    response: str | None
    cached: bool = False
    calls: int = 0
    error: str | None = None


def _require_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            "the LLM judge needs httpx: pip install 'vqametrics[judge]'"
        ) from None
    return httpx


class JudgeClient:
    """Chat-completions judge over HTTP.

    Parameters
    ----------
    url : str
        Base URL of an OpenAI-compatible API (``http://host:8000/v1``); ``/chat/completions``
        is appended unless the URL already ends with it.
    model : str
        Model name sent with each request; recorded in signatures (``judge:<model>``).
    key_env : str, default="VQAMETRICS_JUDGE_API_KEY"
        Environment variable holding the API key (no key: no ``Authorization`` header).
    cache_dir : path, optional
        Where replies are cached; default :func:`default_cache_dir`. Checked writable here,
        before any call.
    timeout : float, default=60
        Seconds per request.
    retries : int, default=3
        Tries per prompt (the first one included).
    backoff : float, default=1
        Seconds before the second try; doubled for each further try.
    concurrency : int, default=4
        Requests in flight at most.
    seed : int, default=0
        Sent as ``seed``; with ``temperature`` 0 it makes replies as repeatable as the API
        allows.
    max_tokens : int, default=256
    max_wait : float, default=300
        Seconds a prompt may spend waiting between its tries, in all (backoff and
        ``Retry-After`` together); a wait that would exceed it ends the prompt's tries.
    allow_unjudged : bool, default=False
        Let a run score with items the judge could not be asked about (``--allow-unjudged``);
        without it such a run fails with :class:`UnjudgedError`.
    transport : httpx transport, optional
        For tests.
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        key_env: str = DEFAULT_KEY_ENV,
        cache_dir: str | os.PathLike[str] | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        concurrency: int = 4,
        seed: int = 0,
        max_tokens: int = 256,
        max_wait: float = 300.0,
        allow_unjudged: bool = False,
        transport: Any = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise JudgeSettingsError(f"--judge-url {url!r}: expected an http:// or https:// URL")
        if not model.strip():
            raise JudgeSettingsError("--judge-model: a model name is needed")
        if retries < 1 or concurrency < 1 or timeout <= 0 or backoff < 0 or not max_wait >= 0:
            raise JudgeSettingsError(
                "judge: retries and concurrency must be >= 1, timeout > 0, backoff >= 0, "
                "max wait >= 0"
            )
        httpx = _require_httpx()
        import threading
        from pathlib import Path

        self.url = url.rstrip("/")
        if not self.url.endswith("/chat/completions"):
            self.url += "/chat/completions"
        self.model = model
        self.key_env = key_env
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_wait = max_wait
        self.allow_unjudged = allow_unjudged
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        _check_writable(self.cache_dir)
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(key_env)
        #: what must never be cached or shown: the key, and the header value it travels in
        self._secrets: tuple[str, ...] = ()
        if key:
            headers["Authorization"] = f"Bearer {key}"
            self._secrets = (headers["Authorization"], key)
        self._cache_warned = False
        self._httpx = httpx
        self._http = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self._lock = threading.Lock()
        self.calls = 0
        self.cache_hits = 0
        #: replies received, and why the judge was given up on (see :meth:`_request`)
        self._answered = 0
        self._unreachable: str | None = None
        self._outcomes: dict[str, str | None] = {}

    def __repr__(self) -> str:  # never shows the key
        url = self._redact(self.url)
        return f"JudgeClient(url={url!r}, model={self.model!r}, key_env={self.key_env!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> JudgeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _path(
        self, prompt: str, attempt: int, temperature: float = 0.0, max_tokens: int | None = None
    ) -> Path:
        # the settings join the key only when they differ from the client's own, so that the
        # replies cached before per-call settings existed are still found
        settings: list[Any] = []
        if temperature != 0 or (max_tokens is not None and max_tokens != self.max_tokens):
            settings = [{"temperature": temperature, "max_tokens": max_tokens}]
        import hashlib

        import orjson

        key = orjson.dumps([self.model, prompt] + ([attempt] if attempt else []) + settings)
        return self.cache_dir / (hashlib.sha256(key).hexdigest() + ".json")

    def complete(
        self,
        prompt: str,
        *,
        attempt: int = 0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> JudgeReply:
        """The judge's reply to *prompt*, from the cache when there.

        *attempt* > 0 asks again for a prompt whose earlier reply could not be used (a
        caller's retry); it is cached under its own key, as is a call with its own
        *temperature* or *max_tokens* (``None``: the client's).
        """
        if not (math.isfinite(temperature) and temperature >= 0) or (
            max_tokens is not None and max_tokens < 1
        ):
            raise JudgeSettingsError(
                f"judge call: temperature must be >= 0 and max_tokens >= 1 (got {temperature!r}, "
                f"{max_tokens!r})"
            )
        import threading

        import orjson

        path = self._path(prompt, attempt, temperature, max_tokens)
        try:
            stored = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            stored = None
        if isinstance(stored, dict) and isinstance(stored.get("response"), str):
            with self._lock:
                self.cache_hits += 1
            return JudgeReply(prompt, stored["response"], cached=True)
        reply = self._request(prompt, temperature, max_tokens)
        if reply.response is not None:
            record = {"model": self.model, "prompt": prompt, "response": reply.response}
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            try:
                tmp.write_bytes(orjson.dumps(record))
                os.replace(tmp, path)
            except OSError as exc:
                self._cache_failed(path, exc)
                with contextlib.suppress(OSError):
                    tmp.unlink()
        return reply

    def _cache_failed(self, path: Path, exc: OSError) -> None:
        """One warning per client for replies that could not be cached (the run goes on)."""
        with self._lock:
            if self._cache_warned:
                return
            self._cache_warned = True
        warnings.warn(
            JudgeCacheWarning(
                f"judge cache: could not write {path} ({exc.strerror or exc}); the reply is "
                "used but not cached (a re-run asks again); further cache failures are not "
                "reported"
            ),
            stacklevel=3,
        )

    def _redact(self, text: str) -> str:
        """*text* with the key (and its ``Authorization`` header value) replaced."""
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, _REDACTED)
        return text

    def complete_many(
        self,
        prompts: Sequence[str],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[JudgeReply]:
        """Replies to *prompts* in order; each distinct prompt is asked once, concurrently
        (with the per-call *temperature* and *max_tokens* of :meth:`complete`).

        A repeated prompt shares the first one's reply with ``calls=0`` and ``cached=False``,
        so that summing ``calls`` and ``cached`` over the replies counts requests and hits.
        """
        unique = list(dict.fromkeys(prompts))

        def one(prompt: str) -> JudgeReply:
            return self.complete(prompt, temperature=temperature, max_tokens=max_tokens)

        if len(unique) <= 1 or self.concurrency == 1:
            done = {p: one(p) for p in unique}
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                done = dict(zip(unique, pool.map(one, unique), strict=True))
        out = []
        for p in prompts:
            reply = done[p]
            out.append(reply)
            if reply.calls or reply.cached:
                done[p] = replace(reply, calls=0, cached=False)
        return out

    def _request(
        self, prompt: str, temperature: float = 0.0, max_tokens: int | None = None
    ) -> JudgeReply:
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature if temperature else 0,
            "seed": self.seed,
            "max_tokens": self.max_tokens if max_tokens is None else max_tokens,
        }
        httpx = self._httpx
        if self._unreachable is not None:
            # a judge that refused every connection of a prompt's tries before any reply:
            # the other prompts are not tried (each would wait through its backoff for
            # nothing); they are unjudged and reported as such
            return JudgeReply(prompt, None, calls=0, error=self._unreachable)
        error = "no reply"
        waited = 0.0
        retry_after: float | None = None
        for attempt in range(self.retries):
            if attempt:
                wait = self.backoff * 2 ** (attempt - 1) if retry_after is None else retry_after
                if waited + wait > self.max_wait:
                    return JudgeReply(
                        prompt,
                        None,
                        calls=attempt,
                        error=f"{error}; the next try would wait {wait:g} s, beyond the "
                        f"{self.max_wait:g} s a prompt may wait in all, after {attempt} tries",
                    )
                waited += wait
                time.sleep(wait)
            retry_after = None
            with self._lock:
                self.calls += 1
            try:
                resp = self._http.post(self.url, json=body)
            except httpx.TimeoutException:
                error = "timeout"
                continue
            except httpx.HTTPError as exc:
                error = f"connection error ({type(exc).__name__})"
                continue
            if resp.status_code in _RETRY_STATUS:
                error = f"HTTP {resp.status_code}"
                if resp.status_code in _RETRY_AFTER_STATUS:
                    retry_after = _retry_after(resp.headers.get("Retry-After"))
                continue
            if resp.status_code >= 400:  # a client error does not get better by retrying
                return JudgeReply(prompt, None, calls=attempt + 1, error=f"HTTP {resp.status_code}")
            text = _completion_text(resp.content)
            if text is None:
                error = "not a chat completion"
                continue
            with self._lock:
                self._answered += 1
            return JudgeReply(prompt, self._redact(text), calls=attempt + 1)
        if error.startswith("connection error"):
            with self._lock:
                if not self._answered:
                    self._unreachable = (
                        f"judge unreachable at {self._redact(self.url)} ({error} on every one of "
                        f"{self.retries} tries, and no reply yet); not asked"
                    )
        return JudgeReply(
            prompt, None, calls=self.retries, error=f"{error} after {self.retries} tries"
        )

    def as_callable(self) -> Callable[[str], str]:
        """``judge(prompt) -> reply`` for :func:`vqametrics.mmbench.evaluate_mmbench`.

        A failed call returns the reference's API failure marker, which MMBench counts as a
        failed try; the n-th call with the same prompt is the n-th attempt (its own cache key).
        """
        from ..kernels.choice.heuristics import API_FAILURE

        last: list[Any] = [None, 0]  # the previous prompt and its attempt number
        # per prompt (one row): the error of its latest try, None once a reply came
        outcome: dict[str, str | None] = {}
        self._outcomes = outcome

        def judge(prompt: str) -> str:
            # MMBench retries a row by asking again at once with the same prompt
            last[1] = last[1] + 1 if last[0] == prompt else 0
            last[0] = prompt
            reply = self.complete(prompt, attempt=last[1])
            if reply.response is None:
                outcome[prompt] = reply.error or "no reply"
                return API_FAILURE
            outcome[prompt] = None
            return reply.response

        return judge

    def judged_value(self) -> str:
        """The signature's ``judge:`` value for the rows the latest :meth:`as_callable` judge
        was asked about: the model, with ``(unjudged:K/N)`` when K of N rows got no reply.

        Raises
        ------
        UnjudgedError
            Some row got no reply and the client was not built with ``allow_unjudged``.
        """
        outcome = self._outcomes
        failures: dict[str, int] = {}
        for error in outcome.values():
            if error is not None:
                failures[error] = failures.get(error, 0) + 1
        failed = sum(failures.values())
        return check_judged(self.model, failed, len(outcome), failures, allow=self.allow_unjudged)


def check_judged(
    model: str, failed: int, asked: int, failures: dict[str, int], *, allow: bool
) -> str:
    """The ``judge:`` signature value for a run in which *failed* of *asked* items got no
    reply; unless *allow* (``--allow-unjudged``), any such item fails the run.

    Raises
    ------
    UnjudgedError
        *failed* > 0 and not *allow*: the message says how many and why.
    """
    if not failed:
        return model
    if not allow:
        reasons = "; ".join(f"{why}: {n}" for why, n in sorted(failures.items()))
        raise UnjudgedError(
            f"judge {model}: {failed} of {asked} items could not be judged ({reasons}); a "
            "score with them would pass for a judge-scored one. Fix the judge and run again "
            "(the replies received are cached), or pass --allow-unjudged to score them as "
            f"unjudged (the signature then says judge:{model}(unjudged:{failed}/{asked}))"
        )
    return f"{model}(unjudged:{failed}/{asked})"


def _retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: a number of seconds or an HTTP date
    (RFC 9110 §10.2.3); ``None`` when absent or unreadable (the backoff applies then)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        return None
    delay = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, delay) if math.isfinite(delay) else None


def _completion_text(content: bytes) -> str | None:
    import orjson

    try:
        data = orjson.loads(content)
        text = data["choices"][0]["message"]["content"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return None
    return text if isinstance(text, str) else None


def _check_writable(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise JudgeSettingsError(
            f"--judge-cache {path}: not a writable directory ({exc.strerror or exc})"
        ) from None
