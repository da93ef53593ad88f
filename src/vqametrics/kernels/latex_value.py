r"""The numeric value of a short LaTeX answer (``2\sqrt{3}``, ``\frac{1}{2}``, ``2\pi``, ``1,000``).

MathVision's official ``is_equal`` and VLMEvalKit's compare answers through
``eval(str(latex2sympy(s)))`` with ``from math import *`` in scope: a number comes out, or an
exception does (and the answers are then unequal). This module computes that number without
sympy, for the answers those scorers meet: numbers (with 3-digit comma groups, as latex2sympy
reads ``1,000``), ``+ - * /``, ``^``, implicit products (``2\pi``), ``\frac``/``\dfrac``/
``\tfrac``, ``\sqrt{x}`` and ``\sqrt[n]{x}``, ``\pi``, ``\cdot``, ``\times``, ``\div`` and the
brackets ``() {} []``. Integers and fractions stay exact (sympy keeps them rational, so
``eval`` returns an ``int`` for an integer); a decimal, ``\pi`` or an irrational root makes a
float. Anything else gives ``None``: a letter (sympy makes a symbol, which ``eval`` cannot
name), a function (``\sin``), a division by zero (``zoo``), a complex root.

Not established (no case covers it): latex2sympy's reading of the letter ``e`` (alone, or in
``1e3``, which it may read as ``1·e·3``) and of functions; both give ``None`` here (unequal).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = ["as_python_number", "latex_value"]

Value = Fraction | float

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d{1,3}(?:,\d{3})+(?![\d])(?:\.\d+)?|\d+\.?\d*|\.\d+)"
    r"|(?P<cmd>\\[a-zA-Z]+)|(?P<op>[-+*/^(){}\[\]])|(?P<other>\S))"
)
_SKIP = {"\\left", "\\right"}
_MUL = {"*", "\\cdot", "\\times"}
_DIV = {"/", "\\div"}
_OPEN = {"(": ")", "{": "}", "[": "]"}
_FRAC = {"\\frac", "\\dfrac", "\\tfrac"}
_MAX_EXPONENT = 4096


class _Fail(Exception):
    pass


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.group("other") is not None:
            raise _Fail
        tok = m.group("num") or m.group("cmd") or m.group("op")
        assert tok is not None
        pos = m.end()
        if tok not in _SKIP:
            out.append(tok)
    return out


def _number(tok: str) -> Value:
    tok = tok.replace(",", "")
    if "." in tok:
        return float(tok)
    return Fraction(int(tok))


def _binary(op: str, a: Value, b: Value) -> Value:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise _Fail  # sympy: zoo, which eval cannot name
    return a / b


def _power(base: Value, exp: Value) -> Value:
    if isinstance(exp, Fraction) and exp.denominator == 1 and isinstance(base, Fraction):
        if abs(exp.numerator) > _MAX_EXPONENT or (base == 0 and exp < 0):
            raise _Fail
        result: Fraction = base**exp.numerator
        return result
    b, e = float(base), float(exp)
    if b < 0 and not e.is_integer():
        raise _Fail  # a complex value, which eval cannot compare
    try:
        return math.pow(b, e)
    except (OverflowError, ValueError):
        raise _Fail from None


def _root(x: Value, n: Value) -> Value:
    if not (isinstance(n, Fraction) and n.denominator == 1 and n > 0):
        if n == 0:
            raise _Fail
        return _power(x, 1 / float(n))
    k = n.numerator
    if x < 0 and k % 2 == 0:
        raise _Fail  # sympy: an imaginary unit, which eval cannot name
    if isinstance(x, Fraction):
        num = _exact_root(abs(x.numerator), k)
        den = _exact_root(x.denominator, k)
        if num is not None and den is not None:
            return Fraction(num, den) * (-1 if x < 0 else 1)
    magnitude = abs(float(x)) ** (1.0 / k) if k != 2 else math.sqrt(abs(float(x)))
    return -magnitude if x < 0 else magnitude


def _exact_root(n: int, k: int) -> int | None:
    r = round(n ** (1.0 / k)) if n else 0
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**k == n:
            return c
    return None


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.toks = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise _Fail
        self.i += 1
        return tok

    def expect(self, tok: str) -> None:
        if self.take() != tok:
            raise _Fail

    def expr(self) -> Value:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            value = _binary(op, value, self.term())
        return value

    def term(self) -> Value:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok in _MUL or tok in _DIV:
                self.take()
                op = "*" if tok in _MUL else "/"
                value = _binary(op, value, self.unary())
            elif tok is not None and self.starts_primary(tok):
                value = _binary("*", value, self.power())  # implicit product: 2\pi
            else:
                return value

    def starts_primary(self, tok: str) -> bool:
        return tok in _OPEN or tok in _FRAC or tok in ("\\sqrt", "\\pi") or tok[0].isdigit()

    def unary(self) -> Value:
        if self.peek() in ("+", "-"):
            sign = self.take()
            value = self.unary()
            return -value if sign == "-" else value
        return self.power()

    def power(self) -> Value:
        base = self.primary()
        if self.peek() == "^":
            self.take()
            if self.peek() in ("+", "-"):
                return _power(base, self.unary())
            return _power(base, self.power())
        return base

    def group(self) -> Value:
        if self.peek() == "{":
            self.take()
            value = self.expr()
            self.expect("}")
            return value
        return self.primary()

    def primary(self) -> Value:
        tok = self.take()
        if tok in _OPEN:
            value = self.expr()
            self.expect(_OPEN[tok])
            return value
        if tok in _FRAC:
            num = self.group()
            return _binary("/", num, self.group())
        if tok == "\\sqrt":
            n: Value = Fraction(2)
            if self.peek() == "[":
                self.take()
                n = self.expr()
                self.expect("]")
            return _root(self.group(), n)
        if tok == "\\pi":
            return math.pi
        if tok[0].isdigit() or tok[0] == ".":
            return _number(tok)
        raise _Fail


def latex_value(text: str) -> Value | None:
    """The number *text* denotes (exact :class:`~fractions.Fraction` or ``float``), or ``None``
    where ``eval(str(latex2sympy(text)))`` would not give one."""
    try:
        tokens = _tokens(text)
        if not tokens:
            return None
        parser = _Parser(tokens)
        value = parser.expr()
        if parser.peek() is not None:
            return None
    except (_Fail, ValueError, OverflowError, RecursionError):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def as_python_number(value: Value) -> int | float:
    """What ``eval`` of sympy's printout returns: an ``int`` for an integer, else a float
    (``1/2`` is printed as ``1/2`` and evaluated by true division)."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else value.numerator / value.denominator
    return value
