"""MMMU's answer rules as pure functions: the official parsers, MMMU-Pro's, lmms-eval's copy.

Sources (spec ``mcq-reasoning.md`` §2–§3): ``MMMU-Benchmark/MMMU@bb0b95a``
``mmmu/utils/eval_utils.py`` (``parse_multi_choice_response``, ``parse_open_response``,
``eval_open``, ``calculate_ins_level_acc``), ``mmmu-pro/evaluate.py``, and lmms-eval@75571cf
``tasks/_task_utils/mmmu_mcq_utils.py`` + ``tasks/mmmu/utils.py``.

Randomness is explicit. Where a rule falls back to ``random.choice`` the functions take an
``rng`` (a :class:`random.Random`); without one they return :data:`RANDOM` and draw nothing.
The official module seeds the global generator once at import (``random.seed(42)``), and every
unparseable response consumes one draw in parse order, so ``random.Random(42)`` passed to every
call in that order reproduces the official letters (:func:`official_rng`).

Quirks kept (each is what produced published numbers):

* QUIRK space-letter-space: the official tier 2 wants a space on both sides of the letter
  (``B. dog`` reaches the random draw; lmms-eval's copy accepts ``B `` and ``B.``).
* QUIRK content-over-five-tokens: option texts are searched only in responses of more than
  five whitespace tokens, case-insensitively, as substrings (``I think it is a bird`` → C).
* QUIRK last-position-wins: several candidates → the one whose last occurrence is latest; a
  letter found by lmms-eval's ``X.`` tier is still located by `` X `` (not found: the first
  candidate wins, numpy ``argmax`` of ``-1``s).
* QUIRK open-is-inside-words: the open parser's ``is `` indicator matches inside words
  (``hepatitis b`` → tail ``b``), and its sentence split needs an upper-case letter the
  lower-cased text no longer has, so only newlines split.
* QUIRK round-2dp: numbers compare after ``round(x, 2)`` (binary: ``1.065`` → ``1.06``).
* QUIRK lmms-open-char-by-char (lmms-eval 736454b, 2025-06-23, until PR #1471, 2026-08-24):
  lmms-eval stores ``str(candidates[0])`` and ``eval_open`` iterates that string's characters,
  so every open question scores 0 (:func:`lmms_eval_open_correct`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ...core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ._registry import RANDOM, Lineage, register_lineage

__all__ = [
    "CAT_SHORT2LONG",
    "DOMAIN_CAT2SUB_CAT",
    "RANDOM",
    "MmmuAggregate",
    "aggregate_mmmu",
    "discipline_of",
    "eval_multi_choice",
    "eval_open",
    "lmms_eval_mmmu",
    "lmms_eval_open_correct",
    "mmmu_official",
    "mmmu_pro_official",
    "normalize_str",
    "official_open_correct",
    "official_rng",
    "parse_open_response",
    "subject_of",
]

#: the official seed, set once when ``eval_utils`` is imported
OFFICIAL_SEED: Final = 42

# MMMU-Benchmark/MMMU@bb0b95a mmmu/utils/data_utils.py: the order subjects are parsed and
# summed in (main_parse_and_eval.py / main_eval_only.py loop over these values)
CAT_SHORT2LONG: Final[Mapping[str, str]] = {
    "acc": "Accounting",
    "agri": "Agriculture",
    "arch": "Architecture_and_Engineering",
    "art": "Art",
    "art_theory": "Art_Theory",
    "bas_med": "Basic_Medical_Science",
    "bio": "Biology",
    "chem": "Chemistry",
    "cli_med": "Clinical_Medicine",
    "cs": "Computer_Science",
    "design": "Design",
    "diag_med": "Diagnostics_and_Laboratory_Medicine",
    "econ": "Economics",
    "elec": "Electronics",
    "ep": "Energy_and_Power",
    "fin": "Finance",
    "geo": "Geography",
    "his": "History",
    "liter": "Literature",
    "manage": "Manage",
    "mark": "Marketing",
    "mate": "Materials",
    "math": "Math",
    "mech": "Mechanical_Engineering",
    "music": "Music",
    "phar": "Pharmacy",
    "phys": "Physics",
    "psy": "Psychology",
    "pub_health": "Public_Health",
    "socio": "Sociology",
}

# the six disciplines ("domains") and their subjects, in the printed order
DOMAIN_CAT2SUB_CAT: Final[Mapping[str, tuple[str, ...]]] = {
    "Art and Design": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Health and Medicine": (
        "Basic_Medical_Science",
        "Clinical_Medicine",
        "Diagnostics_and_Laboratory_Medicine",
        "Pharmacy",
        "Public_Health",
    ),
    "Humanities and Social Science": ("History", "Literature", "Sociology", "Psychology"),
    "Tech and Engineering": (
        "Agriculture",
        "Architecture_and_Engineering",
        "Computer_Science",
        "Electronics",
        "Energy_and_Power",
        "Materials",
        "Mechanical_Engineering",
    ),
}

_DISCIPLINE = {s: d for d, subs in DOMAIN_CAT2SUB_CAT.items() for s in subs}
_EDGE = (",", ".", "!", "?", ";", ":", "'")


def official_rng(seed: int = OFFICIAL_SEED) -> random.Random:
    """A generator in the state the official module leaves the global one after import
    (``random.seed(42)``): consumed in parse order, it gives the official draws."""
    return random.Random(seed)


def subject_of(item_id: str) -> str:
    """The subject of an MMMU id: the id without its first and last ``_`` fields
    (``validation_Art_Theory_3`` → ``Art_Theory``), as ``main_eval_only.py`` groups."""
    return "_".join(item_id.split("_")[1:-1])


def discipline_of(subject: str) -> str | None:
    """The discipline (``Science``, …) of an official subject name; ``None`` if unknown."""
    return _DISCIPLINE.get(subject)


def _padded(response: str) -> str:
    for char in _EDGE:
        response = response.strip(char)
    return f" {response} "


def _last_wins(
    response: str, candidates: Sequence[str], needle: Mapping[str, str], lower: bool
) -> str:
    """numpy ``argmax`` over each candidate's last position: the first of the latest."""
    hay = response.lower() if lower else response
    positions = [hay.rfind(needle[c].lower() if lower else needle[c]) for c in candidates]
    return candidates[positions.index(max(positions))]


