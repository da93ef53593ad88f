"""The profiles of the official VQA script (today's and the pre-2021 one) and the textbook
metric; ``official`` is registered first, so it leads every listing."""

from __future__ import annotations

from ..normalize import official as _off
from ..normalize.simple import simple as _simple
from ._profile import Profile, Step, register_profile

__all__ = ["OFFICIAL", "OFFICIAL_2017", "SIMPLE"]

_CLEAN = Step("cleanup", _off.clean)
_DIGART = (
    Step("lowercase", _off.lowercase, conditional=True),
    Step("number words", _off.number_words, conditional=True),
    Step("articles", _off.articles, conditional=True),
    Step("contractions", _off.contractions, conditional=True),
)
_OFF_PUNCT = Step("punctuation", _off.punctuation, conditional=True)

OFFICIAL = register_profile(
    Profile(
        name="official",
        description="The official VQA script as it is today: full normalization unless the "
        "answers are unanimous, leave-one-out over answer records.",
        reproduces="GT-Vision-Lab/VQA@a013f00 (2021)",
        toolkit="vqaEval@a013f00",
        prediction_steps=(_CLEAN, _OFF_PUNCT, *_DIGART),
        answer_steps=(_CLEAN, _OFF_PUNCT, *_DIGART),
        unanimity_rule=True,
        leave_one_out="records",
        mean="naive",
    )
)

OFFICIAL_2017 = register_profile(
    Profile(
        name="official-2017",
        description="The official script before 2021 (Cloud-CV/VQA-Evaluation, LAVIS): the "
        "prediction is always normalized, answers get punctuation only, unless unanimous.",
        reproduces="GT-Vision-Lab/VQA@a4f1afd (2017)",
        toolkit="vqaEval@a4f1afd",
        prediction_steps=(
            _CLEAN,
            Step("punctuation", _off.punctuation),
            *(Step(s.name, s.fn) for s in _DIGART),
        ),
        answer_steps=(_OFF_PUNCT,),
        unanimity_rule=True,
        leave_one_out="records",
        mean="naive",
    )
)

SIMPLE = register_profile(
    Profile(
        name="simple",
        description="The textbook metric: lowercase, [a-z0-9'] tokens, no articles, number "
        "words to digits; min(1, m/3) with no leave-one-out.",
        reproduces="textbook (Antol et al., 2015, eq. 1)",
        toolkit="textbook",
        prediction_steps=(Step("simple", _simple),),
        answer_steps=(Step("simple", _simple),),
        unanimity_rule=False,
        leave_one_out="none",
        mean="naive",
    )
)
