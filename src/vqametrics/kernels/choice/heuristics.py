"""VLMEvalKit's ``can_infer`` and lmms-eval's MMBench parser: which option letter a response names.

The letter heuristics MMBench's profiles use, and every VLMEvalKit multiple-choice task with
them (spec mmbench.md §0, §3.2; mcq-reasoning.md §14.4). Four lineages, registered by their
MMBench profile name (:func:`get_extractor`) and, as choice lineages, by the spec's case keys
(``vlmevalkit_can_infer``, ``vlmevalkit_can_infer_pre_a67ace5``, ``vlmevalkit_can_infer_2024``,
``lmms_eval_mmbench``):

=====================  ====================================================================
name                   reproduces
=====================  ====================================================================
``vlmevalkit``         VLMEvalKit HEAD ``e8e78f05`` (PR #1552 onward, Jun 2026-): the default
``vlmevalkit-2025``    VLMEvalKit ``c3371551`` (PR #1175, Aug 2025 - Jun 2026)
``vlmevalkit-2024``    VLMEvalKit ``c026693a`` (Dec 2023 - Jul 2025)
``lmms-eval``          lmms-eval ``75571cfe`` ``MMBench_Evaluator`` = OpenCompass 2023 script
=====================  ====================================================================

Every function here is pure: no I/O, no environment, the *choices* mapping is never mutated.
Reproduced quirks are marked ``QUIRK <name>:`` with the reason they are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ...core.exceptions import InputError, UnknownNameError
from ...core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ...core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ._registry import Lineage, register_lineage

__all__ = [
    "API_FAILURE",
    "DEFAULT_EXTRACTOR",
    "REFUSAL_PHRASES",
    "STAGES",
    "ExtractionResult",
    "Extractor",
    "explain_choice",
    "extract_choice",
    "get_extractor",
    "list_extractors",
]

#: The string the reference's API wrappers return when a call fails.
API_FAILURE = "Failed to obtain answer via API"

#: Refusal phrases that the VLMEvalKit lineages map to ``Z`` (spec §3.2, step 2).
REFUSAL_PHRASES = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)

#: Heuristic stages an :class:`ExtractionResult` can report.
STAGES = (
    "option_letter",
    "answer_is_regex",
    "option_text",
    "refusal_phrase",
    "standalone_Z",
    "none",
)

DEFAULT_EXTRACTOR = "vlmevalkit"

# VLMEvalKit replaces each of these characters with a space before splitting into tokens.
_PUNCT_TO_SPACE = str.maketrans(dict.fromkeys(".()[],:;!*#{}", " "))

# QUIRK answer-is-regex: HEAD's last letter-stage step. It is case-insensitive and its letter
# is read upper-cased, with no word boundary: "the answer is a 14 cm rod" yields A and "the
# answer is Dog" yields D (spec mcq-reasoning §14.4; cases mmmu_open/answer-is-a-number).
# Kept because HEAD scores that way.
_ANSWER_IS = re.compile(r"(?:correct\s+)?answer\s+is\s+\**([ABCD])\**", re.IGNORECASE)

# Gen1 (OpenCompass 2023 / lmms-eval): prefix/suffix wrappers tried around a letter, in order.
_GEN1_WRAPPERS = (
    ("", "."),
    ("", ","),
    ("", ":"),
    ("", ")"),
    ("", ")."),
    ("(", ")"),
    ("(", ")."),
    (":", ""),
    (":", ","),
    (":", "."),
    (":", ")"),
    (":", ")."),
)
# QUIRK gen1-letters: gen1 always considers A-E, whatever options the item has, so "E" on a
# 4-option item or "D" on a 3-option item is extracted (and then scored wrong).
_GEN1_LETTERS = "ABCDE"


@dataclass(frozen=True)
class ExtractionResult:
    """The letter a prediction was mapped to and the stage that decided it.

    Attributes
    ----------
    letter:
        An option letter, ``"Z"`` (refusal or a bare ``Z``: a miss), or ``None`` when the
        heuristics cannot decide (the reference then asks its LLM judge).
    stage:
        One of :data:`STAGES`; ``"none"`` when ``letter`` is ``None``.
    """

    letter: str | None
    stage: str


_NONE = ExtractionResult(None, "none")


@dataclass(frozen=True)
class Extractor:
    """One registered lineage of the reference heuristics.

    Attributes
    ----------
    name:
        Registry name, used in the signature (``extractor:<name>``).
    reproduces:
        The reference code (repository @ commit) whose output it matches.
    period:
        When the reference used it.
    description:
        What distinguishes it from the previous lineage.
    none_letter:
        The letter the judge prompt asks for when no option matches: ``Z`` for VLMEvalKit,
        ``E`` for the 2023 template that gen1 still parses (spec §3.3, History).
    """

    name: str
    reproduces: str
    period: str
    description: str
    none_letter: str
    _fn: Callable[[str, Mapping[str, str]], ExtractionResult]

    def __call__(self, prediction: str, choices: Mapping[str, str]) -> ExtractionResult:
        return self._fn(prediction, choices)


def _text_stage(text: str, choices: Mapping[str, str], length_cap: bool) -> ExtractionResult:
    """``can_infer_text``: exactly one option text is a substring of the lower-cased answer."""
    low = text.lower()
    values = {k: v.lower() for k, v in choices.items()}
    # QUIRK text-length-cap (2025-08 onward): an answer longer than twice the total option
    # text is not matched by text at all ("There are 3 apples" fails, 2024 gave B).
    if length_cap and len(low) > 2 * sum(len(v) for v in values.values()):
        return _NONE
    # QUIRK substring-match: crude containment of the option text in the answer, so option
    # "3" matches the answer "13", and an empty cell read as "nan" (reference-compatible mode)
    # matches an option "NaN", "an" or "n". Kept: it is how every lineage scores.
    hits = [k for k, v in values.items() if v in low]
    if len(hits) == 1:
        return ExtractionResult(hits[0], "option_text")
    return _NONE


def _vlmevalkit_letters(
    text: str, letters: list[str], *, last4: bool, answer_regex: bool
) -> ExtractionResult:
    """``can_infer_option`` of the VLMEvalKit lineages."""
    # QUIRK api-failure: an answer that contains the API failure marker never yields a letter,
    # though the text stage still runs on it.
    if API_FAILURE in text:
        return _NONE
    # QUIRK refusal-first: refusal phrases are checked before letters, so "...without the
    # image provided, I would guess A" is Z.
    for phrase in REFUSAL_PHRASES:
        if phrase in text:
            return ExtractionResult("Z", "refusal_phrase")
    tokens = text.translate(_PUNCT_TO_SPACE).split()
    # Case-sensitive whole-token match: "b" never counts.
    found = [c for c in letters if c in tokens]
    if len(found) == 1:
        letter = found[0]
        # QUIRK last-4-tokens (2025-08 onward): a lone letter counts only when its first
        # occurrence is among the last 4 tokens; "A dog is lying on the sofa." is not A.
        if not last4 or tokens.index(letter) > len(tokens) - 5:
            return ExtractionResult(letter, "option_letter")
    elif not found and "Z" in tokens:
        return ExtractionResult("Z", "standalone_Z")
    # QUIRK verbose-env: the reference also fails a lone "A" among more than 3 tokens whenever
    # the environment variable VERBOSE is set to any value (even "0"). Deliberately NOT copied:
    # a score must not depend on a logging switch. We behave as with VERBOSE unset.
    if answer_regex:
        m = _ANSWER_IS.search(text)
        if m is not None and m.group(1).upper() in letters:
            return ExtractionResult(m.group(1).upper(), "answer_is_regex")
    return _NONE


def _make_vlmevalkit(
    *, last4: bool, length_cap: bool, answer_regex: bool
) -> Callable[[str, Mapping[str, str]], ExtractionResult]:
    def extract(prediction: str, choices: Mapping[str, str]) -> ExtractionResult:
        text = str(prediction)
        res = _vlmevalkit_letters(text, list(choices), last4=last4, answer_regex=answer_regex)
        if res.letter is not None:
            return res
        return _text_stage(text, choices, length_cap)

    return extract


def _gen1(prediction: str, choices: Mapping[str, str]) -> ExtractionResult:
    """OpenCompass 2023 ``can_infer`` as ported to lmms-eval (spec §3.2, gen1 differences)."""
    text = str(prediction)
    if API_FAILURE not in text:
        # QUIRK gen1-whitespace: no punctuation stripping; "[D]" and "answer:C" fail.
        tokens = text.split()
        bare = [c for c in _GEN1_LETTERS if c in tokens]
        # QUIRK gen1-quantifier: always on (the reference logs "A might be a quantifier"):
        # a bare "A" among more than 3 tokens skips the bare-letter path.
        if len(bare) == 1 and not ("A" in tokens and len(tokens) > 3):
            return ExtractionResult(bare[0], "option_letter")
        for prefix, suffix in _GEN1_WRAPPERS:
            wrapped = [c for c in _GEN1_LETTERS if prefix + c + suffix in tokens]
            if len(wrapped) == 1:
                return ExtractionResult(wrapped[0], "option_letter")
    # QUIRK gen1-no-z: no refusal phrases and no standalone Z.
    return _text_stage(text, choices, length_cap=False)


_EXTRACTORS: dict[str, Extractor] = {
    e.name: e
    for e in (
        Extractor(
            name="vlmevalkit",
            reproduces=VLMEVALKIT_PIN.at("(HEAD, PR #1552)"),
            period="Jun 2026 onward",
            description="2025 rules plus an 'answer is X' regex as the last letter step",
            none_letter="Z",
            _fn=_make_vlmevalkit(last4=True, length_cap=True, answer_regex=True),
        ),
        Extractor(
            name="vlmevalkit-2025",
            reproduces="open-compass/VLMEvalKit@c3371551 (PR #1175)",
            period="Aug 2025 - Jun 2026",
            description="a lone letter must be among the last 4 tokens; text match length cap",
            none_letter="Z",
            _fn=_make_vlmevalkit(last4=True, length_cap=True, answer_regex=False),
        ),
        Extractor(
            name="vlmevalkit-2024",
            reproduces="open-compass/VLMEvalKit@c026693a",
            period="Dec 2023 - Jul 2025",
            description="punctuation stripped; item letters only; refusal phrases and Z",
            none_letter="Z",
            _fn=_make_vlmevalkit(last4=False, length_cap=False, answer_regex=False),
        ),
        Extractor(
            name="lmms-eval",
            reproduces=LMMS_EVAL_PIN.at("(OpenCompass 2023 eval_mmbench.py)"),
            period="Aug 2023 onward (lmms-eval MMBench_Evaluator)",
            description="whitespace split, fixed wrapper list, letters A-E always, no Z",
            none_letter="E",
            _fn=_gen1,
        ),
    )
}


def list_extractors() -> list[Extractor]:
    """The registered extractors, the default (``vlmevalkit``) first.

    Returns
    -------
    list of Extractor
        Newest lineage first.
    """
    return list(_EXTRACTORS.values())


def get_extractor(name: str) -> Extractor:
    """Look an extractor up by name.

    Raises
    ------
    UnknownNameError
        *name* is not registered; the message lists the valid names.
    """
    try:
        return _EXTRACTORS[name]
    except KeyError:
        valid = ", ".join(_EXTRACTORS)
        raise UnknownNameError(f"unknown MMBench extractor {name!r}; valid: {valid}") from None


def _check_choices(choices: Mapping[str, str]) -> None:
    for key in choices:
        if not (isinstance(key, str) and len(key) == 1 and "A" <= key <= "Y"):
            raise InputError(f"choices: keys must be single letters A-Y, got {key!r}")
        if not isinstance(choices[key], str):
            raise InputError(f"choices: option {key} must be a string, got {choices[key]!r}")


def explain_choice(
    prediction: str, choices: Mapping[str, str], extractor: str = DEFAULT_EXTRACTOR
) -> ExtractionResult:
    """Map a free-form prediction to an option letter and report the deciding stage.

    The reference's ``can_infer``: a letter stage (option letters as whole tokens, refusal
    phrases, a bare ``Z`` and, in HEAD, an "answer is X" regex), then an option-text stage
    (exactly one option text is a substring of the lower-cased prediction). The first stage
    that decides wins. Spec: mmbench.md §3.2.

    Parameters
    ----------
    prediction : str
        The model's raw output for one row.
    choices : Mapping[str, str]
        Option letter -> option text for this row (only non-empty options). Not mutated.
    extractor : str, default="vlmevalkit"
        A name from :func:`list_extractors`.

    Returns
    -------
    ExtractionResult
        ``letter`` is an option letter, ``"Z"`` or ``None``; ``stage`` names the step that
        decided (``"none"`` when undecided). The ``lmms-eval`` lineage may also return a
        letter from A-E that is not an option of the item (it is then scored wrong).

    Raises
    ------
    UnknownNameError
        Unknown *extractor*.
    InputError
        A key of *choices* is not a single upper-case letter, or an option is not a string.

    Notes
    -----
    The reference also fails a lone ``A`` among more than 3 tokens when the environment
    variable ``VERBOSE`` is set to any value, even ``"0"``. That dependence on a logging switch
    is deliberately not reproduced: we always behave as with ``VERBOSE`` unset.
    """
    ext = get_extractor(extractor)
    _check_choices(choices)
    return ext(prediction, choices)


def extract_choice(
    prediction: str, choices: Mapping[str, str], extractor: str = DEFAULT_EXTRACTOR
) -> str | None:
    """Map a free-form prediction to an option letter (the reference heuristics only).

    Same as :func:`explain_choice` but returns only the letter.

    Parameters
    ----------
    prediction : str
        The model's raw output for one row.
    choices : Mapping[str, str]
        Option letter -> option text (only non-empty options).
    extractor : str, default="vlmevalkit"
        ``vlmevalkit`` (HEAD), ``vlmevalkit-2025``, ``vlmevalkit-2024`` or ``lmms-eval``.

    Returns
    -------
    str or None
        The option letter; ``"Z"`` for a refusal or a bare ``Z``; ``None`` where the
        reference falls through to its LLM judge.

    Examples
    --------
    >>> choices = {"A": "teddy bear", "B": "rabbit", "C": "cat", "D": "dog"}
    >>> extract_choice("The answer is B.", choices)
    'B'
    >>> extract_choice("A dog is lying on the sofa.", choices)
    'D'
    >>> extract_choice("A dog is lying on the sofa.", choices, extractor="vlmevalkit-2024")
    'A'
    >>> extract_choice("A or B", choices) is None
    True
    """
    return explain_choice(prediction, choices, extractor).letter


def _lineage_fn(name: str) -> Callable[[str, Mapping[str, str]], str | None]:
    ext = _EXTRACTORS[name]

    def fn(response: str, choices: Mapping[str, str]) -> str | None:
        return ext(response, choices).letter

    return fn


def _register() -> None:
    for key, mmbench_name in (
        ("vlmevalkit_can_infer", "vlmevalkit"),
        ("vlmevalkit_can_infer_pre_a67ace5", "vlmevalkit-2025"),
        ("vlmevalkit_can_infer_2024", "vlmevalkit-2024"),
        ("lmms_eval_mmbench", "lmms-eval"),
    ):
        ext = _EXTRACTORS[mmbench_name]
        register_lineage(
            Lineage(
                name=key,
                reproduces=ext.reproduces,
                description=f"{ext.description} ({ext.period})",
                fn=_lineage_fn(mmbench_name),
            )
        )


_register()
