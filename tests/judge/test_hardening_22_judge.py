"""Issue 22, the judge: a failed judge never passes for a judged score; Retry-After honoured
within a total bound; a cache that cannot be written is a warning; the key is never cached or
shown. Every scenario against the local stub on 127.0.0.1 (no network beyond loopback)."""

from __future__ import annotations

import email.utils
import json
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from vqametrics.cli import main
from vqametrics.judge import (
    JudgeCacheWarning,
    JudgeClient,
    UnjudgedError,
    judge_equivalence,
)
from vqametrics.judge.client import _retry_after
from vqametrics.tasks._run import evaluate_task

from .stub import Stub

# POPE rows of the VLMEvalKit layout whose predictions its parser leaves "other": all 3 go to
# the judge (tests/extract/test_wiring_yesno_judge.py shows the judged case)
ROWS = [
    {"index": 0, "question": "Is there a dog?", "prediction": "Yes", "answer": "Yes"},
    {"index": 1, "question": "Is there a cat?", "prediction": "I can see a cat.", "answer": "Yes"},
    {"index": 2, "question": "Is there a car?", "prediction": "There is none.", "answer": "No"},
    {"index": 3, "question": "Is there a bus?", "prediction": "Hmm.", "answer": "No"},
]
for _r in ROWS:
    _r["category"] = "random"


def _client(stub: Stub, cache: Path, **kw: object) -> JudgeClient:
    opts: dict[str, object] = {"cache_dir": cache, "backoff": 0.0, "timeout": 5.0, "retries": 2}
    opts.update(kw)
    return JudgeClient(stub.url, "m", **opts)  # type: ignore[arg-type]


def test_every_call_failing_fails_the_run(stub: Stub, tmp_path: Path) -> None:
    # the audit: all judge calls HTTP 500, exit 0 and a signature saying judge:m
    stub.fail_first = 10**6
    with _client(stub, tmp_path) as c, pytest.raises(UnjudgedError) as err:
        evaluate_task("pope", ROWS, profile="vlmevalkit", judge=c)
    message = str(err.value)
    assert "3 of 3 items could not be judged" in message
    assert "HTTP 500 after 2 tries: 3" in message  # why
    assert "JudgeClient(..., allow_unjudged=True)" in message  # the caller's spelling


def test_allowed_unjudged_items_are_named_in_the_signature(stub: Stub, tmp_path: Path) -> None:
    stub.fail_first = 2  # the first prompt's 2 tries fail; the other two are answered
    stub.reply = lambda prompt: "Yes"
    with _client(stub, tmp_path, allow_unjudged=True, concurrency=1) as c:
        r = evaluate_task("pope", ROWS, profile="vlmevalkit", judge=c)
    assert "|judge:m(unjudged:1/3)|" in r.signature.format()
    assert r.judge_stats is not None
    assert (r.judge_stats.failed, r.judge_stats.asked) == (1, 3)


def test_a_judged_run_keeps_the_plain_signature(stub: Stub, tmp_path: Path) -> None:
    stub.reply = lambda prompt: "Unknown"  # a reply deciding nothing is a judgement, not a failure
    with _client(stub, tmp_path) as c:
        r = evaluate_task("pope", ROWS, profile="vlmevalkit", judge=c)
    assert "|judge:m|" in r.signature.format()