def _tiered(
    response: str,
    options: Mapping[str, str],
    rng: random.Random | None,
    letter_tiers: Sequence[str],
) -> str:
    """The MMMU tier cascade on an already padded *response*: ``(X)``, then each pattern of
    *letter_tiers* (``" {} "`` official; ``"{} "``, ``"{}."`` lmms-eval), then option texts in
    a response of more than five tokens, then ``rng.choice`` (or :data:`RANDOM`)."""
    choices = list(options)
    candidates = [c for c in choices if f"({c})" in response]
    bracket = bool(candidates)
    for pattern in letter_tiers:
        if candidates:
            break
        candidates = [c for c in choices if pattern.format(c) in response]
    content = False
    if not candidates and len(response.split()) > 5:
        candidates = [c for c, text in options.items() if text.lower() in response.lower()]
        content = bool(candidates)
    if not candidates:
        return RANDOM if rng is None else rng.choice(choices)
    if len(candidates) == 1:
        return candidates[0]
    if content:
        return _last_wins(response, candidates, options, lower=True)
    form = "({})" if bracket else " {} "
    return _last_wins(response, candidates, {c: form.format(c) for c in candidates}, False)


def mmmu_official(
    response: str, options: Mapping[str, str], rng: random.Random | None = None
) -> str:
    """MMMU's ``parse_multi_choice_response`` (spec §2.1): the letter, or :data:`RANDOM`.

    Strip ``, . ! ? ; : '`` from both ends (in that order) and pad with spaces; candidates are
    the letters in ``(X)``, else in `` X ``, else (more than 5 tokens) the options whose text
    occurs; the latest last occurrence wins; none → ``rng.choice(letters)``.
    *options* maps the letters (A, B, … in order) to the option texts.

    >>> opts = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}
    >>> mmmu_official("A dog is shown, answer C", opts)
    'C'
    >>> mmmu_official("B. dog", opts)
    'random'
    """
    return _tiered(_padded(response), options, rng, (" {} ",))


