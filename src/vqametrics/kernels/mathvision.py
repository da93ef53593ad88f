r"""MathVision (MATH-V): the official answer extraction and ``is_equal``, and VLMEvalKit's check.

Official (``mathllm/MATH-V@a1f5cc3 evaluation/evaluate.py`` + ``evaluation/utils.py``; spec
``mcq-reasoning.md`` §10), per problem with gold letter-or-value ``g`` and options ``o``:

.. code-block:: text

    a       = model_answer(response)        # letter patterns, "is <number>", answer flags,
                                            # \boxed{}, then find_math_answer (lower-cased)
    correct = is_equal(g, a) or is_equal(o[g], a)        # o[g]: the option's text, or ""
    is_equal(x, y): lower both; an empty side -> False; equal after strip -> True;
                    tuples evaluated element-wise; else round(value(x), 2) == round(value(y), 2)

so ``3.14159`` is ``3.14``, ``2\pi`` is ``6.28`` and ``3.46`` is ``2\sqrt{3}``.

VLMEvalKit (``VLMEvalKit@e8e78f0 vlmeval/dataset/utils/mathv.py post_check``) compares the
judge's ``res``: with options, ``can_infer(res)`` must give the gold letter; otherwise equal
strings, or Python-``eval`` values within ``1e-6``, or LaTeX values within ``1e-6``: the three
answers above are wrong there.

The LaTeX values come from :func:`~vqametrics.kernels.latex_value.latex_value` (a reimplementation
of what ``eval(str(latex2sympy(s)))`` returns for the answers these scorers meet; no sympy).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..core.exceptions import InputError
from .latex_value import as_python_number, latex_value

__all__ = [
    "find_math_answer",
    "official_correct",
    "official_is_equal",
    "official_model_answer",
    "vlmevalkit_is_equal",
    "vlmevalkit_post_check",
    "vlmevalkit_prefetch",
]

_FLAGS = ("the final answer is", "the answer is", "the correct answer is", "the answer should be")
_BOXED = re.compile(r"oxed{(.*)}", flags=re.S)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def official_model_answer(response: str) -> str:
    """``evaluate.py``'s extraction of the answer from the response (``model_answer``)."""
    answer = response.strip()
    for c in "ABCDE":
        # QUIRK letter-patterns: only " C." / " (C)." at the end and "C\n" / "(C)\n" /
        # "(C) C\n" at the start make a bare letter; a lone "C" passes through unchanged
        if (
            answer.endswith(f" {c}.")
            or answer.endswith(f" ({c}).")
            or answer.startswith(f"{c}\n")
            or answer.startswith(f"({c})\n")
            or answer.startswith(f"({c}) {c}\n")
        ):
            answer = c
    tail = answer.split("is ")[-1].rstrip(".")
    if _is_number(tail):
        # QUIRK is-number: the text after the LAST "is " (even inside a word, "this ") wins
        # when Python's float() reads it
        answer = tail
    if "oxed{" not in answer:
        for flag in _FLAGS:
            for spelled in (flag, flag.replace("the", "The")):
                raw = answer
                answer = answer.split(spelled)[-1].strip()
                if spelled in raw:
                    answer = answer.split("\n")[0].split(". ")[0]
    elif answer.count("oxed{") > 1:
        answer = "\\boxed{" + answer.split("oxed{")[-1]
    answer = find_math_answer(answer)
    for letter in "abcde":
        answer = answer.replace(f"({letter})", letter)
    for letter in "abcde":
        answer = answer.replace("{" + letter + "}", letter)
    return answer.rstrip(".").lstrip(":").strip()


def find_math_answer(text: str) -> str:
    """``find_math_answer``: lower-case, take the last ``\\boxed{}``, the value after ``=`` or
    ``\\approx``, drop spaces, LaTeX text/units and degree marks, then ``_strip_string``.

    QUIRK lower-case-and-squash: ``The angle is 60^\\circ`` becomes ``theangleis60`` and
    ``12 cm`` becomes ``12cm``; neither equals a number, so both are wrong.
    """
    s = text.lower()
    if "{}" in s:
        s = s.replace("{}", "")
    found = _BOXED.findall(s)
    ans = found[-1] if found else s
    if ans.find("}") != -1 and (ans.find("{") == -1 or ans.find("}") < ans.find("{")):
        ans = ans.split("}")[0]
    ans = ans.split("=")[-1]
    ans = ans.split("\\approx")[-1]
    for old, new in (
        (" ", ""),
        ("\\,", ""),
        ("∞", "\\infty"),
        ("+\\infty", "\\infty"),
        ("\\\\", "\\"),
        ("\n", ""),
        ("\\text", ""),
        ("\\mbox", ""),
        ("bmatrix", "pmatrix"),
        ("\\left", ""),
        ("\\right", ""),
        ("^{\\circ}", ""),
        ("^\\circ", ""),
        ("{m}^3", ""),
        ("m^3", ""),
        ("{units}", ""),
        ("units", ""),
        ("{km}", ""),
        ("km", ""),
    ):
        ans = ans.replace(old, new)
    return _strip_string(ans)


