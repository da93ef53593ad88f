"""Bad input in ``vqametrics table`` and in GQA's questions file (audit D: B2 and D6).

- ``table`` names the user's own files, also when a run is read from a temporary copy of its
  folder (an unreadable lmms-eval ``results.json`` is hidden that way); its advice names no
  option that ``table`` lacks; a run that cannot be scored is a ``failed`` cell with a note,
  and the other cells are scored (exit 0 when at least one cell has a number).
- GQA: a question id repeated in ``{tier}_questions.json`` (or across its chunks) is an error
  naming the file and the id, unless ``--on-duplicate last`` (eval.py's ``json.load``).

Expected numbers are derived by hand from the fixtures (or are the toolkit's own reported
numbers, for the shared-data test), never computed by the code under test.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError, command_line_spelling
from vqametrics.paper_table import table
from vqametrics.paper_table.build import _as_table_error
from vqametrics.paper_table.discover import Run
from vqametrics.tasks._run import evaluate

# OCR-VQA, VLMEvalKit's exact match (case-folded): Fiction/fiction, Law/Law, Travel/travel
# match, History/science does not: 3/4 = 75.0
OCRVQA = (
    "index\tquestion\tanswer\tprediction\tcategory\n"
    "1\tq1\tFiction\tfiction\tArts\n"
    "2\tq2\tHistory\tscience\tArts\n"
    "3\tq3\tLaw\tLaw\tLaw\n"
    "4\tq4\tTravel\ttravel\tLaw\n"
)
# a sheet with no prediction column: no reader recognizes it
UNREADABLE = "index\tquestion\n1\tq\n"
# ChartQA rows with index 1 twice (relaxed accuracy: 12.5 vs 12 within 5%; Yes/yes)
CHARTQA_DUP = (
    "index\tquestion\tanswer\tprediction\tsplit\n"
    "1\tq1\t12\t12.5\ttest_human\n"
    "1\tq2\tyes\tYes\ttest_augmented\n"
)


def _sheet(folder: Path, model: str, dataset: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{model}_{dataset}.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _docvqa_log(folder: Path, *, repeat_line: bool, results: str) -> Path:
    """An lmms-eval DocVQA samples log of 3 samples (ANLS: 1, 1, 0 → 66.67) beside a
    results.json with *results* as its text; *repeat_line* appends sample 1 again."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        (1, ["Dr. Lobo", "Lobo"], "Dr. Lobo"),
        (2, ["12/15/88"], "12/15/88"),
        (3, ["Dr. Lobo"], "nope"),
    ]
    lines = [
        json.dumps(
            {
                "doc_id": i,
                "doc": {"questionId": qid, "question": "q", "answers": answers},
                "target": str(answers),
                "filtered_resps": [resp],
                "anls": 1.0,
            }
        )
        for i, (qid, answers, resp) in enumerate(rows)
    ]
    if repeat_line:
        lines.append(lines[1])
    log = folder / "20260101_000000_samples_docvqa_val.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "20260101_000000_results.json").write_text(results, encoding="utf-8")
    return log


# -- B2 (a): the user's path, never the temporary copy's -------------------------------------


def test_an_error_of_a_run_read_from_a_temporary_copy_names_the_users_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _docvqa_log(tmp_path / "m", repeat_line=True, results="{")  # results.json unreadable
    code, out, err = _cli(["table", str(tmp_path)], capsys)
    assert (code, out) == (2, "")  # the only run: its error is the table's
    assert err == (
        f"vqametrics: error: {log}: line 4: duplicate sample, doc_id 1 again (first at {log}: "
        "line 2; a log concatenated twice?); run `vqametrics score docvqa --results "
        f"{log} --on-duplicate last` to keep the last one\n"
    )
    assert "vqametrics-table-" not in err


def test_a_run_scored_from_a_temporary_copy_names_the_users_file(tmp_path: Path) -> None:
    log = _docvqa_log(tmp_path / "m", repeat_line=False, results="{")
    t = table(tmp_path)
    cell = t.cell("m", "DocVQA")
    assert cell.status == "no-reported"
    assert cell.text(2) == "66.67"
    assert cell.evaluation is not None
    assert cell.evaluation.data.sources == (str(log),)
    assert "vqametrics-table-" not in t.to_json()


def test_warnings_of_a_run_read_from_a_temporary_copy_name_the_users_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vqametrics.tasks._run as run_module

    log = _docvqa_log(tmp_path / "m", repeat_line=False, results="{")

    def warning_evaluate(task: str, results: str, **kwargs: Any) -> Any:
        warnings.warn(f"{results}: a warning about this file", UserWarning, stacklevel=1)
        return evaluate(task, results, **kwargs)

    monkeypatch.setattr(run_module, "evaluate", warning_evaluate)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table(tmp_path)
    assert [str(w.message) for w in caught] == [f"{log}: a warning about this file"]


