"""The audit's findings (issue 14) as regression tests: any terminal encoding, non-UTF-8
arguments, repeated keys, answer ids compared as Python compares them, numeric option ranges,
and a bounded fuzz test over the CLI's input layouts."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import official_vqa
from vqametrics import InputError, evaluate_vqa
from vqametrics.cli import main
from vqametrics.data import sample_files
from vqametrics.errors import LeaveOneOutWarning

FIXTURE = Path(__file__).parent / "data" / "vqa2_val_5q_official"


def _cli(*argv: str, encoding: str = "cp1252") -> subprocess.CompletedProcess[bytes]:
    """``python -m vqametrics`` with stdout/stderr in *encoding* (as on Windows when piped)."""
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, "-m", "vqametrics", *argv], capture_output=True, env=env, timeout=120
    )


def _main(argv: list[str]) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr), argparse exits included."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- any terminal


def test_help_on_a_cp1252_terminal() -> None:
    r = _cli("--help")
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert b"vqametrics" in r.stdout


def test_diff_on_a_cp1252_terminal_escapes_the_minus_sign() -> None:
    maj, mino = sample_files("majority"), sample_files("minority")
    r = _cli(
        "diff",
        "--annotations",
        str(maj["annotations"]),
        "--results-a",
        str(maj["results"]),
        "--results-b",
        str(mino["results"]),
        "--bootstrap",
        "50",
        "--permutations",
        "50",
    )
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode("cp1252")
    assert "A \\u2212 B" in text  # U+2212 MINUS SIGN is not in cp1252


def test_explain_with_cjk_text_on_a_cp1252_terminal() -> None:
    r = _cli("explain", "猫", "--answers", *["猫"] * 3, *["dog"] * 7)
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert b"\\u732b" in r.stdout  # 猫, escaped
    # --json stays valid JSON: the escape is JSON's own (non-BMP as a surrogate pair)
    r = _cli("explain", "😀", "--answers", *["😀"] * 3, *["dog"] * 7, "--json")
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout.decode("ascii"))
    assert payload["prediction"] == "😀" and payload["score"] == 0.9  # m = 3: (3*2/3 + 7)/10


def test_profiles_with_non_ascii_answers_on_a_cp1252_terminal(tmp_path: Path) -> None:
    ann = [{"question_id": 1, "answers": ["café"] * 4 + ["ğ"] * 6}]
    (tmp_path / "a.json").write_text(json.dumps(ann, ensure_ascii=False), "utf-8")
    (tmp_path / "r.json").write_text('[{"question_id": 1, "answer": "Café"}]', "utf-8")
    r = _cli(
        "profiles", "--annotations", str(tmp_path / "a.json"), "--results", str(tmp_path / "r.json")
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr


def test_an_ascii_only_terminal_never_crashes() -> None:
    r = _cli("explain", "ü", "--answers", "ü", "u", encoding="ascii")
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert b"\\u00fc" in r.stdout


# --------------------------------------------------------------------------- non-UTF-8 arguments


@pytest.mark.skipif(sys.platform == "win32", reason="arguments are UTF-16 on Windows")
def test_a_non_utf8_argument_is_one_clear_error() -> None:
    for argv in (
        [b"explain", b"caf\xe9", b"--answers", b"x", b"--json"],
        [b"vqa", b"--annotations", b"\xff.json", b"--results", b"r.json"],
        [b"report", b"--annotations", b"a.json", b"--results", b"r.json", b"-o", b"\xfe.html"],
    ):
        r = subprocess.run(
            [sys.executable.encode(), b"-m", b"vqametrics", *argv],
            capture_output=True,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
            timeout=60,
        )
        assert r.returncode == 2 and b"Traceback" not in r.stderr, r.stderr
        assert b"is not valid UTF-8" in r.stderr


def test_a_non_utf8_argument_in_process() -> None:
    code, _, err = _main(["explain", "caf\udce9", "--answers", "x", "--json"])
    assert code == 2 and err.startswith("vqametrics: error: argument 'caf\\xe9' is not valid")


# --------------------------------------------------------------------------- inputs


def _one_question(tmp: Path, answers: list[Any]) -> Path:
    path = tmp / "ann.json"
    path.write_text(json.dumps([{"question_id": 1, "answers": answers}]))
    return path


def test_a_repeated_key_in_a_results_mapping_is_a_duplicate(tmp_path: Path) -> None:
    ann = _one_question(tmp_path, ["yes"] * 10)
    res = tmp_path / "r.json"
    res.write_text('{"1": "no", "1": "yes"}')
    with pytest.raises(InputError, match="question 1: duplicate prediction"):
        evaluate_vqa(ann, res)
    # --on-duplicate last: the last one wins, as in the official script
    assert evaluate_vqa(ann, res, on_duplicate="last").accuracy["overall"] == 100.0
    res.write_text('{"1": "yes", "1": "no"}')
    assert evaluate_vqa(ann, res, on_duplicate="last").accuracy["overall"] == 0.0
    code, _, err = _main(["vqa", "--annotations", str(ann), "--results", str(res)])
    assert code == 2 and "duplicate prediction" in err


def test_a_repeated_key_in_aokvqa_predictions_is_a_duplicate(tmp_path: Path) -> None:
    from vqametrics.readers.aokvqa import load_aokvqa_predictions

    path = tmp_path / "p.json"
    path.write_text('{"q1": "dog", "q2": "cat", "q1": "bird"}')
    with pytest.raises(InputError, match="question 'q1': duplicate prediction"):
        load_aokvqa_predictions(path)


def test_the_list_layout_is_not_parsed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The duplicate-key pass (stdlib ``json``) runs for the mapping layout only."""
    import vqametrics.readers.vqa as load_vqa

    calls: list[int] = []
    real = load_vqa.object_pairs
    monkeypatch.setattr(load_vqa, "object_pairs", lambda data: calls.append(1) or real(data))
    ann = _one_question(tmp_path, ["yes"] * 10)
    (tmp_path / "l.json").write_text('[{"question_id": 1, "answer": "yes"}]')
    (tmp_path / "m.json").write_text('{"1": "yes"}')
    evaluate_vqa(ann, tmp_path / "l.json")
    assert calls == []
    evaluate_vqa(ann, tmp_path / "m.json")
    assert calls == [1]


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        # 4 x "cat" then 6 x "dog", prediction "cat"; by hand: a "cat" record whose id equals
        # another's in Python loses both from the others: 2 matches left (2/3); otherwise 3 (1)
        ([1, 1.0, 2, 3], (2 / 3 + 2 / 3 + 1 + 1 + 6) / 10),  # 93.33
        ([1, True, 0, -0.0], (4 * 2 / 3 + 6) / 10),  # 86.67
        ([1, 2, 3, 4], 1.0),  # distinct ids: no quirk
    ],
)
def test_answer_ids_equal_in_python_are_left_out_together(
    tmp_path: Path, ids: list[object], expected: float
) -> None:
    answers = [{"answer": "cat", "answer_id": i} for i in ids]
    answers += [{"answer": "dog", "answer_id": 10 + i} for i in range(6)]
    ann = _one_question(tmp_path, answers)
    (tmp_path / "r.json").write_text('[{"question_id": 1, "answer": "cat"}]')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score = evaluate_vqa(ann, tmp_path / "r.json").scores[0]
    # records without distinct ids (in Python's sense) are reported
    assert any(issubclass(w.category, LeaveOneOutWarning) for w in caught) == (expected < 1)
    assert score == pytest.approx(expected, abs=1e-12)
    assert score == pytest.approx(official_vqa.question_accuracy(answers, "cat"), abs=1e-12)


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--digits", "99999999999999999999"], "--digits: must be between 0 and 15"),
        (["--digits", "16"], "--digits: must be between 0 and 15"),
        (["--digits", "-1"], "--digits: must be between 0 and 15"),
        (["--bootstrap", "1000000000000"], "--bootstrap: must be between 1 and 1000000"),
        (["--bootstrap", "0"], "--bootstrap: must be between 1 and 1000000"),
        (["--seed", "18446744073709551616", "--json"], "--seed: must be between 0 and"),
        (["--seed", "-1"], "--seed: must be between 0 and"),
        (["--seed", "1e3"], "--seed: not an integer"),
    ],
)
def test_numeric_options_out_of_range_are_usage_errors(argv: list[str], message: str) -> None:
    files = ["--annotations", str(FIXTURE / "annotations.json")]
    files += ["--results", str(FIXTURE / "results.json")]
    code, _, err = _main(["vqa", *files, *argv])
    assert code == 2 and message in err and "Traceback" not in err