def test_cli_exit_1_names_how_many_and_why(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.fail_first = 10**6
    path = tmp_path / "pope.json"
    path.write_text(json.dumps(ROWS))
    judge = ["--judge-url", stub.url, "--judge-model", "m", "--judge-cache", str(tmp_path / "c")]
    judge += ["--judge-retries", "1"]
    args = ["score", "pope", "--results", str(path), "--profile", "vlmevalkit", *judge]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "3 of 3 items could not be judged (HTTP 500" in err
    assert main([*args, "--allow-unjudged", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert "|judge:m(unjudged:3/3)|" in payload["signature"]
    assert payload["metrics"]["acc"] == 25.0  # the 3 unjudged answers stay wrong


def test_the_equivalence_judge_fails_or_names_the_unjudged(stub: Stub, tmp_path: Path) -> None:
    from vqametrics.judge import equivalence_summary

    stub.fail_first = 10**6
    args = (["two", "cat"], [["2"], ["dog"]])
    with _client(stub, tmp_path) as c, pytest.raises(UnjudgedError, match="2 of 2 items"):
        judge_equivalence(*args, c)
    with _client(stub, tmp_path, allow_unjudged=True) as c:
        out = judge_equivalence(*args, c)
    assert "judge:m(unjudged:2/2)" in equivalence_summary(out, "m")["signature"]


def test_mmbench_rows_without_a_reply_fail_or_are_named(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "mmb.tsv"
    data.write_text(
        "index\tquestion\tA\tB\tanswer\tcategory\tl2-category\tsplit\n"
        "1\tWhich?\tcat\tdog\tB\tc\tl2\tdev\n"
        "2\tWhich?\tcat\tdog\tA\tc\tl2\tdev\n"
    )
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        '{"index": 1, "prediction": "the second one"}\n{"index": 2, "prediction": "A"}\n'
    )
    stub.fail_first = 10**6
    args = ["mmbench", "--data", str(data), "--predictions", str(pred), "--mode", "vanilla"]
    args += ["--judge-url", stub.url, "--judge-model", "m", "--judge-cache", str(tmp_path / "c")]
    args += ["--judge-retries", "1"]
    assert main(args) == 1
    assert "1 of 1 items could not be judged (HTTP 500" in capsys.readouterr().err
    assert main([*args, "--allow-unjudged", "--json"]) == 0
    assert "|judge:m(unjudged:1/1)|" in json.loads(capsys.readouterr().out)["signature"]


@pytest.mark.parametrize("header", ["1", "date"])
def test_retry_after_is_honoured(stub: Stub, tmp_path: Path, header: str) -> None:
    # a 429 asking for a 1 s pause: the retry comes after it, not at the backoff (0 here)
    stub.fail_first, stub.fail_status = 1, 429
    if header == "date":  # an HTTP date 3 s on: its resolution is one second, and a loaded
        # machine may take a while between this line and the first request
        stub.retry_after = email.utils.formatdate(time.time() + 3, usegmt=True)
    else:
        stub.retry_after = header
    with _client(stub, tmp_path) as c:
        reply = c.complete("x")
    assert reply.response == "Yes" and reply.calls == 2
    assert stub.times[1] - stub.times[0] >= 0.95  # at least the asked-for second (or date)


def test_retry_after_beyond_the_wait_bound_ends_the_tries(stub: Stub, tmp_path: Path) -> None:
    stub.fail_first, stub.fail_status, stub.retry_after = 10, 503, "3600"
    start = time.monotonic()
    with _client(stub, tmp_path, retries=5, max_wait=2.0) as c:
        reply = c.complete("x")
    assert time.monotonic() - start < 2.0  # no hour-long sleep
    assert reply.response is None and len(stub.requests) == 1
    assert reply.error is not None and "beyond the 2 s a prompt may wait" in reply.error


def test_retry_after_values() -> None:
    now = 1_000_000_000.0  # 2001-09-09T01:46:40Z
    assert _retry_after("120", now) == 120.0
    assert _retry_after(" 0 ", now) == 0.0
    assert _retry_after(email.utils.formatdate(now + 30, usegmt=True), now) == 30.0
    assert _retry_after(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0  # past
    assert _retry_after("soon", now) is None
    assert _retry_after("-5", now) is None
    assert _retry_after(None, now) is None


def test_an_unwritable_cache_entry_is_a_warning(stub: Stub, tmp_path: Path) -> None:
    with _client(stub, tmp_path) as c:
        path = c._path("x", 0)
        path.mkdir()  # the entry's name is taken by a directory: the write fails
        (path / "keep").write_text("")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reply = c.complete("x")
            c.complete("y2")  # more failures would not be reported again
    assert reply.response == "Yes"  # the run goes on with the reply
    found = [w for w in caught if issubclass(w.category, JudgeCacheWarning)]
    assert len(found) == 1 and str(path) in str(found[0].message)
    assert not list(tmp_path.glob("*.tmp"))  # no temporary left behind


def test_a_hostile_judge_echoing_the_key_is_redacted(
    stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-very-secret-123")
    stub.echo_headers = True
    with _client(stub, tmp_path, key_env="MY_KEY") as c:
        reply = c.complete("hello")
    assert stub.headers[0]["Authorization"] == "Bearer sk-very-secret-123"  # it was sent
    assert reply.response is not None and "[redacted]" in reply.response
    assert "sk-very-secret" not in reply.response
    cached = b"".join(p.read_bytes() for p in tmp_path.glob("*.json"))
    assert b"sk-very-secret" not in cached and b"[redacted]" in cached


def test_the_key_in_the_url_is_not_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-in-the-url-9")
    c = JudgeClient(
        "http://127.0.0.1:9/v1?k=sk-in-the-url-9", "m", key_env="MY_KEY", cache_dir=tmp_path
    )
    assert "sk-in-the-url" not in repr(c)
    c.close()
