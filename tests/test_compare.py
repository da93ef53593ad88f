"""``vqametrics compare`` (issue 4, part 4): side-by-side scores, chance baselines and the
disagreement categories. Expected values are worked out by hand in the comments.

A-OKVQA has no verified data licence: the tests that use it read ``../shared/data`` and skip
when it is absent; the other A-OKVQA-schema tests use made-up items.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import InputError, evaluate_vqa
from vqametrics.analysis.compare import (
    AOKVQAItem,
    AOKVQAPrediction,
    compare_aokvqa,
    compare_vqa,
    load_aokvqa,
    load_aokvqa_predictions,
    match_choice,
)
from vqametrics.cli import main
from vqametrics.mmbench.circular import rotate_options

# --------------------------------------------------------------------------- multiple choice


def test_rotation_follows_the_circular_rule() -> None:
    # spec mmbench.md §1: 4 options with answer A -> the answer letter is A, D, C, B in passes 0-3
    choices = ["right", "w1", "w2", "w3"]
    letters = ["ABCD"[rotate_options(choices, k).index("right")] for k in range(4)]
    assert letters == ["A", "D", "C", "B"]
    # 3 options with answer B: B, A, C
    choices = ["w1", "right", "w2"]
    assert ["ABC"[rotate_options(choices, k).index("right")] for k in range(3)] == ["B", "A", "C"]


@pytest.mark.parametrize(
    ("text", "letters", "expected"),
    [
        ("cigarette", True, (3, "text")),
        ("The Cigarette.", False, (3, "normalized text")),
        ("D", True, (3, "letter")),
        ("D", False, (None, "unmatched")),  # a direct answer is never a letter
        ("The answer is D.", True, (3, "extracted")),
        ("popsicle stick or food", True, (None, "unmatched")),  # two option texts: ambiguous
        ("a cigar", False, (None, "unmatched")),
    ],
)
def test_resolve_choice(text: str, letters: bool, expected: tuple[int | None, str]) -> None:
    choices = ["toothpick", "food", "popsicle stick", "cigarette"]
    assert match_choice(text, choices, letters=letters) == expected


def test_letter_beats_an_option_that_reads_like_a_letter() -> None:
    # A-OKVQA val MdpQEymVqNWnxqPPxPXxvs has the options l, z, j, c
    assert match_choice("C", ["l", "z", "j", "c"]) == (2, "letter")
    assert match_choice("c", ["l", "z", "j", "c"]) == (3, "text")


# --------------------------------------------------------------------------- VQA-format data

# Four made-up questions, no types, official profile:
#   q1 answers cat x4, kitten x3, dog x3   pred 'kitten'  VQA 0.9  EM 0 any 1
#   q2 answers two x10                     pred '2'       VQA 0    EM 1 any 1  (unanimity rule)
#   q3 answers red x2, blue x8             pred 'red'     VQA 0.6  EM 0 any 1
#   q4 answers yes x10                     pred 'yes'     VQA 1    EM 1 any 1
# VQA 62.5, EM 50, EM-any 100. em0_vqa_pos {q1, q3}; em1_vqa_lt1 {q2};
# em_any1_vqa_lt09 {q2, q3}; em_any0_vqa_pos {}.
ANNOTATIONS = [
    {"question_id": 1, "answers": ["cat"] * 4 + ["kitten"] * 3 + ["dog"] * 3},
    {"question_id": 2, "answers": ["two"] * 10},
    {"question_id": 3, "answers": ["red"] * 2 + ["blue"] * 8},
    {"question_id": 4, "answers": ["yes"] * 10},
]
RESULTS = [
    {"question_id": 1, "answer": "kitten"},
    {"question_id": 2, "answer": "2"},
    {"question_id": 3, "answer": "red"},
    {"question_id": 4, "answer": "yes"},
]


@pytest.fixture
def vqa_files(tmp_path: Path) -> tuple[Path, Path]:
    a, r = tmp_path / "ann.json", tmp_path / "res.json"
    a.write_text(json.dumps(ANNOTATIONS))
    r.write_text(json.dumps(RESULTS))
    return a, r


def test_compare_vqa_by_hand(vqa_files: tuple[Path, Path]) -> None:
    c = compare_vqa(evaluate_vqa(*vqa_files), examples=1)
    assert c.metric("vqa").value == 62.5
    assert c.metric("em").value == 50.0
    assert c.metric("em_any").value == 100.0
    assert c.metric("mc_vanilla").value is None and c.metric("mc_circular").value is None
    assert "not computable" in (c.metric("mc_vanilla").note or "")
    got = {d.key: (d.count, [q.question_id for q in d.examples]) for d in c.disagreements}
    assert got == {
        "em0_vqa_pos": (2, [1]),
        "em1_vqa_lt1": (1, [2]),
        "em_any1_vqa_lt09": (2, [2]),
        "em_any0_vqa_pos": (0, []),
    }
    assert (
        c.signature.format()
        == "compare|profile:official|toolkit:vqaEval@a013f00|ref:majority|n:4|vqametrics:0.1.0"
    )


def test_empty_normalized_match_is_em_any0_vqa_pos() -> None:
    # VQA v2 val 407274003 (bundled sample): '?' normalizes to '' like the one answer '?', so
    # the official VQA accuracy counts m = 1 (0.3); EM and EM-any never match an empty string.
    ann = [{"question_id": 1, "answers": ["no"] * 9 + ["?"]}]
    c = compare_vqa(evaluate_vqa(ann, [{"question_id": 1, "answer": "?"}]), examples=1)
    assert round(c.metric("vqa").value, 2) == 30.0 and c.metric("em_any").value == 0.0
    d = {d.key: d for d in c.disagreements}["em_any0_vqa_pos"]
    assert d.count == 1 and "normalize to ''" in d.description


def test_compare_cli_table(
    vqa_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, r = vqa_files
    code = main(["compare", "--annotations", str(a), "--results", str(r), "--examples", "1"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{a}: 4 questions, profile official"
    assert lines[4].split()[:4] == ["VQA", "accuracy", "62.50", "4"]
    assert lines[5].split()[:3] == ["EM", "50.00", "4"]
    assert lines[6].split()[:3] == ["EM-any", "100.00", "4"]
    assert "  em1_vqa_lt1: 1 question(s)" in out
    assert "    2: prediction '2' | reference 'two' (10/10) | VQA 0.00 EM 1 EM-any 1" in out
    assert (
        lines[-1]
        == "compare|profile:official|toolkit:vqaEval@a013f00|ref:majority|n:4|vqametrics:0.1.0"
    )


def test_compare_cli_json(vqa_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, r = vqa_files
    code = main(["compare", "--annotations", str(a), "--results", str(r), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert list(payload["metrics"]) == ["vqa", "em", "em_any", "mc_vanilla", "mc_circular"]
    assert payload["metrics"]["em"]["value"] == 50.0
    first = payload["disagreements"][0]
    assert first["key"] == "em0_vqa_pos" and first["count"] == 2
    assert first["examples"][0] == {
        "question_id": 1,
        "prediction": "kitten",
        "reference": "cat",
        "reference_normalized": "cat",
        "reference_source": "majority",
        "reference_votes": 4,
        "answers": {"cat": 4, "kitten": 3, "dog": 3},
        "vqa": 0.9,
        "em": 0.0,
        "em_any": 1.0,
    }


def test_compare_cli_examples_zero(
    vqa_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, r = vqa_files
    main(["compare", "--annotations", str(a), "--results", str(r), "--examples", "0", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert all(d["examples"] == [] for d in payload["disagreements"])


# --------------------------------------------------------------------------- A-OKVQA schema

# Three made-up items (not A-OKVQA data), 4 options each, official profile.
ITEMS = [
    AOKVQAItem("q1", ("toothpick", "food", "popsicle stick", "cigarette"), 3, ("cigarette",) * 10),
    AOKVQAItem("q2", ("devil", "zombie", "vampire", "witch"), 0, ("horns",) * 4 + ("devil",) * 6),
    AOKVQAItem("q3", ("air", "water", "road", "road"), 2, ("road",) * 3 + ("street",) * 7),
]


def test_aokvqa_derived_mc_and_no_circular() -> None:
    # q1 'Cigarette' -> option 3 (normalized text), right; VQA 0 (unanimous 'cigarette', case)
    # q2 'horns' -> no option: wrong; VQA 1 (4 votes)  => vqa1_mc_wrong
    # q3 'road' -> option 2 by text (first copy), right; VQA 0.9
    preds = {
        "q1": AOKVQAPrediction("Cigarette"),
        "q2": AOKVQAPrediction("horns"),
        "q3": AOKVQAPrediction("road"),
    }
    c = compare_aokvqa(ITEMS, preds, examples=5)
    vanilla, circular = c.metric("mc_vanilla"), c.metric("mc_circular")
    assert (vanilla.value, vanilla.n, vanilla.chance) == (66.67, 3, 25.0)
    assert vanilla.note == "3 derived from answer; 1 matched no option (scored wrong)"
    assert circular.value is None and circular.chance == 0.39  # (1/4)^4 = 0.39%
    assert "not computable" in (circular.note or "")
    assert c.metric("vqa").value == round(100 * (0 + 1 + 0.9) / 3, 2)
    got = {d.key: [q.question_id for q in d.examples] for d in c.disagreements}
    assert got["vqa1_mc_wrong"] == ["q2"]
    assert got["vqa0_mc_right"] == ["q1"]
    assert "mc_right_circular_wrong" not in got
    assert any("repeat an option text" in n for n in c.notes)


def test_aokvqa_given_mc_and_rotations() -> None:
    # q1: rotations give the right letter each time: D, C, B, A   -> circular right
    # q2: 'A' in every rotation: right only in rotation 0        -> vanilla right, circular wrong
    # q3: no rotations                                           -> circular wrong (strict)
    preds = {
        "q1": AOKVQAPrediction("cigarette", None, ("D", "C", "B", "A")),
        "q2": AOKVQAPrediction("devil", None, ("A", "A", "A", "A")),
        "q3": AOKVQAPrediction("road", "B"),  # letter B = 'water': wrong
    }
    c = compare_aokvqa(ITEMS, preds)
    assert c.metric("mc_vanilla").value == 66.67
    assert c.metric("mc_vanilla").note == "2 rotation 0, 1 multiple_choice"
    assert c.metric("mc_circular").value == 33.33
    assert c.metric("mc_circular").note == (
        "1 question(s) without per-rotation answers scored wrong (strict)"
    )
    got = {d.key: [q.question_id for q in d.examples] for d in c.disagreements}
    assert got["mc_right_circular_wrong"] == ["q2"]
    assert "mc:rotations" in c.signature.format()


def test_aokvqa_duplicate_option_counts_by_text() -> None:
    # q3's correct option 'road' appears at 2 and 3: picking D is right, as allenai/aokvqa scores
    preds = {q.question_id: AOKVQAPrediction("x", "D") for q in ITEMS}
    c = compare_aokvqa(ITEMS, preds)
    assert [q.mc_correct for q in c.questions] == [True, False, True]


def test_aokvqa_bad_rotation_count() -> None:
    preds = {q.question_id: AOKVQAPrediction("x", None, ("A", "B")) for q in ITEMS}
    with pytest.raises(InputError, match=r"question 'q1': multiple_choice_rotations has 2"):
        compare_aokvqa(ITEMS, preds, predictions_source="p.json")


def _write(path: Path, obj: object) -> Path:
    path.write_text(json.dumps(obj))
    return path


def _items_json() -> list[dict[str, object]]:
    return [
        {
            "question_id": it.question_id,
            "choices": list(it.choices),
            "correct_choice_idx": it.correct_choice_idx,
            "direct_answers": list(it.direct_answers),
        }
        for it in ITEMS
    ]


def test_aokvqa_prediction_layouts(tmp_path: Path) -> None:
    listed = _write(
        tmp_path / "a.json",
        [{"question_id": "q1", "answer": "x", "multiple_choice": "food"}],
    )
    official = _write(
        tmp_path / "b.json", {"q1": {"direct_answer": "x", "multiple_choice": "food"}}
    )
    assert load_aokvqa_predictions(listed) == load_aokvqa_predictions(official)
    assert load_aokvqa_predictions(_write(tmp_path / "c.json", {"q1": "x"})) == {
        "q1": AOKVQAPrediction("x")
    }


def test_compare_cli_aokvqa(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "aok.json", _items_json())
    preds = _write(
        tmp_path / "p.json",
        {
            "q1": {"direct_answer": "cigarette", "multiple_choice": "cigarette"},
            "q2": {"direct_answer": "devil", "multiple_choice": "devil"},
            "q3": {"direct_answer": "street", "multiple_choice": "air"},
        },
    )
    code = main(["compare", "--aokvqa", str(data), "--results", str(preds)])
    out = capsys.readouterr().out
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("MC vanilla"))
    assert row.split()[2:6] == ["66.67", "3", "25.00", "3"]
    row = next(line for line in out.splitlines() if line.startswith("MC circular"))
    assert row.split()[2:6] == ["n/a", "0", "0.39", "not"]


@pytest.mark.parametrize(
    ("preds", "message"),
    [
        ([{"question_id": "q1"}], "p.json: question 'q1': 'answer' (or 'direct_answer') must be"),
        ({"q1": {"answer": "x", "multiple_choice": 2}}, "'multiple_choice' must be a string"),
        ([{"question_id": "q1", "answer": "x"}] * 2, "p.json: question 'q1': duplicate"),
        ({"q1": "x"}, "p.json: question 'q2': no prediction"),
        ({"q1": "x", "q2": "x", "q3": "x", "q9": "x"}, "p.json: question 'q9': prediction for"),
        (
            {"q1": {"answer": "x", "multiple_choice_rotations": ["A"]}, "q2": "x", "q3": "x"},
            "p.json: question 'q1': multiple_choice_rotations has 1 answers",
        ),
    ],
)
def test_compare_cli_bad_predictions_exit_2(
    tmp_path: Path, preds: object, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write(tmp_path / "aok.json", _items_json())
    p = _write(tmp_path / "p.json", preds)
    code = main(["compare", "--aokvqa", str(data), "--results", str(p)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert message in err.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(correct_choice_idx=4), "question 'q1': 'correct_choice_idx' must be"),
        (lambda r: r.update(choices=["only"]), "question 'q1': 'choices' must be a list"),
        (
            lambda r: r.update(choices=[f"o{i}" for i in range(26)]),
            "question 'q1': 'choices' must be a list of 2 to 25 strings",
        ),
        (lambda r: r.pop("direct_answers"), "question 'q1': 'direct_answers' must be"),
    ],
)
def test_compare_cli_bad_aokvqa_exit_2(
    tmp_path: Path, mutate: object, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _items_json()
    mutate(records[0])  # type: ignore[operator]
    data = _write(tmp_path / "aok.json", records)
    p = _write(tmp_path / "p.json", {"q1": "x", "q2": "x", "q3": "x"})
    code = main(["compare", "--aokvqa", str(data), "--results", str(p)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "aok.json" in err and message in err


def test_compare_cli_usage_errors(
    vqa_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, r = vqa_files
    for argv in (
        ["compare", "--annotations", str(a), "--aokvqa", str(a), "--results", str(r)],
        ["compare", "--annotations", str(a), "--results", str(r), "--examples", "-1"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    capsys.readouterr()
    # without --annotations the results must carry their ground truth (this one does not)
    assert main(["compare", "--results", str(r)]) == 2
    assert "carries no ground truth" in capsys.readouterr().err
    code = main(
        [
            "compare",
            "--annotations",
            str(tmp_missing := a.with_name("nope.json")),
            "--results",
            str(r),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err == f"vqametrics: error: {tmp_missing}: no such file\n"


# --------------------------------------------------------------------------- real A-OKVQA val


@pytest.fixture
def aokvqa_items(shared_data: Path) -> list[AOKVQAItem]:
    return load_aokvqa(shared_data / "aokvqa_val" / "aokvqa_v1p0_val.json")


@pytest.mark.shared
def test_real_aokvqa_loads(aokvqa_items: list[AOKVQAItem]) -> None:
    assert len(aokvqa_items) == 1145  # data README
    assert sum(it.difficult_direct_answer for it in aokvqa_items) == 70
    first = aokvqa_items[0]
    assert first.question_id == "22jbM6gDxdaMaunuzgrsBB"
    assert first.choices[first.correct_choice_idx] == "cigarette"


@pytest.mark.shared
def test_real_aokvqa_oracle_predictions(aokvqa_items: list[AOKVQAItem]) -> None:
    # The correct option's text as the direct answer and no MC field: every MC answer is
    # derived by exact text, so vanilla is 100; the right letter in each rotation (the correct
    # index a sits at label (a - k) mod 4 in copy k) gives circular 100.
    preds = {
        it.question_id: AOKVQAPrediction(
            it.choices[it.correct_choice_idx],
            None,
            tuple("ABCD"[(it.correct_choice_idx - k) % 4] for k in range(4)),
        )
        for it in aokvqa_items
    }
    c = compare_aokvqa(aokvqa_items, preds)
    assert c.metric("mc_vanilla").value == 100.0
    assert c.metric("mc_circular").value == 100.0
    assert (c.metric("mc_vanilla").chance, c.metric("mc_circular").chance) == (25.0, 0.39)
    # without rotations, circular is reported as not computable, never estimated
    single = {q: AOKVQAPrediction(p.answer) for q, p in preds.items()}
    c = compare_aokvqa(aokvqa_items, single)
    assert c.metric("mc_vanilla").value == 100.0
    assert c.metric("mc_circular").value is None
    first = c.questions[0]  # cigarette x10, predicted 'cigarette': all metrics agree
    assert (first.vqa, first.em, first.em_any, first.mc_correct) == (1.0, 1.0, 1.0, True)