def test_the_largest_seed_is_accepted() -> None:
    files = ["--annotations", str(FIXTURE / "annotations.json")]
    files += ["--results", str(FIXTURE / "results.json")]
    code, out, _ = _main(["vqa", *files, "--seed", str(2**64 - 1), "--bootstrap", "20", "--json"])
    assert code == 0 and json.loads(out)["intervals"]["bootstrap"]["seed"] == 2**64 - 1


def test_diff_replicates_are_bounded() -> None:
    inputs = ["--annotations", "a", "--results-a", "r", "--results-b", "r"]
    code, _, err = _main(["diff", *inputs, "--permutations", "1000001"])
    assert code == 2 and "--permutations: must be between 1 and 1000000" in err


def test_mmbench_random_fallback_beyond_64_bits_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["mmbench", "--data", "d.tsv", "--predictions", "p.jsonl", "--out", str(out)]
    code, _, err = _main([*argv, "--random-fallback", str(2**64)])
    assert code == 2 and "--random-fallback: must be between 0 and" in err
    assert not out.exists()


# --------------------------------------------------------------------------- fuzz

IDS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["1", "01", "x", "", "1.0"]),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.booleans(),
    st.none(),
)
TEXT = st.one_of(
    st.sampled_from(["yes", "no", "2", "two", "Dog.", "", " ", "ü"]), st.text(max_size=6)
)
SCALAR = st.one_of(TEXT, IDS)
JSONISH = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
ANSWER = st.one_of(
    TEXT,
    st.fixed_dictionaries({"answer": st.one_of(TEXT, SCALAR)}, optional={"answer_id": IDS}),
    JSONISH,
)
QUESTION = st.fixed_dictionaries(
    {"question_id": st.one_of(st.integers(1, 4), IDS)},
    optional={
        "answers": st.lists(ANSWER, max_size=11),
        "question_type": st.one_of(TEXT, st.none()),
        "answer_type": st.one_of(TEXT, st.none(), IDS),
        "image_id": IDS,
    },
)
ANNOTATIONS = st.one_of(
    st.lists(QUESTION, max_size=4),
    st.builds(lambda qs: {"annotations": qs}, st.lists(QUESTION, max_size=4)),
    JSONISH,
)
PREDICTION = st.fixed_dictionaries(
    {"question_id": st.one_of(st.integers(1, 4), IDS)}, optional={"answer": SCALAR}
)
RESULTS = st.one_of(
    st.lists(PREDICTION, max_size=5),
    st.dictionaries(st.sampled_from(["1", "2", "3", "x"]), SCALAR, max_size=4),
    JSONISH,
)


