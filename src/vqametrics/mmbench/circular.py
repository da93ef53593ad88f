r"""MMBench CircularEval and VanillaEval, and building circular copies (pure functions).

CircularEval (spec mmbench.md §2): a question with N options is asked N times, the options
rotated each time; it counts as correct only if every pass is answered correctly:

.. math::

    \mathrm{hit}_g = \prod_{k=0}^{N_g-1} [\,\ell_{g,k} = a_{g,k}\,], \qquad
    \mathrm{CircularEval} = \frac{1}{|G|}\sum_{g \in G} \mathrm{hit}_g

where :math:`\ell_{g,k}` is the letter extracted from pass *k* of question *g* and
:math:`a_{g,k}` that row's correct letter. VanillaEval scores each row on its own:
:math:`\frac{1}{|R|}\sum_{r \in R}[\ell_r = a_r]`, over the pass-0 rows (the paper's VanillaEval)
or over all rows.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._exceptions import InputError, UnknownNameError
from .._version import __version__
from ..signature import Signature
from .extract import DEFAULT_EXTRACTOR, get_extractor
from .judge import Judge, build_judge_prompt, resolve_choice
from .model import CIRCULAR_STRIDE, MMBenchData, MMBenchRow, Predictions
from .report import PassRecord, QuestionRecord, accuracy_table, format_table

__all__ = [
    "MODES",
    "CircularCopy",
    "MMBenchResult",
    "build_circular",
    "circular_copies",
    "evaluate_mmbench",
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
        """The :class:`~vqametrics.signature.Signature` behind :attr:`signature`."""
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
        """``mmbench|mode:…|extractor:…|strict:yes|judge:no|n:…|vqametrics:…``.

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