def _strip_string(string: str) -> str:
    for old, new in (
        ("\n", ""),
        ("\\!", ""),
        ("\\\\", "\\"),
        ("tfrac", "frac"),
        ("dfrac", "frac"),
        ("\\left", ""),
        ("\\right", ""),
        ("^{\\circ}", ""),
        ("^\\circ", ""),
        ("\\$", ""),
        ("$", ""),
    ):
        string = string.replace(old, new)
    string = string.split("\\text{ ")[0]
    string = string.replace("\\%", "")
    string = string.replace(" .", " 0.").replace("{.", "{0.")
    if not string:
        return string
    if string[0] == ".":
        string = "0" + string
    if len(string.split("=")) == 2:
        string = string.split("=")[-1]
    if len(string.split("\\approx")) == 2:
        string = string.split("\\approx")[-1]
    if "sqrt" in string:
        string = _fix_sqrt(string)
    string = string.replace(" ", "")
    if "sqrt" in string:
        # QUIRK fracs-only-with-sqrt: the script fixes "\frac12" only when "sqrt" is present
        string = _fix_fracs(string)
    if string == "0.5":
        string = "\\frac{1}{2}"
    return _fix_a_slash_b(string)


def _fix_sqrt(string: str) -> str:
    splits = string.split("\\sqrt")
    out = splits[0]
    for part in splits[1:]:
        if part and part[0] != "{":
            out += "\\sqrt{" + part[0] + "}" + part[1:]
        else:
            out += "\\sqrt" + part
    return out


def _fix_fracs(string: str) -> str:
    parts = string.split("\\frac")
    out = parts[0]
    for part in parts[1:]:
        out += "\\frac"
        if part and part[0] == "{":
            out += part
            continue
        if len(part) < 2:
            return string
        a, b = part[0], part[1]
        if b != "{":
            out += "{" + a + "}{" + b + "}" + part[2:]
        else:
            out += "{" + a + "}" + b + part[2:]
    return out


def _fix_a_slash_b(string: str) -> str:
    pieces = string.split("/")
    if len(pieces) != 2:
        return string
    try:
        a, b = int(pieces[0]), int(pieces[1])
    except ValueError:
        return string
    if string != f"{a}/{b}":
        return string
    return "\\frac{" + str(a) + "}{" + str(b) + "}"


def _value(text: str) -> int | float:
    """``eval(str(latex2sympy(text)))``, or ValueError where that raises."""
    value = latex_value(text)
    if value is None:
        raise ValueError(text)
    return as_python_number(value)


def _eval_tuple(s: str) -> str:
    """``eval_tuple``: ``(a,b,…)`` / ``[a,b,…]`` with every element evaluated and rounded to 2
    decimals (``infty``, ``a`` and ``-a`` kept); anything else, or any failure, unchanged."""
    parts = s[1:-1].split(",")
    if len(parts) <= 1 or (s[:1], s[-1:]) not in (("(", ")"), ("[", "]")):
        return s
    try:
        inner = ",".join(
            p if "infty" in p or p in ("a", "-a") else str(round(_value(p), 2)) for p in parts
        )
    except ValueError:
        return s
    return f"{s[0]}{inner}{s[-1]}"


def official_is_equal(asw: str, gt_asw: str) -> bool:
    """``utils.is_equal``: equal text, equal evaluated tuples, or equal values at 2 decimals.

    QUIRK round-2dp: both values are ``round(·, 2)``-ed before ``==``, so ``3.14159`` is
    ``3.14`` and ``2\\sqrt{3}`` is ``3.46``, while ``3.146`` (→ 3.15) is not ``3.14``.
    """
    asw, gt_asw = asw.lower(), gt_asw.lower()
    if not asw.replace(" ", "") or not gt_asw.replace(" ", ""):
        return False
    if gt_asw.strip() == asw.strip():
        return True
    asw, gt_asw = _eval_tuple(asw), _eval_tuple(gt_asw)
    if gt_asw == asw:
        return True
    try:
        return round(_value(gt_asw), 2) == round(_value(asw), 2)
    except ValueError:
        return False