def _write(path: Path, value: object, layout: str) -> None:
    if layout == "jsonl" and isinstance(value, list):
        path.write_text("\n".join(json.dumps(v) for v in value))
    elif layout == "bytes":
        path.write_bytes(json.dumps(value).encode()[:-1] + b"\xff")  # truncated, not UTF-8
    else:
        path.write_text(json.dumps(value))


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    annotations=ANNOTATIONS,
    results=RESULTS,
    other=RESULTS,
    layouts=st.tuples(*[st.sampled_from(["json", "jsonl", "bytes"])] * 2),
    command=st.sampled_from(["vqa", "vqa-json", "compare", "profiles", "diff", "aokvqa", "score"]),
    task=st.sampled_from(
        ["textvqa", "vizwiz", "pope", "docvqa", "chartqa", "gqa", "mme", "ocrbench"]
    ),
)
def test_fuzz_cli_input_layouts(
    annotations: object,
    results: object,
    other: object,
    layouts: tuple[str, str],
    command: str,
    task: str,
) -> None:
    """Whatever the files hold, every command exits 0 or 2 with at most one error line."""
    with tempfile.TemporaryDirectory() as tmp:
        ann = Path(tmp) / f"ann.{layouts[0]}"
        res = Path(tmp) / f"res.{layouts[1]}"
        _write(ann, annotations, layouts[0])
        _write(res, results, layouts[1])
        _write(Path(tmp) / "other.json", other, "json")
        inputs = ["--annotations", str(ann), "--results", str(res)]
        diff_inputs = ["--annotations", str(ann), "--results-a", str(res)]
        diff_inputs += ["--results-b", str(Path(tmp) / "other.json")]
        argv = {
            "vqa": ["vqa", *inputs, "--out", str(Path(tmp) / "out")],
            "vqa-json": ["vqa", *inputs, "--json", "--metrics", "vqa,em,em-any", "--allow-missing"],
            "compare": ["compare", *inputs, "--ignore-extra", "--on-duplicate", "last"],
            "profiles": ["profiles", *inputs],
            "diff": ["diff", *diff_inputs, "--bootstrap", "20", "--permutations", "20"],
            "aokvqa": ["compare", "--aokvqa", str(ann), "--results", str(res)],
            "score": ["score", task, *inputs, "--out", str(Path(tmp) / "out")],
        }[command]
        code, _, err = _main(argv)
    assert code in (0, 2), err
    assert "Traceback" not in err
    assert sum(line.startswith("vqametrics: error:") for line in err.splitlines()) == (code == 2)


