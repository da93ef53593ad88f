"""Review 3: the same numbers and the same JSON keys whichever command scores the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.tasks import list_tasks

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "vqametrics" / "data" / "vqa2_val_sample"
FIVE = Path(__file__).resolve().parents[1] / "data" / "vqa2_val_5q_official"


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_score_vqav2_resamples_images_as_vqa_and_diff(capsys: pytest.CaptureFixture[str]) -> None:
    # The sample has 3,427 questions on 3,304 images: resampling questions instead of images
    # gives another interval. `score vqav2` must give the numbers `vqa` and `diff` give.
    files = [
        "--annotations",
        str(SAMPLE / "annotations.json"),
        "--results",
        str(SAMPLE / "results_minority.json"),
        "--results",
        str(SAMPLE / "results_messy-majority.json"),
    ]
    by_vqa = _json(["vqa", *files, "--json", "--ci"], capsys)
    by_score = _json(["score", "vqav2", *files, "--json", "--ci"], capsys)
    by_diff = _json(["diff", *files, "--json"], capsys)
    assert by_score["settings"]["resampled"] == "images"  # type: ignore[index]
    for k in (0, 1):
        assert by_score["systems"][k]["ci95"] == by_vqa["systems"][k]["ci95"]  # type: ignore[index]
    vs_score = by_score["systems"][1]["vs_first"]  # type: ignore[index]
    vs_vqa = by_vqa["systems"][1]["vs_first"]  # type: ignore[index]
    assert vs_score == vs_vqa
    # diff is A − B with A the first file: the opposite sign, the mirrored interval
    overall = by_diff
    assert vs_vqa["delta"] == pytest.approx(-overall["delta"])
    assert vs_vqa["ci95"] == pytest.approx([-overall["ci95"][1], -overall["ci95"][0]])


def test_several_systems_json_uses_the_single_file_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    single = _json(
        [
            "vqa",
            "--annotations",
            str(FIVE / "annotations.json"),
            "--results",
            str(FIVE / "results.json"),
            "--metrics",
            "vqa,em,em-any",
            "--json",
        ],
        capsys,
    )
    several = _json(
        [
            "vqa",
            "--annotations",
            str(FIVE / "annotations.json"),
            "--results",
            str(FIVE / "results.json"),
            "--results",
            str(FIVE / "results.json"),
            "--metrics",
            "vqa,em,em-any",
            "--json",
        ],
        capsys,
    )
    row = several["systems"][0]  # type: ignore[index]
    assert several["metric"] == "accuracy"
    assert {"accuracy", "em", "em_any", "perAnswerType"} <= set(row)
    assert "VQA acc" not in row and "EM-any" not in row
    # official_accuracy.json: overall 98.0, other 97.5, yes/no 100.0
    assert round(row["accuracy"], 2) == round(single["metrics"]["overall"], 2) == 98.0  # type: ignore[index]
    assert row["perAnswerType"] == {  # type: ignore[index]
        g: round(v["accuracy"], 2)
        for g, v in single["breakdowns"]["answer_type"].items()  # type: ignore[index]
    }
    assert round(row["em_any"], 2) == round(single["metrics"]["em_any"], 2)  # type: ignore[index]


def test_textvqa_takes_a_dataframe(tmp_path: Path) -> None:
    # issue 11: the per-task evaluators take a pandas DataFrame; TextVQA compared it with "-"
    # (standard input) and pandas raised "truth value of a DataFrame is ambiguous"
    pd = pytest.importorskip("pandas")
    from vqametrics import evaluate_task

    rows = [
        {"index": 1, "question": "q", "answer": str(["coca cola"] * 10), "prediction": "Coca Cola"},
        {"index": 2, "question": "q", "answer": str(["stop"] * 10), "prediction": "yield"},
    ]
    frame = pd.DataFrame(rows)
    path = tmp_path / "m_TextVQA_VAL.tsv"
    frame.to_csv(path, sep="\t", index=False)
    by_frame = evaluate_task("textvqa", frame, profile="vlmevalkit")
    by_path = evaluate_task("textvqa", str(path), profile="vlmevalkit")
    # one right (10 of 10 humans, after VLMEvalKit's lower-casing), one wrong: 50%
    assert by_frame.scores == by_path.scores == [1.0, 0.0]
    assert by_frame.headline == by_path.headline


def _ccbench_sheet(tmp_path: Path) -> Path:
    """A VLMEvalKit-style circular sheet: one 2-option question in its 2 copies, both right,
    and its _acc.csv reporting 1.0 Overall."""
    sheet = tmp_path / "m_CCBench.tsv"
    sheet.write_text(
        "index\tquestion\tA\tB\tanswer\tcategory\tprediction\n"
        "7\tq?\tcat\tdog\tA\tanimals\tA\n"
        "1000007\tq?\tdog\tcat\tB\tanimals\tB. cat\n",
        encoding="utf-8",
    )
    (tmp_path / "m_CCBench_acc.csv").write_text(
        '"split","Overall","animals"\n"none","1.0","1.0"\n', encoding="utf-8"
    )
    return sheet


def test_score_mmbench_reads_a_self_contained_sheet_and_its_reported_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _ccbench_sheet(tmp_path)
    out = _json(["score", "mmbench", "--results", str(sheet), "--json"], capsys)
    assert out["metrics"]["Overall"] == 1.0  # type: ignore[index]
    assert out["reported"]["values"]["all"]["Overall"] == 1.0  # type: ignore[index]
    assert main(["score", "mmbench", "--results", str(sheet)]) == 0
    text = capsys.readouterr().out
    assert "reported by VLMEvalKit" in text and "not compared" not in text
    # the mmbench command takes the same --annotations spelling as the other commands
    assert main(["mmbench", "--annotations", str(sheet), "--results", str(sheet), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["Overall"] == 1.0


def test_score_mmbench_without_the_benchmark_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "p.csv"
    preds.write_text("index,prediction\n7,A\n", encoding="utf-8")
    assert main(["score", "mmbench", "--results", str(preds)]) == 2
    err = capsys.readouterr().err
    assert "--annotations (the benchmark TSV) is required" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("根据题目描述，该铜首刻画的是牛。因此，答案是C。", "C"),  # a CCBench reply
        ("答案是：蓝色。", "蓝色"),
        ("blue.", "blue"),
    ],
)
def test_answer_extractor_drops_an_ideographic_full_stop(raw: str, expected: str) -> None:
    from vqametrics.extract import extract_answer

    assert extract_answer(raw).text == expected


def test_ccbench_reply_parses_after_extract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "m_CCBench.tsv"
    sheet.write_text(
        "index\tquestion\tA\tB\tanswer\tprediction\n"
        "7\tq?\t牛\t马\tA\t因此，答案是A。\n"
        "1000007\tq?\t马\t牛\tB\t因此，答案是B。\n",
        encoding="utf-8",
    )
    argv = ["mmbench", "--data", str(sheet), "--results", str(sheet), "--json"]
    assert main([*argv, "--extract", "answer"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["Overall"] == 1.0 and out["metrics"]["unparsed"] == 0


def test_several_systems_json_keeps_each_files_diagnostics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 12: "diagnostics" in --json of every command that scores predictions; with several
    # --results each system's record carries its own (and its layout), as one file's --json
    rows = json.loads((FIVE / "results.json").read_text())
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {"question_id": r["question_id"], "answer": f"The answer is {r['answer']}."}
                for r in rows
            ]
        )
    )
    ann = str(FIVE / "annotations.json")
    for cmd in (["vqa"], ["score", "vqav2"]):
        argv = [*cmd, "--annotations", ann, "--results", str(FIVE / "results.json")]
        out = _json([*argv, "--results", str(chat), "--json"], capsys)
        plain, wrapped = out["systems"]  # type: ignore[misc]
        assert plain["diagnostics"]["verbose_predictions"] == 0
        assert wrapped["diagnostics"]["verbose_predictions"] == len(rows) == 5
        assert ("input_layout" in wrapped) or ("layouts" in wrapped)


def test_report_reads_the_ground_truth_a_sheet_carries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: one reader layer for every command; --annotations is optional when the
    # results carry their ground truth -- report too, as vqa
    pytest.importorskip("matplotlib")
    ann = json.loads((FIVE / "annotations.json").read_text())["annotations"]
    preds = {r["question_id"]: r["answer"] for r in json.loads((FIVE / "results.json").read_text())}
    sheet = tmp_path / "m_VQAv2_VAL.tsv"
    lines = ["index\tquestion\tanswer\tprediction"]
    for a in ann:
        answers = [x["answer"] for x in a["answers"]]
        lines.append(
            f"{a['question_id']}\tQ{a['question_id']}?\t{answers!r}\t{preds[a['question_id']]}"
        )
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", "--results", str(sheet), "-o", str(out)]) == 0
    # official_accuracy.json of these five questions: 98.0
    assert "VQA acc 98.00" in capsys.readouterr().out
    assert "98.00" in out.read_text(encoding="utf-8")
    official = tmp_path / "o.json"
    official.write_bytes((FIVE / "results.json").read_bytes())
    assert main(["report", "--results", str(official), "-o", str(tmp_path / "x.html")]) == 2
    assert "carries no ground truth" in capsys.readouterr().err


def test_reward_of_a_non_string_solution_is_a_clear_input_error() -> None:
    from vqametrics import InputError
    from vqametrics.integrations.rewards import compute_score

    with pytest.raises(InputError, match="solution_str must be the model's output as a string"):
        compute_score("vqav2", None, ["yes"] * 10)  # type: ignore[arg-type]


#: the tasks that declare their references as votes (soft accuracy); that VQA v2, OK-VQA, TextVQA
#: and VizWiz are among them is pinned by tests/workflow/test_rewards.py from the spec
VOTES = sorted(t.name for t in list_tasks() if t.references == "votes")


@pytest.mark.parametrize("source", VOTES)
@pytest.mark.parametrize("truth", [["blue"], "blue", '["blue"]'])
def test_reward_refuses_one_answer_for_soft_accuracy(source: str, truth: object) -> None:
    # one human answer: leave-one-out leaves no answer to match, so the reward of every
    # prediction -- even "blue" -- would be 0 (min(1, 0/3)); an RL run would learn nothing
    from vqametrics import InputError
    from vqametrics.integrations.rewards import compute_score

    with pytest.raises(InputError, match="ground_truth has one answer"):
        compute_score(source, "blue", truth)


def test_reward_of_one_answer_tasks_is_unchanged() -> None:
    from vqametrics.integrations.rewards import compute_score

    assert compute_score("gqa", "The answer is blue.", "blue") == 1.0
    assert compute_score("ocrvqa", "blue", ["blue"]) == 1.0


def test_vqa_metric_warns_on_one_answer_references() -> None:
    from vqametrics.errors import AnswerCountWarning
    from vqametrics.integrations.metrics import VQAAccuracy

    m = VQAAccuracy()
    with pytest.warns(AnswerCountWarning, match="1 reference"):
        m.update(["blue", "red"], [["blue"], ["red"] * 10])
    # official leave-one-out: one answer leaves none to match (0); ten 'red' give 1
    assert m.compute() == 50.0


TEXTVQA = SAMPLE.parent / "textvqa_val_sample"


def test_score_textvqa_reads_lmms_eval_samples_with_doc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: lmms-eval --log_samples with `doc` carry their ground truth, for every score
    # task; TextVQA took doc_id (0, 1, …) as the question id and found none in the annotations
    data = json.loads((TEXTVQA / "annotations.json").read_text())["data"]
    preds = {
        r["question_id"]: r["answer"]
        for r in json.loads((TEXTVQA / "results_vila-1.5-8b.json").read_text())
    }
    log = tmp_path / "20250101_samples_textvqa_val.jsonl"
    with log.open("w", encoding="utf-8") as fh:
        for i, d in enumerate(data):
            doc = {k: d[k] for k in ("question_id", "question", "answers", "image_id")}
            rec = {"doc_id": i, "doc": doc, "filtered_resps": [preds[d["question_id"]]]}
            fh.write(json.dumps(rec) + "\n")
    official = [
        "score", "textvqa", "--annotations", str(TEXTVQA / "annotations.json"),
        "--results", str(TEXTVQA / "results_vila-1.5-8b.json"), "--json",
    ]  # fmt: skip
    expected = _json(official, capsys)["metrics"]
    alone = _json(["score", "textvqa", "--results", str(log), "--json"], capsys)
    assert alone["metrics"] == expected
    both = [
        "score", "textvqa", "--annotations", str(TEXTVQA / "annotations.json"),
        "--results", str(log), "--json",
    ]  # fmt: skip
    assert _json(both, capsys)["metrics"] == expected


@pytest.mark.parametrize("cmd", [["vqa"], ["score", "vqav2"], ["compare"], ["profiles"]])
def test_a_wrong_name_count_is_a_usage_error_with_one_file(
    cmd: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        *cmd, "--annotations", str(FIVE / "annotations.json"),
        "--results", str(FIVE / "results.json"), "--name", "a", "--name", "b",
    ]  # fmt: skip
    assert main(argv) == 2
    assert "2 --name for 1 --results" in capsys.readouterr().err


def test_an_unreachable_judge_is_given_up_on_after_one_prompt(tmp_path: Path) -> None:
    # a judge URL nobody listens on: every prompt would sleep through its retries' backoff
    # (3 427 prompts: ~40 minutes of silence); after one prompt's tries are all refused,
    # the others are unjudged at once, with the reason
    import socket

    pytest.importorskip("httpx")
    from vqametrics.judge import JudgeClient, JudgeStats, judge_yes_no_records

    with socket.socket() as s:  # a free port, closed again: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = JudgeClient(
        f"http://127.0.0.1:{port}/v1", "m", cache_dir=tmp_path, retries=2, backoff=0.0,
        concurrency=1, timeout=2.0,
    )  # fmt: skip
    with client as c:
        records = judge_yes_no_records([f"answer {i}" for i in range(50)], c)
        assert c.calls == 2  # the first prompt's two tries, nothing more
    assert JudgeStats.of("m", records).unjudged == 50
    assert "connection error" in (records[0].error or "")
    assert "judge unreachable" in (records[-1].error or "")


def test_latex_keeps_each_row_and_note_on_one_line() -> None:
    from vqametrics.views.tables import Table, render

    t = Table(("system", "VQA acc"), (("run\n\nb", 61.234),), notes=("first\nsecond",))
    tex = render(t, "latex")
    assert "\n\n" not in tex  # a blank line is \par: an error inside a tabular
    assert r"run  b & 61.23 \\" in tex
    # every line after \end{tabular} is a comment (the note's second line was not)
    tail = tex.split("\\end{tabular}\n", 1)[1]
    assert all(line.startswith("%") for line in tail.splitlines())


def test_score_mmbench_lists_unparsed_predictions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: the unparsed predictions (index, text) in the text output, not only a count
    sheet = tmp_path / "m_MMBench.tsv"
    sheet.write_text(
        "index\tquestion\tA\tB\tanswer\tprediction\n"
        "7\tq?\tcat\tdog\tA\tA\n"
        "1000007\tq?\tdog\tcat\tB\tI am not sure\n",
        encoding="utf-8",
    )
    assert main(["score", "mmbench", "--results", str(sheet)]) == 0
    out = capsys.readouterr().out
    assert "unparsed: 1" in out
    assert "unparsed prediction 1000007: 'I am not sure'" in out


@pytest.mark.parametrize("cmd", [["vqa"], ["score", "vqav2"], ["score", "okvqa"]])
def test_diagnostics_examples_name_their_question(
    cmd: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the examples gave only a row position; the question id is what a user looks up. The
    # results are written in reverse order: the id must be the one the text was given for.
    rows = json.loads((FIVE / "results.json").read_text())[::-1]
    wrapped = [{"question_id": r["question_id"], "answer": f"**{r['answer']}**"} for r in rows]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(wrapped))
    argv = [*cmd, "--annotations", str(FIVE / "annotations.json"), "--results", str(path)]
    examples = _json([*argv, "--json"], capsys)["diagnostics"]["examples"]  # type: ignore[index]
    given = {r["answer"]: r["question_id"] for r in wrapped}
    assert examples and all(given[ex["text"]] == ex["question_id"] for ex in examples)


@pytest.mark.parametrize("cmd", [["vqa"], ["diff"], ["score", "vqav2"], ["compare"]])
def test_standard_input_twice_is_a_usage_error(
    cmd: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*cmd, "--annotations", str(FIVE / "annotations.json"), "--results", "-"]
    assert main([*argv, "--results", "-"]) == 2
    assert "standard input (-) can be given for one --results only" in capsys.readouterr().err


def test_rewards_default_is_official_and_the_documented_profile_normalizes() -> None:
    # the official unanimity rule: ten identical answers are not normalized, so 'Yes' earns 0;
    # the lmms-eval VQA v2 profile the rewards docstring points to normalizes both sides
    from vqametrics.integrations.rewards import compute_score

    assert compute_score("vqav2", "The answer is Yes.", ["yes"] * 10) == 0.0
    info = {"profile": "lmms-eval-vqav2"}
    assert compute_score("vqav2", "The answer is Yes.", ["yes"] * 10, info) == 1.0