def lmms_eval_mmmu(
    response: str, options: Mapping[str, str], rng: random.Random | None = None
) -> str:
    """lmms-eval@75571cf ``parse_mmmu_multi_choice_response`` (spec §2.4): the official tiers
    with letter-then-space (no leading space) and then letter-then-``.``; so ``B. dog`` → B.
    Its fallback is the process's global ``random`` (unseeded by the module)."""
    return _tiered(_padded(response), options, rng, ("{} ", "{}."))


def mmmu_pro_official(
    response: str, options: Mapping[str, str], rng: random.Random | None = None
) -> str:
    """MMMU-Pro ``evaluate.py`` ``parse_multi_choice_response`` (spec §3): if exactly one
    letter occurs as a *substring* of the text after the last ``Answer:``, that letter; else
    lmms-eval's tiers. Its ``random.choice`` is unseeded: pass ``rng`` or get :data:`RANDOM`."""
    at = response.rfind("Answer:")
    if at != -1:
        tail = response[at + len("Answer:") :].strip()
        found = [c for c in options if c in tail]
        if len(found) == 1:
            return found[0]
    return _tiered(_padded(response), options, rng, ("{} ", "{}."))


# ----- open questions (spec §2.2) --------------------------------------------------------

_COMMAS = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_SCIENTIFIC = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
_SIMPLE = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")
_SPLIT = re.compile(r"\.\s(?=[A-Z])|\n")
_INDICATORS = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_TRIVIAL = (":", ",", ".", "!", "?", ";", "'")


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def normalize_str(text: str) -> list[str | float]:
    """MMMU's ``normalize_str``: a number (``float`` of the text without commas) becomes
    ``[round(x, 2)]``; other text is lower-cased, and one character ``x`` becomes
    ``[" x", "x "]`` so it only matches as a word."""
    text = text.strip()
    value = _number(text)
    if value is not None:
        return [round(value, 2)]
    text = text.lower()
    if len(text) == 1:
        return [" " + text, text + " "]
    return [text]


def _key_responses(response: str) -> list[str]:
    response = response.strip().strip(".").lower()
    pieces = _SPLIT.split(response)
    indicators = list(_INDICATORS)
    keys = []
    for index, piece in enumerate(pieces):
        if index == len(pieces) - 1:
            indicators.append("=")
        shortest: str | None = None
        for indicator in indicators:
            if indicator in piece:
                tail = piece.split(indicator)[-1].strip()
                if not shortest or len(tail) < len(shortest):
                    shortest = tail
        if shortest and shortest.strip() not in _TRIVIAL:
            keys.append(shortest)
    return keys or [response]


def parse_open_response(response: str) -> tuple[str | float, ...]:
    """MMMU's ``parse_open_response``: the candidate answers of an open response.

    The shortest tail after an indicator (``is ``, ``so ``, ``answer ``, …; ``=`` in the last
    piece) of each newline-separated piece, or the whole response; plus every number in them
    (thousands with commas, scientific, plain); each normalized (:func:`normalize_str`),
    duplicates removed. The official list comes from a ``set`` (hash order; it is never
    indexed there); here the first-seen order is kept, which decides no official score.
    """
    keys = _key_responses(response)
    texts = list(keys)
    for key in keys:
        texts += _COMMAS.findall(key) + _SCIENTIFIC.findall(key) + _SIMPLE.findall(key)
    out: list[str | float] = []
    for text in texts:
        out.extend(normalize_str(text))
    return tuple(dict.fromkeys(out))


def eval_open(gold: str | Sequence[str], preds: Iterable[str | float]) -> bool:
    """MMMU's ``eval_open``: a string candidate is right if a (normalized) string gold is a
    substring of it; a number candidate if it equals a normalized gold number."""
    golds: list[str | float] = []
    for answer in [gold] if isinstance(gold, str) else gold:
        golds.extend(normalize_str(answer))
    for pred in preds:
        if isinstance(pred, str):
            if any(isinstance(g, str) and g in pred for g in golds):
                return True
        elif pred in golds:
            return True
    return False


def eval_multi_choice(gold: str | Sequence[str], pred: str) -> bool:
    """MMMU's ``eval_multi_choice``: the parsed letter equals the gold (or one of a list)."""
    return pred == gold if isinstance(gold, str) else any(pred == g for g in gold)