CELL = st.one_of(
    st.sampled_from(["", "A", "B", "1", "1000001", "-1", "1.0", "x", "nan", "dev", '"', "a b"]),
    st.text(max_size=5),
)
MMBENCH_COLUMNS = ["index", "question", "A", "B", "C", "answer", "category", "l2-category", "split"]


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    header=st.lists(st.sampled_from(MMBENCH_COLUMNS), min_size=1, max_size=9),
    rows=st.lists(st.lists(CELL, max_size=10), max_size=5),
    preds=st.lists(
        st.dictionaries(
            st.sampled_from(["index", "prediction", "x"]),
            st.one_of(CELL, st.integers(-2, 2_000_002), st.none(), st.floats(), st.booleans()),
            max_size=3,
        ),
        max_size=5,
    ),
    command=st.sampled_from(["circular", "vanilla", "mmbench-circular"]),
)
def test_fuzz_mmbench_layouts(
    header: list[str], rows: list[list[str]], preds: list[dict[str, object]], command: str
) -> None:
    """Any TSV and predictions: ``mmbench`` and ``mmbench-circular`` exit 0 or 2, one line."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "d.tsv"
        lines = ["\t".join(header), *("\t".join(r).replace("\n", " ") for r in rows)]
        data.write_text("\n".join(lines) + "\n", "utf-8")
        predictions = Path(tmp) / "p.jsonl"
        predictions.write_text("\n".join(json.dumps(p) for p in preds))
        if command == "mmbench-circular":
            argv = ["mmbench-circular", str(data), str(Path(tmp) / "o.tsv")]
        else:
            argv = ["mmbench", "--data", str(data), "--predictions", str(predictions)]
            argv += ["--mode", command, "--random-fallback", "3", "--out", str(Path(tmp) / "o")]
        code, _, err = _main(argv)
    assert code in (0, 2), err
    assert "Traceback" not in err
    assert sum(line.startswith("vqametrics: error:") for line in err.splitlines()) == (code == 2)


def test_an_interrupt_mid_decode_is_not_replaced_by_a_buffer_error(tmp_path: Path) -> None:
    # found by the kill test: SIGTERM arriving while numpy held a view into the mapped file
    # made `with mapped:` raise BufferError over it (a traceback instead of "terminated")
    import numpy as np

    from vqametrics.readers._json import closing_map, map_file

    f = tmp_path / "a.json"
    f.write_bytes(b"[1, 2, 3]" * 100)
    mapped = map_file(f)
    assert mapped is not None

    class Interrupted(Exception):
        pass

    def decode(data: object) -> None:
        view = np.frombuffer(data, dtype=np.uint8)  # type: ignore[call-overload]
        assert len(view)
        raise Interrupted

    with pytest.raises(Interrupted), closing_map(mapped):
        decode(mapped)