# -- B2 (b): no advice for an option that table does not take ---------------------------------


def test_duplicate_advice_names_the_score_command_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _sheet(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA_DUP)
    code, _, err = _cli(["table", str(tmp_path)], capsys)
    assert code == 2
    assert err == (
        f"vqametrics: error: {sheet}: row 3: duplicate index 1 (first at {sheet}: row 2; run "
        f"`vqametrics score chartqa --results {sheet} --on-duplicate last` to keep the last "
        "one)\n"
    )
    assert "pass --on-duplicate" not in err
    # the advice works: score's own option keeps the second row (Yes/yes: 100.0)
    code, out, _ = _cli(
        ["score", "chartqa", "--results", str(sheet), "--on-duplicate", "last", "--json"],
        capsys,
    )
    assert code == 0
    assert json.loads(out)["n"] == 1


def test_duplicate_advice_from_python_names_table_options(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA_DUP)
    with pytest.raises(InputError) as err:
        table(tmp_path)
    assert str(err.value) == (
        f"{sheet}: row 3: duplicate index 1 (first at {sheet}: row 2; pass on_duplicate='last' "
        "to keep the last one); table() takes a task's options as options={'chartqa': {...}}"
    )
    # and the advice works: the second row is kept (Yes/yes under relaxed accuracy)
    t = table(tmp_path, options={"chartqa": {"on_duplicate": "last"}})
    assert t.cell("m", "ChartQA").text() == "100.0"


def test_other_options_a_message_names_are_said_to_be_scores() -> None:
    run = Run("m", "ChartQA_TEST", Path("out/m/m_ChartQA_TEST.tsv"), "VLMEvalKit")
    exc = InputError(
        "out/m/m_ChartQA_TEST.tsv: no id column; name the columns with --id-field and "
        "--answer-field, or pass --allow-missing to score them 0; see --profile official"
    )
    with command_line_spelling():
        worded = str(_as_table_error(exc, run, run.path))
    assert worded == (
        "out/m/m_ChartQA_TEST.tsv: no id column; name the columns with --id-field and "
        "--answer-field, or run `vqametrics score chartqa --results out/m/m_ChartQA_TEST.tsv "
        "--allow-missing` to score them 0; see --profile official (--id-field, --answer-field: "
        "options of `vqametrics score chartqa`, not of table)"
    )
    # an option table takes (--profile) is left alone, and so is a message naming none
    plain = InputError("out/m/m_ChartQA_TEST.tsv: see --profile official")
    with command_line_spelling():
        assert _as_table_error(plain, run, run.path) is plain


# -- B2 (c): a bad file is a failed cell, the rest is scored ----------------------------------


