"""The peer profiles: how other toolkits score one VQA answer, reproduced bit for bit.

Each profile here reproduces the per-question score of one toolkit at one pinned version, so
that a user can see why the same predictions score differently across toolkits
(spec: peer-profiles.md; the rules per profile are summarized in its §7.1). The building blocks
live in one module per toolkit under :mod:`vqametrics.normalize`, each quirk named there.

Importing this module registers ``evalai-2017``, ``lmms-eval-vqav2``, ``lmms-eval-textvqa``,
``vlmevalkit`` and ``evalscope`` (``vqametrics.profiles`` imports it after the official ones).

Not reproduced, because they are not part of a per-question score value:

* lmms-eval returns the Python ``int`` 1 when every leave-one-out value is 1 and VLMEvalKit a
  ``numpy.float64``; vqametrics always returns a ``float`` (equal with ``==``).
* The in-place mutation of the ground truth (official, lmms-eval) and the EvalAI 2017 server's
  chunked aggregation (rounded chunk means, peer-profiles §3) are not copied.
"""

from __future__ import annotations

from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..normalize import evalai2017 as _evalai
from ..normalize import evalscope as _es
from ..normalize import lmms_eval as _lmms
from ..normalize import official as _off
from ..normalize import vlmevalkit as _vlm
from ._profile import LeaveOneOut, Mean, Profile, Step, register_profile

__all__ = [
    "ES_EXTRACT_STEP",
    "ES_NORM_STEPS",
    "EVALAI_2017",
    "EVALAI_PREP_STEPS",
    "EVALSCOPE",
    "LMMS_EVAL_TEXTVQA",
    "LMMS_EVAL_VQAV2",
    "PUNCT_2017_STEP",
    "PUNCT_LMMS_STEP",
    "PUNCT_VLM_STEP",
    "VLMEVALKIT",
]

_CLEAN = Step("cleanup", _off.clean)
_DIGART = (
    Step("lowercase", _off.lowercase),
    Step("number words", _off.number_words),
    Step("articles", _off.articles),
    Step("contractions", _off.contractions),
)

#: ``PUNCT_2017`` as a step (unconditional; the answer side uses a conditional copy).
PUNCT_2017_STEP = Step("punctuation", _evalai.punctuation_2017)

EVALAI_2017 = register_profile(
    Profile(
        name="evalai-2017",
        description="The EvalAI server of the 2017 VQA challenge: like official-2017 (prediction "
        "always normalized, answers punctuation only unless unanimous) with a regex-based "
        "punctuation step.",
        reproduces="EvalAI 2017 VQA challenge (Cloud-CV/VQA-Challenge@35c7703)",
        toolkit="VQA-Challenge@35c7703",
        prediction_steps=(_CLEAN, PUNCT_2017_STEP, *_DIGART),
        answer_steps=(Step("punctuation", _evalai.punctuation_2017, conditional=True),),
        unanimity_rule=True,
        leave_one_out="records",
        mean="naive",
    )
)


def _same_steps_both_sides(
    name: str,
    description: str,
    reproduces: str,
    toolkit: str,
    steps: tuple[Step, ...],
    *,
    leave_one_out: LeaveOneOut,
    mean: Mean,
) -> Profile:
    """A toolkit that runs the same steps, always, on the prediction and on every answer (no
    unanimity rule), registered."""
    return register_profile(
        Profile(
            name=name,
            description=description,
            reproduces=reproduces,
            toolkit=toolkit,
            prediction_steps=steps,
            answer_steps=steps,
            unanimity_rule=False,
            leave_one_out=leave_one_out,
            mean=mean,
        )
    )


#: ``PUNCT_lmms`` as a step.
PUNCT_LMMS_STEP = Step("punctuation", _lmms.punctuation_lmms)
_LMMS_EVAL = f"lmms-eval {LMMS_EVAL_PIN.release} ({LMMS_EVAL_PIN.at()})"

LMMS_EVAL_VQAV2 = _same_steps_both_sides(
    "lmms-eval-vqav2",
    "lmms-eval's VQAv2 task: official steps always on both sides (no unanimity rule), "
    "leave-one-out by record inequality, exact mean.",
    _LMMS_EVAL,
    LMMS_EVAL_PIN.token,
    (_CLEAN, PUNCT_LMMS_STEP, *_DIGART),
    leave_one_out="records",
    mean="exact",
)

#: ``EVALAI_PREP`` as four traced steps.
EVALAI_PREP_STEPS = (
    Step("lowercase first", _lmms.lowercase_first),
    Step("commas and question marks", _lmms.drop_commas_question_marks),
    Step("possessive 's", _lmms.split_possessive),
    Step("cleanup", _lmms.prep_cleanup),
)

LMMS_EVAL_TEXTVQA = _same_steps_both_sides(
    "lmms-eval-textvqa",
    "lmms-eval's TextVQA, VizWiz and OK-VQA tasks: the EvalAI answer processor (lowercase, "
    "drop , and ?, split 's) then official steps on both sides; leave-one-out by position, "
    "exact mean.",
    _LMMS_EVAL,
    LMMS_EVAL_PIN.token,
    (*EVALAI_PREP_STEPS, PUNCT_LMMS_STEP, *_DIGART),
    leave_one_out="position",
    mean="exact",
)

#: ``PUNCT_vlm`` as a step.
PUNCT_VLM_STEP = Step("punctuation", _vlm.punctuation_vlm)

VLMEVALKIT = _same_steps_both_sides(
    "vlmevalkit",
    "VLMEvalKit's VQA heuristic: official steps always on both sides with a corrected period "
    "rule (2. keeps its period); leave-one-out by position, numpy mean.",
    f"VLMEvalKit ({VLMEVALKIT_PIN.at()}, 2025)",
    VLMEVALKIT_PIN.token,
    (_CLEAN, PUNCT_VLM_STEP, *_DIGART),
    leave_one_out="position",
    mean="numpy",
)

#: ``ES_NORM`` as five traced steps.
ES_NORM_STEPS = (
    Step("lowercase", _es.lowercase_cleanup),
    Step("digit commas", _es.digit_commas),
    Step("punctuation", _es.punctuation_es),
    Step("number words", _off.number_words),
    Step("articles", _off.articles),
)

#: ``ES_EXTRACT`` as a step (prediction only).
ES_EXTRACT_STEP = Step("answer: extraction", _es.extract_answer)

EVALSCOPE = register_profile(
    Profile(
        name="evalscope",
        description="EvalScope's vqav2 benchmark: last 'ANSWER:' line extracted, own normalizer "
        "(no contractions), no leave-one-out: min(1, m/3); an empty prediction scores 0.",
        reproduces="EvalScope (modelscope/evalscope@fde259d)",
        toolkit="evalscope@fde259d",
        prediction_steps=(ES_EXTRACT_STEP, *ES_NORM_STEPS),
        answer_steps=ES_NORM_STEPS,
        unanimity_rule=False,
        leave_one_out="none",
        mean="naive",
        empty_prediction_scores_zero=True,
    )
)
