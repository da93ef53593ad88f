"""What a task (a benchmark) declares: its items, its profiles and its aggregation.

A task module builds one :class:`Task` and registers it (``tasks/__init__.py``). Everything a
score depends on is in the task and the chosen :class:`TaskProfile`: the per-item scorer (a pure
function of the prediction, the references and a few named item fields), the aggregation (a
pure function of the items and their scores) and the signature token of the toolkit reproduced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.arguments import ArgumentTypeError, check, check_choice
from ..core.signature import Signature
from ..readers.items import Item, ItemColumns, TaskData, TaskInputs, item_column

__all__ = [
    "KIND_TITLES",
    "Aggregate",
    "Item",
    "ItemColumns",
    "ItemScorer",
    "Task",
    "TaskData",
    "TaskInputs",
    "TaskKind",
    "TaskProfile",
    "TaskReferences",
    "Units",
    "item_column",
]

#: ``fraction`` (0–1), ``percent`` (0–100), ``points`` (MME's sums) or ``count`` (OCRBench)
Units = Literal["fraction", "percent", "points", "count"]
#: what a question asks for: ``open`` (a free-form answer), ``yes-no``, ``multiple-choice``
#: (lettered options), ``mixed`` (multiple-choice and open questions, told apart by the item's
#: fields) or ``judged`` (the default profile grades each answer with an LLM judge)
TaskKind = Literal["open", "yes-no", "multiple-choice", "mixed", "judged"]
#: what an item's references are: ``one`` gold answer, ``many`` accepted answers (the best match
#: counts) or ``votes``: the annotators' answers, scored by soft accuracy leaving one out, so a
#: single answer cannot be scored (VQA v2, TextVQA, VizWiz)
TaskReferences = Literal["one", "many", "votes"]
#: each kind's heading where tasks are listed by kind (``score --help``, ``profiles --task all``),
#: in the order they are listed
KIND_TITLES: Mapping[TaskKind, str] = {
    "open": "open answers",
    "yes-no": "yes / no",
    "multiple-choice": "multiple choice",
    "mixed": "multiple choice and open",
    "judged": "graded by an LLM judge",
}
#: ``score(prediction, references, **context) -> float``: one item's score, a pure function
ItemScorer = Callable[..., float]


@dataclass(frozen=True)
class Aggregate:
    """The numbers a toolkit prints, unrounded, in its own units.

    ``metrics`` maps a metric name to its value (``{"accuracy": 0.6125}``); ``breakdowns``
    maps a breakdown name to ``{group: {metric: value}}``; ``headline`` names the main metric;
    ``digits`` is how the toolkit rounds when it displays them.
    """

    metrics: Mapping[str, float | int]
    headline: str
    units: Units
    digits: int = 2
    breakdowns: Mapping[str, Mapping[str, Mapping[str, float | int]]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


Aggregator = Callable[[Sequence[Item], Sequence[float]], Aggregate]

#: ``__reduce__`` of a :class:`Task` and of a :class:`TaskProfile`: by registered name, with the
#: registry's lookups (set by :mod:`vqametrics.tasks`, which imports this module)
PICKLED_BY_NAME: dict[str, Callable[[Any], tuple[Any, ...]]] = {}


@dataclass(frozen=True)
class TaskProfile:
    """How one toolkit scores a task: per-item scorer, aggregation, signature token.

    ``context`` names the item fields passed to ``score`` as keyword arguments (OCRBench's
    ``dataset_name``). ``parse`` (yes/no tasks) maps a response to ``yes``/``no``/``other``.
    ``detail`` returns what the per-item output should show for an item (normalized strings)
    — for explanation only, never used for the score; a yes/no profile shows what ``parse``
    read (``parsed``) without declaring it. ``explain`` (optional) returns how the item's
    score was made, step by step, for :func:`vqametrics.views.explanation.explain_item`: ``steps``,
    ``table`` and ``why`` (the keys are described in ``tasks/_explain.py``); never used for
    the score.
    """

    name: str
    description: str
    reproduces: str
    toolkit: str
    score: ItemScorer
    aggregate: Aggregator
    context: tuple[str, ...] = ()
    parse: Callable[[str], str] | None = None
    detail: Callable[[Item], Mapping[str, Any]] | None = None
    explain: Callable[[Item], Mapping[str, Any]] | None = None
    #: multiple-choice tasks: the choice lineage ``(response, options, *, rng=None) -> letter |
    #: None | "Z" | "random"`` the profile reads letters with (``parse_choice``)
    choice: Callable[..., str | None] | None = None
    #: ``score_batch(items, data) -> scores``: every item's score at once (vectorized), equal
    #: to :meth:`score_item` of each item bit for bit (a differential test per task says so);
    #: the runner uses it when given (VQA v2's bulk scorer)
    score_batch: Callable[[Sequence[Item], TaskData], list[float]] | None = None
    #: whether the profile's own scorer reads its answer out of free text (a yes/no parser, a
    #: choice extractor): a sentence is then what it expects, and no verbose-answer
    #: diagnostics are given; ``None`` decides by :attr:`parse` and :attr:`choice`
    reads_free_text: bool | None = None

    def __post_init__(self) -> None:
        where = "TaskProfile"
        for name in ("name", "description", "reproduces", "toolkit"):
            check(where, name, getattr(self, name), "str")
        for name in ("score", "aggregate"):
            check(where, name, getattr(self, name), "callable")
        for name in ("parse", "detail", "explain", "choice", "score_batch"):
            check(where, name, getattr(self, name), "callable", optional=True)
        check_str_tuple(where, "context", self.context)
        check(where, "reads_free_text", self.reads_free_text, "bool", optional=True)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its registered task's profile of that name (its scorers are closures),
        so that results cross process pools (``joblib``, ``multiprocessing``)."""
        return PICKLED_BY_NAME["profile"](self)

    @property
    def parses_free_text(self) -> bool:
        """``True`` when verbose-answer diagnostics do not apply (see :attr:`reads_free_text`)."""
        if self.reads_free_text is not None:
            return self.reads_free_text
        return self.parse is not None or self.choice is not None

    def item_detail(self, item: Item) -> Mapping[str, Any]:
        """What the per-item output shows beside the score: ``detail(item)``, or for a yes/no
        profile the parsed answer; nothing otherwise."""
        if self.detail is not None:
            return self.detail(item)
        if self.parse is not None and item.prediction is not None:
            return {"parsed": self.parse(item.prediction)}
        return {}

    def score_item(self, item: Item) -> float:
        """The item's score; ``0.0`` when it has no prediction."""
        if item.prediction is None:
            return 0.0
        ctx = {k: item.fields.get(k) for k in self.context}
        return self.score(item.prediction, item.references, **ctx)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready description (``profiles --list --json``)."""
        return {
            "name": self.name,
            "description": self.description,
            "reproduces": self.reproduces,
            "toolkit": self.toolkit,
        }


@dataclass(frozen=True)
class Task:
    """A benchmark: how its files are read, its profiles and its signature metric name.

    ``read`` turns :class:`TaskInputs` into :class:`TaskData` (every layout the task accepts);
    ``layouts`` documents those layouts for ``--help`` and the docs. ``metric`` is the first
    token of the signature (``textvqa-acc``). ``signature_fields`` may add task fields to the
    signature (e.g. the POPE label version).
    """

    name: str
    title: str
    metric: str
    description: str
    profiles: tuple[TaskProfile, ...]
    read: Callable[[TaskInputs], TaskData]
    layouts: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    default_profile: str = "official"
    #: whether ``--annotations`` may be left out (the results file can carry the ground truth)
    annotations_optional: bool = False
    signature_fields: Callable[[TaskData], tuple[tuple[str, Any], ...]] | None = None
    #: the official scorer's own status line ("no official script: …"), shown in --list
    note: str = ""
    #: task-specific command-line options: ``(name, help)``; ``--name VALUE`` reaches
    #: ``read`` as ``inputs.options["name"]`` (dashes become underscores)
    options: tuple[tuple[str, str], ...] = ()
    #: keyword options of :func:`~vqametrics.evaluate` that have no command-line form (a
    #: callable: MMBench's ``choice_judge=``); any other unknown keyword is refused
    api_options: tuple[str, ...] = ()
    #: ``False`` when the profiles read the raw response themselves and ``extract=`` would
    #: be silently overridden (MMMU's letters, decided in ``read``): it is refused up front
    extract_applies: bool = True
    #: a toolkit's reported metric name → ours, where the names differ (lmms-eval's
    #: ``pope_f1_score`` is our ``f1``); used to set its ``results.json`` beside our numbers
    reported_names: Mapping[str, str] = field(default_factory=dict)
    #: ``explain(evaluation, index) -> object``: how one item of an evaluation is explained,
    #: when the task has more to show than its per-item record (VQA v2: every normalization
    #: step and the leave-one-out table); used by ``TaskEvaluation.explain``
    explain: Callable[[Any, int], Any] | None = None
    #: the task's own output files (``score --out``), written by ``write_outputs(evaluation,
    #: out_dir, inputs=...)``; by default ``metrics.json``, ``per_item.jsonl``, ``signature.txt``
    output_files: tuple[str, ...] = ()
    write_outputs: Callable[..., Any] | None = None
    #: ``signature_for(profile, data, extract) -> Signature`` when the task's signature has
    #: its own field order (VQA v2: ``extract`` before ``answers``); default :meth:`signature`
    signature_for: Callable[[TaskProfile, TaskData, str | None], Signature] | None = None
    #: ``finish(evaluation, inputs) -> evaluation``: the task's last step after the aggregate
    #: (VQA v2: EM / EM-any with ``metrics=``, and its toolkit check)
    finish: Callable[[Any, TaskInputs], Any] | None = None
    #: ``judge(data, profile, client, inputs) -> (data, judgements, stats)``: the task's own
    #: judge stage (MathVista's extraction, HallusionBench's verdicts, MM-Vet's grades) for the
    #: items with none recorded; run with ``client=None`` too (then it only checks they are
    #: recorded). ``data.extra["judge"]`` is then the signature's ``judge:`` value
    judge: Callable[..., tuple[Any, Any, Any]] | None = None
    #: what a question asks for (:data:`TaskKind`); read by ``rewards``, ``--help`` and the tests
    kind: TaskKind = "open"
    #: what an item's references are (:data:`TaskReferences`); ``rewards`` refuses one vote
    references: TaskReferences = "one"
    #: Hugging Face Hub ids the benchmark is published under (``lmms-lab/textvqa``): a reward's
    #: ``data_source`` may name the task by one
    datasets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        where = "Task"
        for name in ("name", "title", "metric", "description", "default_profile", "note"):
            check(where, name, getattr(self, name), "str")
        if not (
            isinstance(self.profiles, tuple)
            and self.profiles
            and all(isinstance(p, TaskProfile) for p in self.profiles)
        ):
            raise ArgumentTypeError("Task: profiles must be a non-empty tuple of TaskProfile")
        check(where, "read", self.read, "callable")
        for name in ("layouts", "aliases", "datasets", "api_options"):
            check_str_tuple(where, name, getattr(self, name))
        for name in ("annotations_optional", "extract_applies"):
            check(where, name, getattr(self, name), "bool")
        for name in (
            "signature_fields",
            "explain",
            "write_outputs",
            "signature_for",
            "finish",
            "judge",
        ):
            check(where, name, getattr(self, name), "callable", optional=True)
        if not isinstance(self.options, tuple) or not all(
            isinstance(o, tuple) and len(o) == 2 and all(isinstance(x, str) for x in o)
            for o in self.options
        ):
            raise ArgumentTypeError("Task: options must be a tuple of (name, help) strings")
        check_str_tuple(where, "output_files", self.output_files)
        check(where, "reported_names", self.reported_names, "mapping")
        check_choice(where, "kind", self.kind, tuple(KIND_TITLES))
        check_choice(where, "references", self.references, ("one", "many", "votes"))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its registry name (its readers and scorers are closures), so that
        results cross process pools; a task that is not the registered one cannot be."""
        return PICKLED_BY_NAME["task"](self)

    def profile(self, name: str | None = None) -> TaskProfile:
        """The profile *name* (default: the task's default profile)."""
        from ..core.exceptions import UnknownNameError

        name = name or self.default_profile
        for prof in self.profiles:
            if prof.name == name:
                return prof
        names = ", ".join(p.name for p in self.profiles)
        raise UnknownNameError(
            f"task {self.name!r} has no profile {name!r}; choose one of: {names}"
        )

    def signature(self, prof: TaskProfile, data: TaskData) -> Signature:
        """The signature of a score of *data* under *prof*."""
        extra = self.signature_fields(data) if self.signature_fields else ()
        return Signature(
            self.metric,
            (
                ("profile", prof.name),
                ("toolkit", prof.toolkit),
                *extra,
                ("n", len(data.items)),
                ("missing", data.n_missing or None),
            ),
        )


def check_str_tuple(where: str, name: str, value: object) -> None:
    """A declaration's tuple of strings (``layouts``, ``context``, ...), else the library's
    error naming it."""
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        raise ArgumentTypeError(f"{where}: {name} must be a tuple of strings, got {value!r:.60}")
