"""The 20 English MMBench samples, end to end: circular copies built by ``mmbench-circular``,
then scored through the API and the CLI.

Expected values are derived by hand from the sample TSV (read here with the csv module, as
data/README.md says) and the spec: each of the 20 L3 abilities appears once, and the L2 sizes
are CP 5, FP-S 4, FP-C 3, AR 3, RR 3, LR 2 (spec §1). Items 2222 and 318 have 3 options, the
other 18 have 4, so the circular file has 18*4 + 2*3 = 78 rows.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import vqametrics
from vqametrics import evaluate_mmbench
from vqametrics.cli import main
from vqametrics.mmbench import load_mmbench_tsv, load_predictions

DATA = Path(__file__).resolve().parents[1] / "data" / "mmbench"
SAMPLES = DATA / "mmbench_samples.tsv"
L2_SIZES = {"CP": 5, "FP-S": 4, "FP-C": 3, "AR": 3, "RR": 3, "LR": 2}
L2_ABBR = {
    "coarse_perception": "CP",
    "finegrained_perception (instance-level)": "FP-S",
    "finegrained_perception (cross-instance)": "FP-C",
    "attribute_reasoning": "AR",
    "relation_reasoning": "RR",
    "logic_reasoning": "LR",
}


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_predictions(path: Path, preds: dict[str, str]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["index", "prediction"])
        for index, pred in preds.items():
            w.writerow([index, pred])


@pytest.fixture
def circular_tsv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "mmbench_en_circular.tsv"
    code = main(
        [
            "mmbench-circular",
            str(SAMPLES),
            str(out),
            "--select",
            "lang=en",
            "--select",
            "benchmark=MMBench",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out == f"wrote 78 rows (20 questions) to {out}\n"
    return out


def test_circular_file_layout(circular_tsv: Path) -> None:
    plain = [r for r in read_tsv(SAMPLES) if r["lang"] == "en" and r["benchmark"] == "MMBench"]
    rows = {int(r["index"]): r for r in read_tsv(circular_tsv)}
    assert len(plain) == 20 and len(rows) == 78
    for item in plain:
        g = int(item["index"])
        letters = [c for c in "ABCD" if item[c]]
        n = len(letters)
        a = letters.index(item["answer"])
        for k in range(n):
            row = rows[g + k * 1_000_000]
            # spec §1: new label j holds original option (j+k) mod N; answer moves to (a-k) mod N
            assert [row[c] for c in letters] == [item[letters[(j + k) % n]] for j in range(n)]
            assert row["answer"] == letters[(a - k) % n]
            if n == 3:
                assert row["D"] == ""
            for col in ("question", "hint", "category", "l2-category", "image"):
                assert row[col] == item[col]
        assert g + n * 1_000_000 not in rows


def test_perfect_position_biased_and_one_wrong_pass(circular_tsv: Path, tmp_path: Path) -> None:
    rows = read_tsv(circular_tsv)
    data = load_mmbench_tsv(circular_tsv)

    perfect = {r["index"]: r["answer"] for r in rows}
    write_predictions(tmp_path / "perfect.tsv", perfect)
    res = evaluate_mmbench(data, load_predictions(tmp_path / "perfect.tsv"))
    assert res.score == 1.0 and res.counts["questions"] == 20

    # Always "A": no question keeps its answer at A in every rotation -> circular 0.
    always_a = {r["index"]: "A" for r in rows}
    write_predictions(tmp_path / "a.tsv", always_a)
    res = evaluate_mmbench(data, load_predictions(tmp_path / "a.tsv"))
    assert res.score == 0.0
    van = evaluate_mmbench(data, load_predictions(tmp_path / "a.tsv"), mode="vanilla")
    pass0_a = sum(1 for r in rows if int(r["index"]) < 1_000_000 and r["answer"] == "A")
    all_a = sum(1 for r in rows if r["answer"] == "A")
    assert van.score == pass0_a / 20
    assert van.tables["vanilla_all"][0]["Overall"] == pytest.approx(all_a / 78)

    # Item 812 (image_scene, CP) answered wrong in pass 2 only.
    wrong = dict(perfect)
    wrong["2000812"] = "A" if perfect["2000812"] != "A" else "B"
    write_predictions(tmp_path / "wrong.tsv", wrong)
    res = evaluate_mmbench(data, load_predictions(tmp_path / "wrong.tsv"))
    (table,) = res.tables["circular"]
    assert table["split"] == "none"  # the sample has no split values
    assert table["Overall"] == pytest.approx(19 / 20)
    assert table["CP"] == pytest.approx(4 / 5)
    assert table["image_scene"] == 0.0
    for abbr in ("FP-S", "FP-C", "AR", "RR", "LR"):
        assert table[abbr] == 1.0
    assert list(table)[2:8] == ["AR", "CP", "FP-C", "FP-S", "LR", "RR"]  # sorted by raw name
    assert len(table) == 2 + 6 + 20


def test_cli_end_to_end(
    circular_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = read_tsv(circular_tsv)
    preds = {r["index"]: f"The answer is {r['answer']}." for r in rows}
    preds["1000021"] = "I cannot tell."  # unparsed -> group 21 (action_recognition, FP-C) fails
    write_predictions(tmp_path / "preds.tsv", preds)
    out = tmp_path / "out"
    code = main(
        [
            "mmbench",
            "--data",
            str(circular_tsv),
            "--predictions",
            str(tmp_path / "preds.tsv"),
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    cap = capsys.readouterr()
    report = json.loads(cap.out)  # the schema-1 document of `score mmbench`
    assert report["schema"] == 1 and report["task"] == "mmbench"
    assert report["metrics"]["Overall"] == pytest.approx(19 / 20)
    assert report["signature"] == (
        "mmbench|profile:vlmevalkit|mode:circular|extractor:vlmevalkit|strict:yes|judge:no|n:20"
        "|vqametrics:" + vqametrics.__version__
    )
    assert report["metrics"]["unparsed"] == 1
    assert report["metrics"]["n"] == report["n"] == 20  # questions
    l2 = report["breakdowns"]["l2_category"]
    assert l2["finegrained_perception (cross-instance)"]["accuracy"] == pytest.approx(2 / 3)
    assert report["breakdowns"]["category"]["action_recognition"]["accuracy"] == 0.0
    assert "look verbose" in cap.err  # MMBench's own diagnostics, as `mmbench` warned before
    assert json.loads((out / "metrics.json").read_text("utf-8")) == report
    lines = [json.loads(x) for x in (out / "per_item.jsonl").read_text("utf-8").splitlines()]
    assert len(lines) == 20
    by_index = {q["id"]: q for q in lines}
    assert by_index[21]["score"] == 0.0
    assert all(q["score"] == 1.0 for i, q in by_index.items() if i != 21)
    # the passes of a question: the API's per-question records (per_item.jsonl has one line
    # per question, without its passes)
    result = evaluate_mmbench(
        load_mmbench_tsv(circular_tsv), load_predictions(tmp_path / "preds.tsv")
    )
    q21 = {q["index"]: q for q in result.per_question()}[21]
    assert q21["hit"] == 0
    assert [p["index"] for p in q21["passes"]] == [21, 1000021, 2000021, 3000021]
    assert q21["passes"][1] == {
        "index": 1000021,
        "prediction": "I cannot tell.",
        "letter": None,
        "stage": "none",
        "answer": rows_by_index(rows)["1000021"]["answer"],
        "judge_calls": 0,
        "verbose": True,  # a full sentence (diagnostics, issue 12)
    }


def rows_by_index(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {r["index"]: r for r in rows}


def test_cli_text_report(
    circular_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = read_tsv(circular_tsv)
    write_predictions(tmp_path / "p.tsv", {r["index"]: r["answer"] for r in rows})
    code = main(["mmbench", "--data", str(circular_tsv), "--predictions", str(tmp_path / "p.tsv")])
    assert code == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == "MMBench — profile vlmevalkit"  # score mmbench's text
    rows_of = {ln.split()[0]: ln.split()[1:] for ln in lines if ln.split()}
    assert rows_of["Overall"] == ["1.0000"] and rows_of["n"] == ["20"]  # 100% of 20
    assert lines[-1].startswith("mmbench|profile:vlmevalkit|mode:circular|extractor:vlmevalkit|")
    assert "questions: 20, incomplete: 0" in text


def test_samples_tsv_round_trips_byte_identically(tmp_path: Path) -> None:
    # data/README.md: the TSV round-trips byte-identically; our writer must keep its quoting.
    from vqametrics.mmbench.load import read_table, write_tsv

    table = read_table(SAMPLES)
    write_tsv(tmp_path / "copy.tsv", table.header, table.rows)
    assert (tmp_path / "copy.tsv").read_bytes() == SAMPLES.read_bytes()


def test_bundled_sample_matches_test_copy() -> None:
    import vqametrics

    pkg = Path(vqametrics.__file__).resolve().parent / "data"
    assert (pkg / "mmbench_samples.tsv").read_bytes() == SAMPLES.read_bytes()
    assert (pkg / "MMBENCH_LICENSE").read_bytes() == (DATA / "LICENSE").read_bytes()
    for row in read_tsv(SAMPLES):
        assert (pkg / "mmbench_images" / row["image"]).is_file(), row["image"]


@pytest.mark.shared
def test_test_copies_match_shared(shared_data: Path) -> None:
    src = shared_data / "mmbench_samples"
    for name in ("mmbench_samples.tsv", "LICENSE", "ATTRIBUTION.md"):
        assert (DATA / name).read_bytes() == (src / name).read_bytes()
    spec = shared_data.parent / "spec" / "mmbench-cases.json"
    assert (DATA / "mmbench-cases.json").read_bytes() == spec.read_bytes()


def test_cn_and_ccbench_rows_score_too(tmp_path: Path) -> None:
    # The CN twins share indices with the EN rows, so each language is its own data file.
    # CCBench has no L2: its report has Overall and the L3 (category) columns only.
    for lang, bench, n in (("cn", "MMBench", 20), ("cn", "CCBench", 14)):
        out = tmp_path / f"{lang}-{bench}.tsv"
        assert (
            main(
                [
                    "mmbench-circular",
                    str(SAMPLES),
                    str(out),
                    "--select",
                    f"lang={lang}",
                    "--select",
                    f"benchmark={bench}",
                ]
            )
            == 0
        )
        rows = read_tsv(out)
        write_predictions(tmp_path / "p.tsv", {r["index"]: r["answer"] for r in rows})
        res = evaluate_mmbench(load_mmbench_tsv(out), load_predictions(tmp_path / "p.tsv"))
        assert res.counts["questions"] == n and res.score == 1.0
        (table,) = res.tables["circular"]
        if bench == "CCBench":
            assert not set(L2_ABBR.values()) & set(table)
        else:
            assert {k: table[k] for k in L2_SIZES} == dict.fromkeys(L2_SIZES, 1.0)
        assert res.table_counts["circular"][0]["Overall"] == n


def test_l2_sizes_follow_spec() -> None:
    plain = [r for r in read_tsv(SAMPLES) if r["lang"] == "en" and r["benchmark"] == "MMBench"]
    sizes: dict[str, int] = {}
    for r in plain:
        sizes[L2_ABBR[r["l2-category"]]] = sizes.get(L2_ABBR[r["l2-category"]], 0) + 1
    assert sizes == L2_SIZES
