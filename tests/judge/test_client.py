"""The judge client against the local stub: counts, cache, retries, timeouts, bad replies."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from vqametrics.judge import (
    JudgeClient,
    JudgeSettingsError,
    JudgeStats,
    judge_equivalence,
    judge_yes_no,
    judge_yes_no_records,
    parse_yes_no_reply,
)

from .stub import Stub


def _client(stub: Stub, cache: Path, **kw: object) -> JudgeClient:
    opts: dict[str, object] = {"cache_dir": cache, "backoff": 0.0, "timeout": 5.0}
    opts.update(kw)
    return JudgeClient(stub.url, "stub-judge", **opts)  # type: ignore[arg-type]


def _yes_no_by_answer(prompt: str) -> str:
    answer = prompt.rsplit("Answer: ", 1)[1].split("\n", 1)[0]
    if "dog" in answer:
        return "Yes"
    if "cat" in answer:
        return "No, it does not."
    return "I cannot help with that request."


def test_judged_counts_and_cache(stub: Stub, tmp_path: Path) -> None:
    stub.reply = _yes_no_by_answer
    texts = ["There is a dog.", "It is a cat", "Hmm", "There is a dog."]
    with _client(stub, tmp_path) as c:
        records = judge_yes_no_records(texts, c, questions=["Is there a dog?"] * 4)
        assert [r.decision for r in records] == ["yes", "no", None, "yes"]
        assert c.calls == 3 and len(stub.requests) == 3  # the repeated text is asked once
    stats = JudgeStats.of("stub-judge", records)
    assert (stats.judged, stats.unjudged, stats.cache_hits) == (3, 1, 0)
    assert stats.unjudged_examples[0]["response"] == "I cannot help with that request."
    # every judged item records prompt, response and decision
    assert "Answer: It is a cat" in records[1].prompt and records[1].response == "No, it does not."
    # a re-run makes no calls
    with _client(stub, tmp_path) as c:
        assert judge_yes_no(texts, c) != []  # different prompts (no question): new calls
    n = len(stub.requests)
    with _client(stub, tmp_path) as c:
        again = judge_yes_no_records(texts, c, questions=["Is there a dog?"] * 4)
        assert c.calls == 0 and c.cache_hits == 3
    assert len(stub.requests) == n
    assert [r.decision for r in again] == ["yes", "no", None, "yes"]
    assert [r.cached for r in again] == [True, True, True, False]  # the repeat shares it


def test_request_body_and_key(stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-secret")
    with _client(stub, tmp_path, key_env="MY_JUDGE_KEY", seed=7) as c:
        c.complete("hello")
        assert "sk-secret" not in repr(c)
    body = stub.requests[0]
    assert body["temperature"] == 0 and body["seed"] == 7 and body["model"] == "stub-judge"
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert stub.headers[0]["Authorization"] == "Bearer sk-secret"
    cached = next(tmp_path.glob("*.json")).read_text()
    assert "sk-secret" not in cached and "hello" in cached


def test_retries_then_success(stub: Stub, tmp_path: Path) -> None:
    stub.fail_first = 2
    with _client(stub, tmp_path, retries=3) as c:
        r = c.complete("x")
    assert r.response == "Yes" and r.calls == 3 and r.error is None


def test_retries_exhausted_is_unjudged(stub: Stub, tmp_path: Path) -> None:
    stub.fail_first = 99
    with _client(stub, tmp_path, retries=2) as c:
        assert judge_yes_no(["a dog"], c) == ["other"]
        r = c.complete("y")
    assert r.response is None and r.error == "HTTP 500 after 2 tries"
    assert not list(tmp_path.glob("*.json"))  # failures are not cached


def test_timeout_never_hangs(stub: Stub, tmp_path: Path) -> None:
    # the stub holds every reply until the client has returned: a client that waited for a
    # reply instead of giving up at its timeout would get "Yes" (or never return)
    release = threading.Event()
    stub.reply = lambda prompt: "Yes" if release.wait(60) else "never released"
    try:
        with _client(stub, tmp_path, timeout=0.2, retries=2, concurrency=2) as c:
            records = judge_yes_no_records(["a", "b", "c"], c)
            assert c.calls == 3 * 2  # each prompt tried twice, none answered
    finally:
        release.set()
    assert all(r.decision is None and r.error == "timeout after 2 tries" for r in records)
    assert JudgeStats.of("m", records).unjudged == 3


def test_garbage_is_unjudged(stub: Stub, tmp_path: Path) -> None:
    stub.garbage = True
    with _client(stub, tmp_path, retries=2) as c:
        records = judge_yes_no_records(["a dog"], c)
    assert records[0].decision is None and records[0].error == "not a chat completion after 2 tries"
    assert len(stub.requests) == 2


def test_client_error_is_not_retried(stub: Stub, tmp_path: Path) -> None:
    c = JudgeClient(stub.url + "/wrong", "m", cache_dir=tmp_path, backoff=0.0)
    assert c.complete("x").error == "HTTP 404" and len(stub.requests) == 1


def test_unwritable_cache_fails_before_any_call(stub: Stub, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(JudgeSettingsError, match=r"--judge-cache .*not a writable directory"):
        JudgeClient(stub.url, "m", cache_dir=blocker / "sub")
    assert stub.requests == []


@pytest.mark.parametrize(
    ("url", "model", "kw", "msg"),
    [
        ("ftp://x", "m", {}, "--judge-url"),
        ("http://x", " ", {}, "--judge-model"),
        ("http://x", "m", {"concurrency": 0}, "concurrency"),
    ],
)
def test_bad_settings(tmp_path: Path, url: str, model: str, kw: dict[str, int], msg: str) -> None:
    with pytest.raises(JudgeSettingsError, match=msg):
        JudgeClient(url, model, cache_dir=tmp_path, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ("Yes", "yes"),
        ("No.", "no"),
        ("yes, definitely", "yes"),
        ("Unknown", None),
        ("Yes and no", None),
        ("", None),
        (None, None),
        ("Yesterday", None),
    ],
)
def test_parse_yes_no_reply(reply: str | None, want: str | None) -> None:
    assert parse_yes_no_reply(reply) == want


def test_equivalence_skips_rule_matches(stub: Stub, tmp_path: Path) -> None:
    stub.reply = lambda p: "Yes" if "Model answer: two dogs" in p else "No"
    with _client(stub, tmp_path) as c:
        out = judge_equivalence(
            ["2", "two dogs", None, "cat"],
            [["2"], ["2"], ["2"], ["dog"]],
            c,
            questions=["How many?"] * 4,
            matched=[True, False, False, False],
        )
    assert out[0] is not None and (out[0].decision, out[0].by) == ("yes", "rules")
    assert out[1] is not None and out[1].decision == "yes"
    assert out[2] is None
    assert out[3] is not None and out[3].decision == "no"
    assert len(stub.requests) == 2