def official_correct(response: str, answer: str, options: Sequence[str]) -> tuple[str, bool]:
    """``(model_answer, correct)`` as ``evaluate.py`` writes them back into the output line.

    The gold is compared both as the letter and as that option's text; a problem with options
    whose answer is not one of their letters stops the script (an error here).
    """
    gold = str(answer)
    value = ""
    if options:
        index = ord(gold) - ord("A") if len(gold) == 1 else -1
        if not 0 <= index < len(options):
            raise InputError(
                f"answer {gold!r} is not an option letter of its {len(options)} options (the "
                "official evaluate.py raises on it)"
            )
        value = str(options[index])
    model_answer = official_model_answer(response)
    correct = official_is_equal(gold, model_answer) or official_is_equal(value, model_answer)
    return model_answer, correct


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitXor: operator.xor,
}


def _python_value(text: str) -> Any:
    """Python's ``eval`` of *text* for literals and arithmetic only (never names or calls): what
    VLMEvalKit's bare ``eval(res)`` gives on an answer. QUIRK caret-is-xor: ``2^3`` is 1."""
    node = ast.parse(text, mode="eval").body

    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float | complex):
            return n.value
        if isinstance(n, ast.Tuple):
            return tuple(ev(e) for e in n.elts)
        if isinstance(n, ast.List):
            return [ev(e) for e in n.elts]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else +v
        if isinstance(n, ast.BinOp) and type(n.op) in _BINARY:
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Pow) and isinstance(right, int) and abs(right) > 4096:
                raise ValueError("exponent too large")
            return _BINARY[type(n.op)](left, right)
        raise ValueError("not arithmetic")

    return ev(node)


def vlmevalkit_is_equal(asw: Any, gt_asw: Any) -> bool:
    """VLMEvalKit's ``is_equal``: equal lower-cased text, else ``|eval(a) - eval(b)| < 1e-6``,
    else the LaTeX values within ``1e-6``.

    QUIRK tolerance-1e-6: no rounding, so ``3.14159`` is not ``3.14``, nor ``2\\pi`` ``6.28``.
    """
    a, b = str(asw).lower().strip(), str(gt_asw).lower().strip()
    if a == b:
        return True
    try:
        if abs(_python_value(b) - _python_value(a)) < 1e-6:
            return True
    except Exception:
        pass
    try:
        return abs(_value(b) - _value(a)) < 1e-6
    except ValueError:
        return False


def vlmevalkit_post_check(res: Any, answer: Any, options: Sequence[str]) -> bool:
    """``post_check(line)``: with options, ``can_infer(res, {A: o0, …})`` compared with the gold
    letter; without, ``is_equal(str(res), str(answer))``."""
    if options:
        from .choice.heuristics import get_extractor

        choices = {chr(ord("A") + i): str(o) for i, o in enumerate(options)}
        # VLMEvalKit@e8e78f0 can_infer = the MMBench HEAD rule; it returns False when no
        # option is found, and is_equal then compares the text "false"
        letter = get_extractor("vlmevalkit")(str(res), choices).letter
        return vlmevalkit_is_equal(letter if letter is not None else False, answer)
    return vlmevalkit_is_equal(str(res), str(answer))


def vlmevalkit_prefetch(prediction: Any, answer: Any, options: Sequence[str]) -> str | None:
    """``post_check(line, prefetch=True)`` of ``MATH_V_auxeval``: the ``res`` VLMEvalKit keeps
    without calling its judge, or ``None`` when it calls it. With options, the letter
    ``can_infer`` finds in the prediction (not compared with the answer); without, the
    prediction itself when it ``is_equal`` the answer. A falsy value (an empty prediction)
    sends the item to the judge, as ``if post_check(...)`` does."""
    if options:
        from .choice.heuristics import get_extractor

        choices = {chr(ord("A") + i): str(o) for i, o in enumerate(options)}
        return get_extractor("vlmevalkit")(str(prediction), choices).letter or None
    res = str(prediction)
    return res if res and vlmevalkit_is_equal(res, str(answer)) else None
