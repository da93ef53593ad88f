"""MMF's ``EvalAIAnswerProcessor`` (facebookresearch/mmf @ b0ffc7f, ``m4c_evaluators.py``).

The answer processor of the M4C TextVQA evaluator, which M4C, LLaVA (a verbatim copy) and
lmms-eval (a byte-identical class) score TextVQA with; it "processes an answer similar to Eval
AI" (spec vqa-family §2.2). It runs on **both** sides, always.
lmms-eval ships the class byte for byte, so steps 1 and 2 are
:func:`vqametrics.normalize.lmms_eval.evalai_prep` and
:func:`~vqametrics.normalize.lmms_eval.punctuation_lmms`, not a second copy:

1. the prelude: ``lower()``; delete every ``,`` and ``?``; ``'s`` → `` 's``; ``strip()``; then
   the official whitespace cleanup;
2. the official ``processPunctuation`` with the comma trigger ``(?<=\\d)(,)+(?=\\d)``;
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

from functools import lru_cache

from .lmms_eval import evalai_prep, punctuation_lmms
from .official import digits_articles

__all__ = ["evalai_answer_processor"]


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
    return digits_articles(punctuation_lmms(evalai_prep(text)))