def official_open_correct(response: str, gold: str | Sequence[str]) -> bool:
    """An open question under the official rule: ``eval_open(gold, parse_open(response))``.
    Also lmms-eval after PR #1471 (the whole candidate list kept)."""
    return eval_open(gold, parse_open_response(response))


def lmms_eval_open_correct(response: str, gold: str | Sequence[str]) -> bool:
    """An open question under lmms-eval 736454b … 75571cf (QUIRK lmms-open-char-by-char).

    ``mmmu_process_results`` keeps ``str(candidates[0])`` and ``evaluate_mmmu`` passes that
    string to ``eval_open``, which iterates its characters: no single character contains a
    normalized gold (two or more characters), so this is ``False`` for every non-empty gold.
    """
    parsed = parse_open_response(response)
    first = str(parsed[0]) if parsed else ""
    return eval_open(gold, first)  # a str is an iterable of one-character strings


# ----- aggregation (spec §2.3) -----------------------------------------------------------


@dataclass(frozen=True)
class MmmuAggregate:
    """Unrounded accuracies: per subject and discipline ``(acc, num)``, and overall."""

    subjects: Mapping[str, tuple[float, int]]
    disciplines: Mapping[str, tuple[float, int]]
    overall: tuple[float, int]


def _ins_level(results: Iterable[tuple[float, int]]) -> float:
    """``calculate_ins_level_acc``: ``Σ acc·num / Σ num`` (0 when empty), left to right."""
    acc = 0.0
    num = 0
    for a, n in results:
        acc += a * n
        num += n
    return 0 if num == 0 else acc / num


def aggregate_mmmu(
    outcomes: Iterable[tuple[str, bool]], *, subject_order: str = "official"
) -> MmmuAggregate:
    """MMMU's instance-weighted aggregation of ``(subject, correct)`` pairs.

    Subject accuracy = right / count; a discipline's = ``Σ acc·num / Σ num`` over its subjects
    present (``0`` for none, with num 0); overall the same over all subjects, summed in
    ``CAT_SHORT2LONG`` order (*subject_order* ``"official"``) or in first-seen order
    (``"first-seen"``: lmms-eval's ``defaultdict``). Nothing is rounded here.
    """
    counts: dict[str, list[int]] = {}
    for subject, correct in outcomes:
        c = counts.setdefault(subject, [0, 0])
        c[0] += int(bool(correct))
        c[1] += 1
    subjects = {s: (r / n, n) for s, (r, n) in counts.items()}
    if subject_order == "official":
        order = [s for s in CAT_SHORT2LONG.values() if s in subjects]
    else:
        order = list(subjects)
    disciplines = {}
    for domain, subs in DOMAIN_CAT2SUB_CAT.items():
        present = [subjects[s] for s in subs if s in subjects]
        disciplines[domain] = (_ins_level(present), sum(n for _, n in present))
    overall = [subjects[s] for s in order]
    return MmmuAggregate(
        {s: subjects[s] for s in order},
        disciplines,
        (_ins_level(overall), sum(n for _, n in overall)),
    )


for _name, _fn, _reproduces, _text, _seed in (
    (
        "mmmu_official",
        mmmu_official,
        "MMMU-Benchmark/MMMU@bb0b95a mmmu/utils/eval_utils.py parse_multi_choice_response",
        "(X), then space-X-space, then option text (>5 tokens), last wins; random.seed(42)",
        OFFICIAL_SEED,
    ),
    (
        "mmmu_pro_official",
        mmmu_pro_official,
        "MMMU-Benchmark/MMMU@bb0b95a mmmu-pro/evaluate.py parse_multi_choice_response",
        "one letter after the last 'Answer:', else lmms-eval's tiers; unseeded random",
        None,
    ),
    (
        "lmms_eval_mmmu",
        lmms_eval_mmmu,
        LMMS_EVAL_PIN.at("tasks/_task_utils/mmmu_mcq_utils.py parse_mmmu_multi_choice_response"),
        "(X), then 'X ', then 'X.', then option text (>5 tokens); unseeded random",
        None,
    ),
):
    register_lineage(Lineage(_name, _reproduces, _text, _fn, draws=True, seed=_seed))