def test_a_folder_of_good_and_bad_runs_scores_the_good_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _sheet(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    bad = _sheet(tmp_path / "m", "m", "ChartQA_TEST", UNREADABLE)
    dup = _sheet(tmp_path / "n", "n", "ChartQA_TEST", CHARTQA_DUP)
    _sheet(tmp_path / "n", "n", "OCRVQA_TESTCORE", OCRVQA)
    (tmp_path / "notes.txt").write_text("x")
    code, out, err = _cli(["table", str(tmp_path)], capsys)
    assert code == 0
    assert err == (
        "vqametrics: warning: 2 run(s) could not be scored: their cells read 'failed', and the "
        "notes under the table say why\n"
    )
    lines = out.splitlines()
    assert lines[:4] == [
        "model  ChartQA  OCR-VQA",
        "-----  -------  -------",
        "m       failed     75.0",
        "n       failed     75.0",
    ]
    notes = [line for line in lines if line.startswith("note: ")]
    assert notes[0].startswith(f"note: ChartQA (m): not scored, {bad}: layout not recognized: ")
    assert notes[0].endswith(
        "name the columns with --id-field and --answer-field (--id-field, --answer-field: "
        "options of `vqametrics score chartqa`, not of table)"
    )
    assert notes[1] == (
        f"note: ChartQA (n): not scored, {dup}: row 3: duplicate index 1 (first at {dup}: "
        f"row 2; run `vqametrics score chartqa --results {dup} --on-duplicate last` to keep "
        "the last one)"
    )
    assert len(notes) == 2
    assert lines[-1] == "not recognized (1 file(s)): notes.txt"
    assert str(good) not in "\n".join(notes)


def test_failed_cells_in_python_json_csv_and_averages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sheet(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    bad = _sheet(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA_DUP)
    t = table(tmp_path, average="mean")
    cell = t.cell("m", "ChartQA")
    assert (cell.status, cell.value, cell.evaluation, cell.file) == (
        "failed",
        None,
        None,
        str(bad),
    )
    assert cell.error is not None and cell.error.startswith(f"{bad}: row 3: duplicate index 1")
    assert cell.notes == (f"ChartQA (m): not scored, {cell.error}",)
    assert t.averages["Mean"] == {"m": None}
    assert "mean: m lacks ChartQA; no mean" in t.average_notes
    assert "m has no run of" not in t.to_text()  # failed is not missing
    assert "| m | failed | 75.0 |" in t.to_markdown()
    assert "m & failed & 75.0" in t.to_latex()
    assert t.to_csv().splitlines()[1] == "m,failed,,,75.0,,,"  # and an empty Mean
    code, out, _ = _cli(["table", str(tmp_path), "--format", "json"], capsys)
    assert code == 0
    cells = {c["column"]: c for c in json.loads(out)["cells"]}
    assert (cells["ChartQA"]["status"], cells["ChartQA"]["value"]) == ("failed", None)
    assert cells["ChartQA"]["error"].startswith(f"{bad}: row 3: duplicate index 1")
    assert (cells["OCR-VQA"]["status"], cells["OCR-VQA"]["value"]) == ("no-reported", 75.0)
    assert cells["OCR-VQA"]["error"] is None


def test_no_run_scored_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _sheet(tmp_path / "m", "m", "OCRVQA_TESTCORE", UNREADABLE)
    dup = _sheet(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA_DUP)
    code, out, err = _cli(["table", str(tmp_path)], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("vqametrics: error: none of the 2 runs could be scored: ")
    assert f" | {bad}: layout not recognized: " in err
    assert f"{dup}: row 3: duplicate index 1" in err
    with pytest.raises(InputError) as raised:
        table(tmp_path)
    assert str(raised.value).startswith("none of the 2 runs could be scored: ")


# -- the real data: a good run beside a broken one -------------------------------------------


@pytest.mark.shared
def test_real_run_beside_a_broken_one_keeps_its_reported_number(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "vila_8b"
    folder.mkdir()
    for name in ("vila_8b_MMStar.xlsx", "vila_8b_MMStar_acc.csv"):
        (folder / name).symlink_to(shared_data / "mmstar" / "vlmevalkit" / name)
    (folder / "vila_8b_ChartQA_TEST.xlsx").write_text("not a workbook")
    code, out, _ = _cli(
        ["table", str(tmp_path), "--profile", "mmstar=vlmevalkit-2024", "--digits", "4"], capsys
    )
    assert code == 0
    # 41.6667: VLMEvalKit's own Overall in vila_8b_MMStar_acc.csv (0.41666…), reproduced
    assert out.splitlines()[2].split() == ["vila_8b", "failed", "41.6667", "(41.6667)"]
    assert (
        f"note: ChartQA (vila_8b): not scored, {folder / 'vila_8b_ChartQA_TEST.xlsx'}: not a "
        "readable .xlsx workbook" in out
    )


# -- D6: GQA, a repeated question id in the questions file -----------------------------------


def _question(answer: str, balanced: bool = True) -> dict[str, Any]:
    return {
        "question": "Is the cup red?",
        "answer": answer,
        "isBalanced": balanced,
        "types": {"structural": "verify", "semantic": "attr", "detailed": "colorVerify"},
        "groups": {"global": None, "local": "10c-cup_color"},
        "entailed": [],
        "semantic": [{"operation": "select", "argument": "cup", "dependencies": []}],
    }


def _dup_questions(path: Path, *, indent: int | None = None) -> Path:
    """Questions 1 and 2; question 1 comes first with answer 'no', again last with 'yes'
    (json.load keeps 'yes'); *indent* spreads the file over lines."""
    sep = ",\n" if indent else ", "
    members = [("1", _question("no")), ("2", _question("yes")), ("1", _question("yes"))]
    text = "{" + sep.join(f'"{k}": {json.dumps(v, indent=indent)}' for k, v in members) + "}"
    path.write_text(text, encoding="utf-8")
    return path


def _predictions(path: Path) -> Path:
    path.write_text(
        json.dumps(
            [{"questionId": "1", "prediction": "yes"}, {"questionId": "2", "prediction": "yes"}]
        ),
        encoding="utf-8",
    )
    return path


def test_gqa_repeated_question_id_is_an_error_naming_the_file_and_the_id(tmp_path: Path) -> None:
    q = _dup_questions(tmp_path / "q.json")
    with pytest.raises(InputError) as err:
        evaluate("gqa", str(_predictions(tmp_path / "p.json")), questions=str(q))
    assert str(err.value) == (
        f"{q}: line 1: question id '1' is repeated (members 1 and 3 of the object): eval.py's "
        "json.load would silently keep its last value; pass on_duplicate='last' to keep the "
        "last one"
    )


def test_gqa_repeated_question_id_names_its_line(tmp_path: Path) -> None:
    q = _dup_questions(tmp_path / "q.json", indent=1)
    text = q.read_text()
    line = text[: text.rindex('"1": {')].count("\n") + 1  # where "1" comes again
    with pytest.raises(InputError) as err:
        evaluate("gqa", str(_predictions(tmp_path / "p.json")), questions=str(q))
    assert line > 1
    assert str(err.value).startswith(f"{q}: line {line}: question id '1' is repeated ")


def test_gqa_on_duplicate_last_keeps_the_last_value_as_eval_py(tmp_path: Path) -> None:
    q = _dup_questions(tmp_path / "q.json")
    p = _predictions(tmp_path / "p.json")
    ev = evaluate("gqa", str(p), questions=str(q), on_duplicate="last")
    # the last '1' (answer 'yes') is kept: both predictions 'yes' are right, 100%
    assert ev.aggregate.metrics["accuracy"] == 100.0
    assert [it.id for it in ev.data.items] == ["1", "2"]  # json.load's order: first position
    assert (
        f"{q}: 1 member(s) repeat an earlier question id; the last value of each was kept "
        "(--on-duplicate last, as eval.py's json.load)"
    ) in ev.data.notes


def test_gqa_repeated_question_id_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q = _dup_questions(tmp_path / "q.json")
    p = _predictions(tmp_path / "p.json")
    code, out, err = _cli(["score", "gqa", "--results", str(p), "--questions", str(q)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"vqametrics: error: {q}: line 1: question id '1' is repeated (members 1 and 3 of the "
        "object): eval.py's json.load would silently keep its last value; pass --on-duplicate "
        "last to keep the last one\n"
    )
    code, out, _ = _cli(
        [
            "score",
            "gqa",
            "--results",
            str(p),
            "--questions",
            str(q),
            "--on-duplicate",
            "last",
            "--json",
        ],
        capsys,
    )
    assert code == 0
    assert json.loads(out)["metrics"]["accuracy"] == 100.0


def test_gqa_question_id_repeated_across_chunks(tmp_path: Path) -> None:
    folder = tmp_path / "val_all_questions"
    folder.mkdir()
    a = folder / "val_all_questions_0.json"
    b = folder / "val_all_questions_1.json"
    a.write_text(json.dumps({"1": _question("no"), "2": _question("yes")}))
    b.write_text(json.dumps({"1": _question("yes")}))
    p = _predictions(tmp_path / "p.json")
    with pytest.raises(InputError) as err:
        evaluate("gqa", str(p), questions=str(folder))
    assert str(err.value) == (
        f"{folder}: question id '1' is in {a} and again in {b}: eval.py's loadFile "
        "(dict.update) would silently keep the last chunk's; pass on_duplicate='last' to keep "
        "the last one"
    )
    ev = evaluate("gqa", str(p), questions=str(folder), on_duplicate="last")
    assert ev.aggregate.metrics["accuracy"] == 100.0  # the last chunk's '1' (answer 'yes')


def test_gqa_without_a_repeat_skips_the_second_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vqametrics.tasks._gqa_read as gqa_read

    def no_second_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(gqa_read, "repeated_members", no_second_parse)
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"1": _question("yes"), "2": _question("no", balanced=False)}))
    p = _predictions(tmp_path / "p.json")
    ev = evaluate("gqa", str(p), questions=str(q))
    assert ev.aggregate.metrics["accuracy"] == 100.0  # question 1 only: balanced, right


def test_gqa_isbalanced_elsewhere_is_no_repeat(tmp_path: Path) -> None:
    # "isBalanced" as an answer and a key repeated inside a question: the cheap count differs,
    # the second parse finds no repeated question id, and the file is read as before
    q = tmp_path / "q.json"
    text = json.dumps({"1": _question("isBalanced"), "2": _question("yes")})
    text = text.replace('"question": "Is the cup red?"', '"question": "x", "question": "Is it?"', 1)
    q.write_text(text)
    p = tmp_path / "p.json"
    p.write_text(
        json.dumps(
            [
                {"questionId": "1", "prediction": "isBalanced"},
                {"questionId": "2", "prediction": "no"},
            ]
        )
    )
    ev = evaluate("gqa", str(p), questions=str(q))
    assert ev.aggregate.metrics["accuracy"] == 50.0  # 1 right, 2 wrong
    assert not any("repeat" in n for n in ev.data.notes)


def test_the_options_table_advice_knows_are_the_commands_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the advice's list of table's options (written in paper_table, below the command line)
    # is the table command's: a new option there must be added there
    from vqametrics.paper_table.build import _TABLE_OPTIONS

    with pytest.raises(SystemExit):
        main(["table", "--help"])
    shown = set(re.findall(r"--[a-z][a-z0-9-]*", capsys.readouterr().out)) - {"--help"}
    assert shown == _TABLE_OPTIONS
