r"""MMBench CircularEval and VanillaEval, and building circular copies.

CircularEval (spec mmbench.md §2): a question with N options is asked N times, the options
rotated each time; it counts as correct only if every pass is answered correctly:

.. math::

    \mathrm{hit}_g = \prod_{k=0}^{N_g-1} [\,\ell_{g,k} = a_{g,k}\,], \qquad
    \mathrm{CircularEval} = \frac{1}{|G|}\sum_{g \in G} \mathrm{hit}_g

where :math:`\ell_{g,k}` is the letter extracted from pass *k* of question *g* and
:math:`a_{g,k}` that row's correct letter. VanillaEval scores each row on its own:
:math:`\frac{1}{|R|}\sum_{r \in R}[\ell_r = a_r]`, over the pass-0 rows (the paper's VanillaEval)
or over all rows.

The task runner scores MMBench (``tasks/mmbench.py``): :func:`resolve_rows` decides each row's
letter (the profile's ``score_batch``), :func:`question_records` groups the rows into questions
(its last step), and :class:`MMBenchResult` is the view ``evaluate_mmbench`` returns.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._version import __version__
from ..core.exceptions import InputError
from ..core.signature import Signature
from ..kernels.choice.heuristics import get_extractor
from .judge import Judge, build_judge_prompt, resolve_choice
from .model import CIRCULAR_STRIDE, MMBenchRow
from .report import PassRecord, QuestionRecord, accuracy_table, format_table

__all__ = [
    "MODES",
    "CircularCopy",
    "MMBenchResult",
    "build_circular",
    "circular_copies",
]

MODES = ("circular", "vanilla")
Mode = Literal["circular", "vanilla"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
# In the VLMEvalKit layout an image cell of at most 64 characters is a reference to the row
# whose image it is, not a base64 image.
_IMAGE_REF_MAX = 64


@dataclass(frozen=True)
class CircularCopy:
    """Pass *k* of a question: its row index, rotated options and rotated answer letter."""

    index: int
    options: Mapping[str, str]
    answer: str | None


def rotate_options(texts: Sequence[str], k: int) -> list[str]:
    """The option texts of circular pass *k*: label *j* shows original option ``(j + k) mod N``.

    VLMEvalKit's ``CIRCULAR`` rule (spec mmbench.md §1): a correct answer at position *a* sits at
    ``(a - k) mod N`` in pass *k*.

    Examples
    --------
    >>> rotate_options(["w", "x", "y", "z"], 1)
    ['x', 'y', 'z', 'w']
    """
    n = len(texts)
    return [texts[(j + k) % n] for j in range(n)]


def circular_copies(
    options: Mapping[str, str], answer: str | None, g_index: int
) -> list[CircularCopy]:
    """The N circular copies of an N-option question (VLMEvalKit ``tools.CIRCULAR``).

    Copy *k* (k = 0..N-1) has index ``g_index + k * 1_000_000``; its options are rotated left by
    *k* (new label *j* holds original option ``(j + k) mod N``) and the answer label moves from
    *a* to ``(a - k) mod N``. Spec: mmbench.md §1.

    Parameters
    ----------
    options : Mapping[str, str]
        Letter -> text; the letters must be contiguous from ``A``.
    answer : str or None
        The correct letter of pass 0, or ``None`` for an unanswered (test) row.
    g_index : int
        The question id, ``0 <= g_index < 1_000_000``.

    Returns
    -------
    list of CircularCopy
        Pass 0 first.

    Raises
    ------
    InputError
        Letters not contiguous from A, fewer than 2 options, an answer that is not an option,
        or an index outside ``[0, 1_000_000)``.
    """
    letters = list(options)
    n = len(letters)
    if letters != list(_LETTERS[:n]):
        raise InputError(
            f"index {g_index}: option letters must run from A without gaps, got {letters}"
        )
    if n < 2:
        raise InputError(f"index {g_index}: needs at least 2 options, got {n}")
    if not 0 <= g_index < CIRCULAR_STRIDE:
        raise InputError(f"index {g_index}: must be in [0, {CIRCULAR_STRIDE}) to build copies")
    if answer is not None and answer not in options:
        raise InputError(
            f"index {g_index}: answer {answer!r} is not an option ({', '.join(letters)})"
        )
    texts = [options[c] for c in letters]
    a = letters.index(answer) if answer is not None else None
    copies = []
    for k in range(n):
        rotated = dict(zip(letters, rotate_options(texts, k), strict=True))
        ans = letters[(a - k) % n] if a is not None else None
        copies.append(CircularCopy(g_index + k * CIRCULAR_STRIDE, rotated, ans))
    return copies


def _option_columns(row: Mapping[str, str]) -> list[str]:
    return [c for c in _LETTERS if c in row]


def build_circular(rows: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    """Turn a plain multiple-choice table into the circular layout of the official TSVs.

    Each row (a mapping of column -> cell text with at least ``index``, ``A``, ``B`` and
    ``answer``) becomes N rows, one per rotation (see :func:`circular_copies`). Other columns are
    copied unchanged, except that a copy's ``image`` cell longer than 64 characters (a base64
    image) is replaced by the question's index, as in the VLMEvalKit layout. Option columns
    beyond N stay empty. Rows come out pass-major: all pass-0 rows in input order, then all
    pass-1 rows, and so on.

    Raises
    ------
    InputError
        A bad index (not an integer, >= 1_000_000, duplicated) or item (see
        :func:`circular_copies`); the message names the row's index.
    """
    out: list[list[dict[str, str]]] = []
    seen: set[int] = set()
    for row in rows:
        raw = row.get("index", "")
        try:
            g = int(raw)
        except ValueError:
            raise InputError(f"index {raw!r} is not an integer") from None
        if g in seen:
            raise InputError(f"index {g}: duplicate index")
        seen.add(g)
        options = {c: row[c] for c in _option_columns(row) if row[c] != ""}
        answer = row.get("answer", "") or None
        for k, copy in enumerate(circular_copies(options, answer, g)):
            new = dict(row)
            new["index"] = str(copy.index)
            for c in _option_columns(row):
                new[c] = copy.options.get(c, "")
            if "answer" in new:
                new["answer"] = copy.answer or ""
            if k > 0 and len(new.get("image", "")) > _IMAGE_REF_MAX:
                new["image"] = str(g)
            while len(out) <= k:
                out.append([])
            out[k].append(new)
    return [r for layer in out for r in layer]


# ---------------------------------------------------------------------------------------------
# Evaluation


@dataclass(frozen=True)
class MMBenchResult:
    """The result of :func:`evaluate_mmbench`; every view (text, JSON, files) renders it.

    Attributes
    ----------
    mode, extractor, strict, judge, random_fallback:
        The settings (also in :attr:`signature`). ``judge`` is the judge's name or ``None``.
    questions:
        Per-question records: circular groups (``mode="circular"``) or rows (``"vanilla"``).
    tables, table_counts:
        Per-split accuracy rows (see :func:`~vqametrics.mmbench.report.accuracy_table`) keyed
        by ``"circular"``, or ``"vanilla_pass0"`` and ``"vanilla_all"``.
    counts:
        ``rows`` (data rows), ``predictions`` (matched), ``ignored_predictions`` (indices not in
        the data), ``questions`` (in the headline table), ``incomplete`` (circular: groups with a
        missing copy; vanilla: rows without prediction), ``dropped`` (questions left out because
        pass 0 has no prediction; reference-compatible mode only), ``unparsed`` (rows no stage
        decided), ``judged`` (rows decided by the judge), ``judge_calls``, ``random`` (rows
        decided by the random fallback).
    """

    mode: str
    extractor: str
    strict: bool
    judge: str | None
    random_fallback: int | None
    questions: tuple[QuestionRecord, ...]
    tables: Mapping[str, Sequence[Mapping[str, str | float | None]]]
    table_counts: Mapping[str, Sequence[Mapping[str, str | int]]]
    counts: Mapping[str, int]
    data_source: str = "<data>"
    predictions_source: str = "<predictions>"
    #: the answer extractor run before the letter heuristics (``--extract``), if any
    extract: str | None = None
    #: row index -> :class:`~vqametrics.extract.Extraction` of its prediction
    extraction: Mapping[int, Any] | None = None
    #: verbose-looking raw predictions (``vqametrics.extract.Diagnostics``); never scored
    diagnostics: Any = None
    #: the task runner's signature of the run (:meth:`from_evaluation`): one run, one signature
    #: whichever entry point scored it; ``None``: built from the settings above
    run_signature: Signature | None = None

    @classmethod
    def from_evaluation(cls, evaluation: Any) -> MMBenchResult:
        """The view of a task runner's MMBench evaluation (``vqametrics.evaluate("mmbench",
        ...)``) that ``vqametrics mmbench`` renders: the same run, per question and table."""
        run: MMBenchRun = evaluation.data.extra["mmbench"]
        records = run.records
        if run.mode == "circular":
            sources = {"circular": list(records)}
        else:
            sources = {
                "vanilla_pass0": [q for q in records if q.index < CIRCULAR_STRIDE],
                "vanilla_all": list(records),
            }
        tables = {}
        table_counts = {}
        for name, recs in sources.items():
            tables[name], table_counts[name] = accuracy_table(recs)
        return cls(
            mode=run.mode,
            extractor=evaluation.profile.name,
            strict=run.strict,
            judge=run.judge_label,
            random_fallback=run.random_fallback,
            questions=records,
            tables=tables,
            table_counts=table_counts,
            counts=dict(run.counts),
            data_source=run.data_source,
            predictions_source=run.predictions_source,
            extract=run.extract,
            extraction=run.extraction,
            diagnostics=run.diagnostics,
            run_signature=evaluation.signature,
        )

    def __repr__(self) -> str:
        return (
            f"<MMBenchResult {self.mode} {100 * self.score:.2f} | extractor {self.extractor}, "
            f"{self.counts.get('questions', 0)} questions, "
            f"{self.counts.get('unparsed', 0)} unparsed>"
        )

    @property
    def headline(self) -> str:
        """The table the headline score comes from (``circular`` or ``vanilla_pass0``)."""
        return "circular" if self.mode == "circular" else "vanilla_pass0"

    @property
    def score(self) -> float:
        """Accuracy over every question of the headline table (all splits), in [0, 1]."""
        if self.mode == "circular":
            hits = [q.hit for q in self.questions]
        else:
            hits = [q.hit for q in self.questions if q.index < CIRCULAR_STRIDE]
        return sum(hits) / len(hits) if hits else float("nan")

    @property
    def signature_object(self) -> Signature:
        """The :class:`~vqametrics.core.signature.Signature` behind :attr:`signature`."""
        if self.run_signature is not None:
            return self.run_signature
        return Signature(
            "mmbench",
            (
                ("mode", self.mode),
                ("extractor", self.extractor),
                ("extract", self.extract),
                ("strict", self.strict),
                ("judge", self.judge or "no"),
                ("random", self.random_fallback),
                ("n", self.counts["questions"]),
            ),
        )

    @property
    def signature(self) -> str:
        """``mmbench|profile:…|mode:…|extractor:…|strict:yes|judge:no|n:…|vqametrics:…``, as
        ``vqametrics.evaluate("mmbench", ...)`` and ``vqametrics score mmbench`` sign the run
        (``profile:`` is left out of a result built by hand).

        ``random:SEED`` appears after ``judge`` when the random fallback is on.
        """
        return self.signature_object.format()

    def as_dict(self) -> dict[str, object]:
        """JSON-ready summary (per-question records are in :meth:`per_question`)."""
        return {
            "name": "mmbench",
            "score": self.score,
            "headline": self.headline,
            "signature": self.signature,
            "signature_fields": self.signature_object.as_dict(),
            "mode": self.mode,
            "extractor": self.extractor,
            "strict": self.strict,
            "judge": self.judge,
            "random_fallback": self.random_fallback,
            "version": __version__,
            "data": self.data_source,
            "predictions": self.predictions_source,
            "counts": dict(self.counts),
            "tables": {k: [dict(r) for r in v] for k, v in self.tables.items()},
            "table_counts": {k: [dict(r) for r in v] for k, v in self.table_counts.items()},
            **({"diagnostics": self.diagnostics.as_dict()} if self.diagnostics else {}),
            **({"extract": self._extract_summary()} if self.extraction is not None else {}),
        }

    def _extract_summary(self) -> dict[str, object]:
        rules: dict[str, int] = {}
        changed = 0
        for t in (self.extraction or {}).values():
            changed += bool(t.rules)
            for r in t.rules:
                rules[r] = rules.get(r, 0) + 1
        return {"name": self.extract, "changed": changed, "rules": rules}

    def per_question(self) -> list[dict[str, object]]:
        """One JSON-ready dict per question (``index`` = the group's pass-0 index).

        Each pass carries ``verbose`` (diagnostics) and, under ``extract``, the raw text
        (``raw_prediction``) and the rules that fired (``extract_rule``).
        """
        out = [q.as_dict() for q in self.questions]
        if self.extraction is None and self.diagnostics is None:
            return out
        ex = self.extraction or {}
        verbose = getattr(self.diagnostics, "by_index", {})
        for q in out:
            for p in q["passes"]:  # type: ignore[attr-defined]
                i = p["index"]
                if i in verbose:
                    p["verbose"] = bool(verbose[i])
                t = ex.get(i)
                if t is not None:
                    p["raw_prediction"] = t.raw
                    p["extract_rule"] = t.trace.rule
        return out

    def format(self) -> str:
        """The text report: one table per evaluation, the counts and the signature."""
        titles = {
            "circular": "MMBench CircularEval",
            "vanilla_pass0": "MMBench VanillaEval, pass-0 rows",
            "vanilla_all": "MMBench VanillaEval, all rows",
        }
        parts = [format_table(titles[k], v, self.table_counts[k]) for k, v in self.tables.items()]
        c = self.counts
        parts.append(
            f"questions: {c['questions']}  incomplete: {c['incomplete']}  "
            f"dropped: {c['dropped']}  unparsed: {c['unparsed']}  judged: {c['judged']}  "
            f"judge calls: {c['judge_calls']}  random: {c['random']}  "
            f"ignored predictions: {c['ignored_predictions']}"
        )
        if c.get("fewer_copies"):
            parts[-1] += (
                f"\nquestions with fewer circular copies than options: {c['fewer_copies']} "
                "(each scored on the copies the data file has, as in the official dev file)"
            )
        unparsed = [
            p for q in self.questions for p in q.passes if p.letter is None and p.stage != "missing"
        ]
        if unparsed:
            shown = unparsed[:_UNPARSED_SHOWN]
            lines = [f"unparsed predictions (index: text), {len(unparsed)}:"]
            lines += [f"  {p.index}: {_short(p.prediction)}" for p in shown]
            if len(unparsed) > len(shown):
                lines.append(f"  … and {len(unparsed) - len(shown)} more (all in --json/--out)")
            parts[-1] += "\n" + "\n".join(lines)
        parts.append(f"signature: {self.signature}")
        return "\n\n".join(parts[:-2]) + "\n\n" + "\n".join(parts[-2:])


_UNPARSED_SHOWN = 50


def _short(text: str | None, limit: int = 80) -> str:
    """A prediction on one line, quoted, cut at *limit* characters."""
    t = repr(text if text is not None else "")
    return t if len(t) <= limit else t[: limit - 1] + "…"


class _Scorer:
    """Resolves rows with the run's extractor, judge and random generator (one per run)."""

    def __init__(
        self,
        extractor: str,
        judge: Judge | None,
        rng: random.Random | None,
        empty_text: str,
    ) -> None:
        self.ext = get_extractor(extractor)
        self.judge = judge
        self.rng = rng
        self.empty_text = empty_text

    def text(self, prediction: str | None) -> str:
        return self.empty_text if prediction is None else prediction

    def heuristic(self, row: MMBenchRow, prediction: str | None) -> PassRecord:
        res = self.ext(self.text(prediction), row.options)
        return PassRecord(row.index, prediction, res.letter, res.stage, row.answer)

    def full(self, row: MMBenchRow, prediction: str | None) -> PassRecord:
        res = resolve_choice(
            self.text(prediction),
            row.options,
            question=row.question,
            extractor=self.ext.name,
            judge=self.judge,
            rng=self.rng,
            n_columns=row.n_columns or len(row.options),
        )
        prompt = None
        if res.judge_calls:
            prompt = build_judge_prompt(
                row.question, row.options, self.text(prediction), self.ext.none_letter
            )
        return PassRecord(
            row.index,
            prediction,
            res.letter,
            res.stage,
            row.answer,
            res.judge_calls,
            prompt,
            res.judge_reply,
        )


def _missing(row: MMBenchRow) -> PassRecord:
    return PassRecord(row.index, None, None, "missing", row.answer)


def _score_group(
    scorer: _Scorer, present: list[tuple[MMBenchRow, str | None]]
) -> tuple[int, list[PassRecord]]:
    """``mcq_circular_eval`` for one group whose rows are all to be scored, in pass order."""
    passes = [scorer.heuristic(row, pred) for row, pred in present]
    # Prefetch: the first heuristically parsed wrong letter (Z included) fails the group,
    # before any judge call, even if another pass is still unparsed (spec §2 step 4).
    for p in passes:
        if p.letter is not None and p.letter != p.answer:
            return 0, passes
    for k, (row, pred) in enumerate(present):
        if passes[k].letter is not None:
            continue
        passes[k] = scorer.full(row, pred)
        if passes[k].letter != row.answer:
            return 0, passes
    return 1, passes


def _check_unique(rows: Sequence[MMBenchRow], source: str) -> dict[int, MMBenchRow]:
    by_index: dict[int, MMBenchRow] = {}
    for row in rows:
        if row.index in by_index:
            where = f" (line {row.line})" if row.line else ""
            raise InputError(f"{source}: duplicate index {row.index}{where}")
        by_index[row.index] = row
    return by_index


@dataclass(frozen=True)
class _Extracted:
    raw: str
    trace: Any

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(self.trace.rules)


class _MMBenchDiagnostics:
    """Diagnostics keyed by row index (``by_index``) for the per-question records."""

    def __init__(self, diag: Any, indices: list[int]) -> None:
        self.diag = diag
        self.by_index = dict(zip(indices, diag.flags, strict=True))

    def __bool__(self) -> bool:
        return True

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = self.diag.as_dict()
        for e in d["examples"]:
            e["index"] = self.by_index_keys[e.pop("position")]
        return d

    @property
    def by_index_keys(self) -> list[int]:
        return list(self.by_index)

    def warning(self) -> str | None:
        w: str | None = self.diag.warning()
        return w


def mmbench_diagnostics(
    matched: Mapping[int, str | None], by_index: Mapping[int, MMBenchRow]
) -> Any:
    """Diagnostics of the raw predictions (by row index): a prediction is long only beyond
    twice the longest option's words (option texts may be long)."""
    from ..extract import diagnose

    indices = sorted(matched)
    raw = [matched[i] for i in indices]
    limits = [
        max(5, 2 * max((len(t.split()) for t in by_index[i].options.values()), default=0))
        for i in indices
    ]
    return _MMBenchDiagnostics(diagnose(raw, max_words=limits), indices)


@dataclass
class MMBenchRun:
    """One MMBench run as the task runner carries it (``TaskData.extra["mmbench"]``): the
    settings, the data rows, the counts, and what scoring decided for each row.

    ``passes`` is filled by the profile's ``score_batch`` (each row's letter, stage and judge
    exchange); ``records`` and ``extraction`` by the task's last step (``finish``).
    """

    mode: str
    strict: bool
    judge: Judge | None
    judge_name: str | None
    random_fallback: int | None
    rows: Mapping[int, MMBenchRow]
    counts: dict[str, int]
    data_source: str
    predictions_source: str
    diagnostics: Any = None
    #: the questions (circular) or rows (vanilla) with a row without prediction
    incomplete: set[int] = field(default_factory=set)
    passes: dict[int, PassRecord] = field(default_factory=dict)
    records: tuple[QuestionRecord, ...] = ()
    extract: str | None = None
    extraction: dict[int, Any] | None = None

    @property
    def judge_label(self) -> str | None:
        """The judge's name in the signature; ``None`` without a judge."""
        return (self.judge_name or "custom") if self.judge is not None else None


def resolve_rows(
    run: MMBenchRun, extractor: str, rows: Sequence[tuple[int, str | None, bool]]
) -> None:
    """Decide the letter of every row (``run.passes``), in VLMEvalKit's order.

    *rows* are ``(index, text, present)`` sorted by index: ``text`` ``None`` for an empty cell
    (read as ``""``, or ``"nan"`` in reference-compatible mode) and ``present`` false for a
    row without a prediction (strict mode). CircularEval decides each group as
    ``mcq_circular_eval`` does (spec §2 steps 4-5): heuristics on every pass; a wrong
    heuristic letter fails the group before any judge call; else the unparsed passes go to
    the judge (then the random fallback) in pass order, up to the first mismatch. A group
    with a missing copy (strict) gets the heuristics only. VanillaEval resolves every row on
    its own. One ``random.Random(seed)`` serves the run, drawn in this order.
    """
    scorer = _Scorer(
        extractor,
        run.judge,
        random.Random(run.random_fallback) if run.random_fallback is not None else None,
        "" if run.strict else "nan",
    )
    texts = {i: t for i, t, here in rows if here}
    if run.mode == "vanilla":
        for i, _, _ in rows:
            row = run.rows[i]
            run.passes[i] = scorer.full(row, texts[i]) if i in texts else _missing(row)
        return
    groups: dict[int, list[int]] = {}
    for i, _, _ in rows:
        groups.setdefault(i % CIRCULAR_STRIDE, []).append(i)
    for members in groups.values():
        if all(i in texts for i in members):
            _, passes = _score_group(scorer, [(run.rows[i], texts[i]) for i in members])
        else:
            passes = [
                scorer.heuristic(run.rows[i], texts[i]) if i in texts else _missing(run.rows[i])
                for i in members
            ]
        for p in passes:
            run.passes[p.index] = p


def question_records(run: MMBenchRun) -> tuple[QuestionRecord, ...]:
    """One record per scored question (a circular group, or a row in VanillaEval), its hit
    the product of its rows' hits (every pass right)."""
    by_group: dict[int, list[PassRecord]] = {}
    circular = run.mode == "circular"
    for i in sorted(run.passes):
        by_group.setdefault(i % CIRCULAR_STRIDE if circular else i, []).append(run.passes[i])
    records = []
    for g, passes in sorted(by_group.items()):
        head = run.rows[g]
        hit = int(all(p.letter is not None and p.letter == p.answer for p in passes))
        complete = g not in run.incomplete
        records.append(
            QuestionRecord(
                g, hit, complete, head.split, head.category, head.l2_category, tuple(passes)
            )
        )
    return tuple(records)
