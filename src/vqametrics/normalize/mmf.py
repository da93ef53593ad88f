"""MMF's ``EvalAIAnswerProcessor`` (facebookresearch/mmf @ b0ffc7f, ``m4c_evaluators.py``).

The answer processor of the M4C TextVQA evaluator, which M4C, LLaVA (a verbatim copy) and
lmms-eval (a byte-identical class) score TextVQA with; it "processes an answer similar to Eval
AI" (spec vqa-family §2.2). It runs on **both** sides, always:

1. the prelude: ``lower()``; delete every ``,`` and ``?``; ``'s`` → `` 's``; ``strip()``; then
   the official whitespace cleanup (the four sub-steps of :mod:`vqametrics.normalize.lmms_eval`,
   which is the same class);
2. the official ``processPunctuation`` with MMF's comma trigger ``(?<=\\d)(,)+(?=\\d)``;
3. the official ``processDigitArticle`` (:func:`vqametrics.normalize.official.digits_articles`,
   the post-2016 straight-apostrophe contraction table).

Quirks kept on purpose, because the TextVQA numbers everyone publishes were computed with them:

* QUIRK commas-vanish-first: commas are deleted before the punctuation step, so its comma
  trigger can never fire and ``red,white`` becomes ``redwhite`` (scores 0 against ``red white``)
  and ``1,000-2,000`` becomes ``1000 2000``.
* QUIRK question-mark-deleted: ``a?b`` → ``ab`` (vqaEval.py and VLMEvalKit space it).
* QUIRK possessive-split: ``man's`` → ``man 's``, so ``man 's`` matches ``man's``; and it collides
  with the contraction table: the answer ``what's`` becomes ``what 's`` while the prediction
  ``whats`` becomes ``what's``, so they never meet (score 0 both ways).
* QUIRK malformed-lookbehind and QUIRK period-limit-32 (:mod:`vqametrics.normalize.official`):
  ``2.`` → ``2``; at most 32 periods removed.
* Not copied: the class-level ``NUMBER_MAP.setdefault`` that grows with every token seen; it
  never changes a result.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lmms_eval import drop_commas_question_marks, lowercase_first, prep_cleanup, split_possessive
from .official import PERIOD_STRIP, digits_articles, make_punctuation

__all__ = ["MMF_COMMA_STRIP", "evalai_answer_processor", "prelude", "punctuation_mmf"]

#: ``EvalAIAnswerProcessor.COMMA_STRIP``: one or more commas between two digits (never fires
#: after the prelude, which has deleted every comma).
MMF_COMMA_STRIP: re.Pattern[str] = re.compile(r"(?<=\d)(\,)+(?=\d)")

#: ``EvalAIAnswerProcessor.process_punctuation``: the official step with MMF's trigger.
punctuation_mmf = make_punctuation(MMF_COMMA_STRIP, PERIOD_STRIP)


def prelude(text: str) -> str:
    """The start of ``__call__``: lower, delete ``,`` and ``?``, split ``'s``, strip, clean."""
    return prep_cleanup(split_possessive(drop_commas_question_marks(lowercase_first(text))))


@lru_cache(maxsize=1 << 16)
def evalai_answer_processor(text: str) -> str:
    """``EvalAIAnswerProcessor()(text)``: prelude, punctuation, digits/articles/contractions.

    >>> evalai_answer_processor("Yes.")
    'yes'
    >>> evalai_answer_processor("red,white")
    'redwhite'
    >>> evalai_answer_processor("What's")
    "what 's"
    """
    return digits_articles(punctuation_mmf(prelude(text)))