def evaluate_mmbench(
    data: MMBenchData | Sequence[MMBenchRow],
    predictions: Predictions | Mapping[int, str | None],
    *,
    mode: Mode = "circular",
    extractor: str = DEFAULT_EXTRACTOR,
    reference_compatible: bool = False,
    judge: Judge | None = None,
    judge_name: str | None = None,
    random_fallback: int | None = None,
    extract: str | None = None,
) -> MMBenchResult:
    r"""Score MMBench predictions with CircularEval or VanillaEval: the MMBench pipeline that
    ``vqametrics.evaluate("mmbench", ...)`` runs (prefer that entry point; this older one keeps
    its own arguments and returns the :class:`MMBenchResult`).

    .. math::

        \mathrm{CircularEval} = \frac{1}{|G|}\sum_{g} \prod_{k} [\ell_{g,k} = a_{g,k}]
        \qquad
        \mathrm{VanillaEval} = \frac{1}{|R|}\sum_{r} [\ell_r = a_r]

    Spec: mmbench.md §2. Each row's letter comes from :func:`~vqametrics.mmbench.extract_choice`
    and, where the heuristics fail, from the optional *judge*. Circular groups are decided as in
    VLMEvalKit HEAD ``mcq_circular_eval``: a heuristically extracted wrong letter (``Z``
    included) fails the group before any judge call; otherwise the unparsed rows go to the judge
    in pass order, and the first mismatch fails the group.

    Parameters
    ----------
    data : MMBenchData or sequence of MMBenchRow
        Every row of the benchmark, circular copies included, with answers.
    predictions : Predictions or Mapping[int, str or None]
        Row index -> raw model output (``None`` = empty cell). Indices not in *data* are
        ignored and counted.
    mode : {"circular", "vanilla"}, default="circular"
        ``"vanilla"`` reports two tables: pass-0 rows only (the paper's VanillaEval, the
        headline) and all rows, each copy counted as its own question.
    extractor : str, default="vlmevalkit"
        Heuristic lineage, see :func:`~vqametrics.mmbench.list_extractors`.
    reference_compatible : bool, default=False
        ``False`` (strict): every question of *data* is reported; a circular group with a
        missing copy, or a vanilla row without prediction, is a miss and counted as
        incomplete; an empty prediction is the empty string; in circular mode a group is the
        copies the data file has (2 to N for N options: the official dev file has 4-option
        questions with 3 copies). ``True`` reproduces the reference: rows without
        prediction are ignored (a group can pass on the rows present), a question whose
        pass-0 row has no prediction is dropped from the report, and an empty prediction cell
        becomes the string ``"nan"`` (pandas NaN through ``str``).
    judge : callable, optional
        ``judge(prompt) -> reply``; see :func:`~vqametrics.mmbench.judge.resolve_choice`.
    judge_name : str, optional
        Shown in the signature (``judge:<name>``); default ``"custom"`` when *judge* is given.
    random_fallback : int, optional
        Seed. Reproduce the reference's uniform random letter (options plus ``Z``; A-E for
        ``lmms-eval``) for a row that neither the heuristics nor 3 judge tries decide; without
        a judge every heuristic failure draws (the reference with a dead judge API). One
        ``random.Random(seed)`` serves the run; rows draw in ascending index order (groups by
        pass-0 index, then pass order), stopping at a group's first mismatch. The reference
        itself is unseeded (HEAD) or seeded globally with 2680 (2023 scripts) and its draw order
        depends on its worker pool, so only the distribution is reproducible, not the draws.
    extract : str, optional
        An answer extractor (``answer``, ``lmms-eval``, ``vlmevalkit``, ``evalscope``) run on
        each prediction before the letter heuristics, e.g. to drop a ``<think>`` block; in the
        signature as ``extract:NAME``. Default: the heuristics see the raw text.

    Returns
    -------
    MMBenchResult
        ``score`` in [0, 1]; per-split ``tables``; ``counts``; ``signature``.

    Raises
    ------
    InputError
        Duplicate indices; predictions that cover none of the data; no scorable question; in
        strict circular mode, a copy without its pass-0 row or a group whose row count differs
        from its option count.
    UnknownNameError
        Unknown *mode* or *extractor*.

    Notes
    -----
    Unparsed answers are never guessed unless *random_fallback* is set: they score as a miss
    (the reference writes ``Z``) and are counted in ``counts["unparsed"]``. The reference's
    dependence on the ``VERBOSE`` environment variable is not reproduced (see
    :func:`~vqametrics.mmbench.explain_choice`).
    """
    if mode not in MODES:
        raise UnknownNameError(f"unknown MMBench mode {mode!r}; valid: {', '.join(MODES)}")
    get_extractor(extractor)  # fail early on a bad name
    if isinstance(data, MMBenchData):
        rows, data_source = data.rows, data.source
    else:
        rows, data_source = tuple(data), "<data>"
    if isinstance(predictions, Predictions):
        preds, pred_source = predictions.values, predictions.source
    else:
        preds, pred_source = predictions, "<predictions>"
    by_index = _check_unique(rows, data_source)
    matched = {i: p for i, p in preds.items() if i in by_index}
    if not matched:
        first_pred = sorted(preds)[:3]
        first_data = sorted(by_index)[:3]
        raise InputError(
            f"{pred_source}: the predictions cover none of the {len(by_index)} rows of "
            f"{data_source} (prediction indices start {first_pred}, "
            f"data indices start {first_data})"
        )
    diagnostics, extraction, matched = _chat_stage(matched, by_index, extract)
    strict = not reference_compatible
    scorer = _Scorer(
        extractor,
        judge,
        random.Random(random_fallback) if random_fallback is not None else None,
        "nan" if reference_compatible else "",
    )
    counts = {
        "rows": len(rows),
        "predictions": len(matched),
        "ignored_predictions": len(preds) - len(matched),
        "incomplete": 0,
        "dropped": 0,
        "fewer_copies": 0,
    }
    records: list[QuestionRecord] = []
    if mode == "circular":
        groups: dict[int, list[MMBenchRow]] = {}
        for row in sorted(rows, key=lambda r: r.index):
            groups.setdefault(row.g_index, []).append(row)
        for g, members in sorted(groups.items()):
            head = by_index.get(g)
            if head is None:
                if strict:
                    raise InputError(
                        f"{data_source}: index {members[0].index} is a circular copy of question "
                        f"{g}, but there is no row with index {g}"
                    )
                continue  # the reference never scores a group without its pass-0 row
            n_options = len(head.options)
            if strict and (len(members) > n_options or (len(members) == 1 and n_options > 1)):
                raise InputError(
                    f"{data_source}: question {g} has {n_options} options but "
                    f"{len(members)} row(s); CircularEval needs 2 to {n_options} circular "
                    "copies (build them with `vqametrics mmbench-circular`, or use --mode "
                    "vanilla)"
                )
            if len(members) < n_options:
                # the official dev file: some 4-option questions have 3 copies (the fourth
                # rotation was never made); the group is the copies the data file has
                counts["fewer_copies"] += 1
            complete = all(r.index in matched for r in members)
            if not complete:
                counts["incomplete"] += 1
            if reference_compatible:
                if g not in matched:
                    counts["dropped"] += 1
                    continue
                hit, passes = _score_group(
                    scorer, [(r, matched[r.index]) for r in members if r.index in matched]
                )
            elif complete:
                hit, passes = _score_group(scorer, [(r, matched[r.index]) for r in members])
            else:
                hit = 0
                passes = [
                    scorer.heuristic(r, matched[r.index]) if r.index in matched else _missing(r)
                    for r in members
                ]
            records.append(
                QuestionRecord(
                    g, hit, complete, head.split, head.category, head.l2_category, tuple(passes)
                )
            )
        tables_src = {"circular": records}
    else:
        for row in sorted(rows, key=lambda r: r.index):
            if row.index in matched:
                p = scorer.full(row, matched[row.index])
                hit, complete = int(p.letter == row.answer), True
            elif reference_compatible:
                continue
            else:
                p, hit, complete = _missing(row), 0, False
                counts["incomplete"] += 1
            records.append(
                QuestionRecord(
                    row.index, hit, complete, row.split, row.category, row.l2_category, (p,)
                )
            )
        tables_src = {
            "vanilla_pass0": [q for q in records if q.index < CIRCULAR_STRIDE],
            "vanilla_all": records,
        }
    headline = tables_src["circular" if mode == "circular" else "vanilla_pass0"]
    if not headline:
        raise InputError(
            f"{pred_source}: no question can be scored against {data_source} "
            "(no pass-0 row has a prediction)"
        )
    all_passes = [p for q in records for p in q.passes]
    counts["questions"] = len(headline)
    counts["unparsed"] = sum(1 for p in all_passes if p.letter is None and p.stage != "missing")
    counts["judged"] = sum(1 for p in all_passes if p.stage == "judge")
    counts["judge_calls"] = sum(p.judge_calls for p in all_passes)
    counts["random"] = sum(1 for p in all_passes if p.stage == "random_fallback")
    tables = {}
    table_counts = {}
    for name, recs in tables_src.items():
        tables[name], table_counts[name] = accuracy_table(recs)
    return MMBenchResult(
        mode=mode,
        extractor=extractor,
        strict=strict,
        judge=(judge_name or "custom") if judge is not None else None,
        random_fallback=random_fallback,
        questions=tuple(records),
        tables=tables,
        table_counts=table_counts,
        counts=counts,
        data_source=data_source,
        predictions_source=pred_source,
        extract=extract,
        extraction=extraction,
        diagnostics=diagnostics,
    )


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


def _chat_stage(
    matched: dict[int, str | None], by_index: Mapping[int, MMBenchRow], extract: str | None
) -> tuple[_MMBenchDiagnostics, dict[int, _Extracted] | None, dict[int, str | None]]:
    """Diagnostics of the raw predictions and, with *extract*, the extracted ones."""
    from ..extract import apply_extractor, diagnose

    indices = sorted(matched)
    raw = [matched[i] for i in indices]
    # option texts may be long: a prediction is long only beyond twice the longest option
    limits = [
        max(5, 2 * max((len(t.split()) for t in by_index[i].options.values()), default=0))
        for i in indices
    ]
    diagnostics = _MMBenchDiagnostics(diagnose(raw, max_words=limits), indices)
    if extract is None:
        return diagnostics, None, matched
    run = apply_extractor(extract, raw)
    extraction = {
        i: _Extracted(r, t)
        for i, r, t in zip(indices, raw, run.traces, strict=True)
        if r is not None and t is not None
    }
    return diagnostics, extraction, dict(zip(indices, run.texts, strict=True))
