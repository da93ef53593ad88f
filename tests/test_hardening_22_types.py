"""Every public entry point given a wrong type raises the library's error (issue 22).

The audit fed 502 misuses to the Python API and 142 raised ``AttributeError``, ``TypeError``,
``ValueError`` or ``IndexError`` from deep inside (``score_answer("docvqa", None, ["a"])``).
Here every callable of ``vqametrics.__all__`` is called from a valid baseline with one argument
replaced by a value of a type that argument does not take: the call must raise a
``VqaMetricsError`` (and nothing else). The types each argument takes are written here from
the functions' documented signatures, not read from the code under test.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import os
import random
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vqametrics
from vqametrics import VqaMetricsError
from vqametrics.mmbench import MMBenchData, MMBenchRow
from vqametrics.profiles import Profile
from vqametrics.readers.vqa import VQADataset
from vqametrics.tasks import Task, TaskData, TaskProfile, get_task

TEXTVQA = Path(vqametrics.__file__).parent / "data" / "textvqa_val_sample"
VQA2 = Path(__file__).parent / "data" / "vqa2_val_5q_official"
OPTIONS = {"A": "cat", "B": "dog"}
ROWS = [MMBenchRow(1, OPTIONS, "B", question="Q?"), MMBenchRow(2, OPTIONS, "A", question="Q?")]
CHARTQA_TSV = (
    "index\tquestion\tanswer\tprediction\tsplit\n"
    "1\tq1\t12\t12.5\ttest_human\n"
    "2\tq2\tyes\tYes\ttest_augmented\n"
)


# --------------------------------------------------------------------------- what each takes


def _int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _real(v: object) -> bool:
    return _int(v) or (isinstance(v, float) and math.isfinite(v))


def _seq(v: object) -> bool:
    return isinstance(v, list | tuple)


def _path(v: object) -> bool:
    return isinstance(v, str | os.PathLike)


def _opt(test: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda v: v is None or test(v)


def _evaluation(v: object) -> bool:
    return hasattr(v, "scores")


def _str_tuple(v: object) -> bool:
    return isinstance(v, tuple) and all(isinstance(x, str) for x in v)


#: an argument's valid types (generous: a value of a valid type may still be refused, by value)
TAKES: dict[str, Callable[[object], bool]] = {
    "str": lambda v: isinstance(v, str),
    "str?": _opt(lambda v: isinstance(v, str)),
    "bool": lambda v: isinstance(v, bool),
    "bool?": _opt(lambda v: isinstance(v, bool)),
    "int": _int,
    "int?": _opt(_int),
    "ci": lambda v: isinstance(v, bool) or _int(v),
    "real": _real,
    "path": _path,
    "path?": _opt(_path),
    "task": lambda v: isinstance(v, str | Task),
    "profile": lambda v: isinstance(v, str | Profile),
    "strs": lambda v: _seq(v) and all(isinstance(x, str) for x in v),  # type: ignore[attr-defined]
    "strs?": _opt(lambda v: _seq(v) and all(isinstance(x, str) for x in v)),  # type: ignore[attr-defined]
    "str|strs": lambda v: isinstance(v, str) or (_seq(v) and all(isinstance(x, str) for x in v)),  # type: ignore[attr-defined]
    "reals": lambda v: _seq(v) and all(_real(x) for x in v),  # type: ignore[attr-defined]
    "sequence?": _opt(_seq),
    "mapping": lambda v: isinstance(v, Mapping),
    "mapping?": _opt(lambda v: isinstance(v, Mapping)),
    "answers": lambda v: _seq(v) and all(isinstance(x, str | dict) for x in v),  # type: ignore[attr-defined]
    "callable": callable,
    "callable?": _opt(callable),
    "rng?": _opt(lambda v: isinstance(v, random.Random)),
    "evaluation": _evaluation,
    "results": lambda v: isinstance(v, str | os.PathLike | list | tuple | dict),
    "annotations?": _opt(lambda v: isinstance(v, str | os.PathLike | list | tuple | dict)),
    "vqa_annotations?": _opt(
        lambda v: isinstance(v, str | os.PathLike | list | tuple | VQADataset)
    ),
    "mmbench_data": lambda v: isinstance(v, MMBenchData | list | tuple),
    "paths": lambda v: _path(v) or (_seq(v) and all(_path(x) for x in v)),  # type: ignore[attr-defined]
    "profiles?": _opt(lambda v: isinstance(v, str | Mapping | list | tuple | set)),
    "average?": _opt(lambda v: isinstance(v, str | list | tuple)),
    "judge?": lambda v: v is None,  # a JudgeClient; none of the values below is one
    "sig_fields": lambda v: isinstance(v, tuple),
    "str_tuple": _str_tuple,
    "tuple": lambda v: isinstance(v, tuple),
    "profiles": lambda v: isinstance(v, tuple) and bool(v),
    "kind": lambda v: isinstance(v, str),
    "object": lambda v: True,  # not checked
}


# --------------------------------------------------------------------------- the baselines


def _table_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="vqm-types-")) / "m"
    folder.mkdir()
    (folder / "m_ChartQA_TEST.tsv").write_text(CHARTQA_TSV, encoding="utf-8")
    return folder.parent


def _evaluation_of(profile: str) -> Any:
    return vqametrics.evaluate(
        "textvqa",
        TEXTVQA / "results_vila-1.5-8b.json",
        annotations=TEXTVQA / "annotations.json",
        profile=profile,
    )


def _fields_of(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _baselines() -> dict[str, tuple[tuple[Any, ...], dict[str, Any], dict[str, str]]]:
    """name -> (args, kwargs, {parameter: what it takes}) for every public callable."""
    ev = _evaluation_of("official")
    task = get_task("textvqa")
    textvqa = {"annotations": TEXTVQA / "annotations.json"}
    evaluate_kinds = {
        "task": "task",
        "results": "results",
        "annotations": "annotations?",
        "questions": "annotations?",
        "profile": "str?",
        "format": "str?",
        "id_field": "str?",
        "answer_field": "str?",
        "allow_missing": "bool",
        "ignore_extra": "bool",
        "on_duplicate": "str",
        "reported": "path?",
        "extract": "str?",
        "judge": "judge?",
        "ci": "ci",
        "seed": "int?",
    }
    stats = {"n_bootstrap": "int", "seed": "int", "confidence": "real"}
    return {
        "evaluate": (("textvqa", TEXTVQA / "results_vila-1.5-8b.json"), textvqa, evaluate_kinds),
        "evaluate_task": (
            ("textvqa", TEXTVQA / "results_vila-1.5-8b.json"),
            textvqa,
            evaluate_kinds,
        ),
        "evaluate_vqa": (
            (VQA2 / "annotations.json", VQA2 / "results.json"),
            {},
            {
                "annotations": "vqa_annotations?",
                "results": "results",
                "questions": "path?",
                "profile": "profile",
                "allow_missing": "bool",
                "ignore_extra": "bool",
                "on_duplicate": "str",
                "digits": "int",
                "input_format": "str?",
                "id_field": "str?",
                "answer_field": "str?",
                "reported": "path?",
                "extract": "str?",
                "metrics": "str|strs",
                "ci": "ci",
            },
        ),
        "evaluate_mmbench": (
            (ROWS, {1: "B", 2: "A"}),
            {"mode": "vanilla"},
            {
                "data": "mmbench_data",
                "predictions": "mapping",
                "mode": "str",
                "extractor": "str",
                "reference_compatible": "bool",
                "judge": "callable?",
                "judge_name": "str?",
                "random_fallback": "int?",
                "extract": "str?",
            },
        ),
        "explain": (
            ("yes", ["yes"] * 10),
            {},
            {"prediction": "str", "answers": "answers", "profile": "profile", "extract": "str?"},
        ),
        "get_profile": (("official",), {}, {"name": "profile"}),
        "get_task": (("textvqa",), {}, {"name": "task"}),
        "list_profiles": ((), {}, {}),
        "list_tasks": ((), {}, {}),
        "normalize_answer": (("Yes",), {}, {"text": "str", "profile": "profile", "role": "str"}),
        "vqa_accuracy": (
            ("yes", ["yes"] * 10),
            {},
            {"prediction": "str", "answers": "answers", "profile": "profile"},
        ),
        "score_answer": (
            ("textvqa", "yes", ["yes"] * 10),
            {},
            {"task": "task", "prediction": "str", "references": "str|strs", "profile": "str?"},
        ),
        "parse_choice": (
            ("A", OPTIONS),
            {"task": "mmbench"},
            {
                "response": "str",
                "options": "mapping",
                "task": "task",
                "profile": "str?",
                "rng": "rng?",
            },
        ),
        "bootstrap_ci": (
            ([1.0, 0.0, 1.0],),
            {},
            {"scores": "reals", "groups": "mapping?", "clusters": "sequence?", **stats},
        ),
        "paired_test": (
            ([1.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
            {},
            {
                "scores_a": "reals",
                "scores_b": "reals",
                "groups": "mapping?",
                "clusters": "sequence?",
                "n_permutations": "int",
                **stats,
            },
        ),
        "evaluation_ci": ((ev,), {}, {"result": "evaluation", **stats}),
        "diff_results": (
            (ev, _evaluation_of("official")),
            {},
            {"a": "evaluation", "b": "evaluation", "n_permutations": "int", **stats},
        ),
        "table": (
            (_table_dir(),),
            {},
            {
                "paths": "paths",
                "tasks": "strs?",
                "profiles": "profiles?",
                "names": "mapping?",
                "columns": "strs?",
                "average": "average?",
                "digits": "int?",
                "options": "mapping?",
                "progress": "callable?",
                "search": "bool",
            },
        ),
        "Signature": (
            ("m", (("a", 1),)),
            {},
            {"metric": "str", "fields": "sig_fields", "version": "str"},
        ),
        "Task": ((), _fields_of(task), _TASK_FIELDS),
        "TaskProfile": ((), _fields_of(task.profile()), _PROFILE_FIELDS),
        "TaskEvaluation": (
            (),
            _fields_of(ev),
            {
                "task": "task_object",
                "profile": "profile_object",
                "data": "data_object",
                "aggregate": "aggregate_object",
                "signature": "signature_object",
                **{
                    f.name: "object"
                    for f in dataclasses.fields(ev)
                    if f.name not in ("task", "profile", "data", "aggregate", "signature", "scores")
                },
                "scores": "object",  # only its length is checked (against the items)
            },
        ),
    }


_TASK_FIELDS = {
    **dict.fromkeys(("name", "title", "metric", "description", "default_profile", "note"), "str"),
    "profiles": "profiles",
    "read": "callable",
    **dict.fromkeys(("layouts", "aliases", "datasets", "output_files", "api_options"), "str_tuple"),
    **dict.fromkeys(("annotations_optional", "extract_applies"), "bool"),
    **dict.fromkeys(
        ("signature_fields", "explain", "write_outputs", "signature_for", "finish", "judge"),
        "callable?",
    ),
    "options": "tuple",
    "reported_names": "mapping",
    "kind": "kind",
    "references": "kind",
}
_PROFILE_FIELDS = {
    **dict.fromkeys(("name", "description", "reproduces", "toolkit"), "str"),
    **dict.fromkeys(("score", "aggregate"), "callable"),
    **dict.fromkeys(("parse", "detail", "explain", "choice", "score_batch"), "callable?"),
    "context": "str_tuple",
    "reads_free_text": "bool?",
}
TAKES.update(
    {
        "task_object": lambda v: isinstance(v, Task),
        "profile_object": lambda v: isinstance(v, TaskProfile),
        "data_object": lambda v: isinstance(v, TaskData),
        "aggregate_object": lambda v: type(v).__name__ == "Aggregate",
        "signature_object": lambda v: isinstance(v, vqametrics.Signature),
    }
)

BASELINES = _baselines()
PAIRS = [
    (name, param)
    for name, (_, _, kinds) in BASELINES.items()
    for param, kind in kinds.items()
    if kind != "object"  # a result's own fields: not an argument a caller types
]

#: values of every common wrong type (the audit's probes: None, numbers, bytes, containers)
HOSTILE: list[object] = [
    None,
    True,
    0,
    -1,
    3,
    2.5,
    math.nan,
    "zz",
    b"x",
    ["x"],
    [1],
    [None],
    {"x": 1},
    {1, 2},
    ("a",),
    (("a", [1]),),
    object(),
    lambda: None,
]
hostile = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.binary(max_size=4),
    st.lists(st.one_of(st.none(), st.integers(), st.binary(max_size=2)), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.frozensets(st.integers(), max_size=2),
    st.tuples(st.integers()),
    st.builds(object),
)


def _call(name: str, param: str, value: object) -> None:
    """Call *name* from its baseline with *param* replaced by *value*."""
    args, kwargs, _ = BASELINES[name]
    function = getattr(vqametrics, name)
    params = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    position = next((i for i, p in enumerate(params) if p.name == param), len(params))
    args, kwargs = list(args), dict(kwargs)
    if position < len(args):
        args[position] = value
    else:
        kwargs[param] = value
    function(*args, **kwargs)


def _public_callables() -> set[str]:
    names = set()
    for name in vqametrics.__all__:
        obj = getattr(vqametrics, name)
        if callable(obj) and not (isinstance(obj, type) and issubclass(obj, BaseException)):
            names.add(name)
    return names


# --------------------------------------------------------------------------- the tests


def test_every_public_callable_has_a_baseline() -> None:
    assert _public_callables() == set(BASELINES)


def test_every_argument_is_covered() -> None:
    for name, (_, _, kinds) in BASELINES.items():
        parameters = inspect.signature(getattr(vqametrics, name)).parameters.values()
        params = {p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        if any(p.kind == p.VAR_KEYWORD for p in parameters) and name == "evaluate_task":
            params = set(BASELINES["evaluate"][2])  # its **kwargs are evaluate's
        assert params == set(kinds), name


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_the_baseline_call_is_valid(name: str) -> None:
    args, kwargs, _ = BASELINES[name]
    getattr(vqametrics, name)(*args, **kwargs)


@pytest.mark.parametrize(("name", "param"), PAIRS)
def test_each_common_wrong_type_is_the_librarys_error(name: str, param: str) -> None:
    takes = TAKES[BASELINES[name][2][param]]
    wrong = [v for v in HOSTILE if not takes(v)]
    for value in wrong:
        with pytest.raises(VqaMetricsError):
            _call(name, param, value)


@settings(max_examples=500, suppress_health_check=[HealthCheck.filter_too_much])
@given(pair=st.sampled_from(PAIRS), data=st.data())
def test_any_wrong_type_is_the_librarys_error(pair: tuple[str, str], data: st.DataObject) -> None:
    # one property over every (entry point, argument): make test draws 100 of them, the
    # thorough profile (make test-slow) 500
    name, param = pair
    takes = TAKES[BASELINES[name][2][param]]
    value = data.draw(hostile.filter(lambda v: not takes(v)), label=param)
    try:
        _call(name, param, value)
    except VqaMetricsError:
        return
    except Exception as exc:  # the finding: a foreign exception from deep inside
        pytest.fail(f"{name}({param}={value!r}) raised {type(exc).__name__}: {exc}")
    pytest.fail(f"{name}({param}={value!r}) was accepted")


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        # the audit's own probes
        (lambda: vqametrics.score_answer("docvqa", None, ["a"]), "prediction must be a string"),
        (lambda: vqametrics.get_task(None), "name must be a string"),
        (lambda: vqametrics.vqa_accuracy("a", [1]), "answers"),
        (lambda: vqametrics.bootstrap_ci([1.0], seed="x"), "seed must be an integer"),
        (lambda: vqametrics.evaluation_ci(3), "result must be an evaluation"),
        (lambda: vqametrics.table(3), "paths must be"),
    ],
)
def test_the_message_names_the_argument(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(VqaMetricsError, match=fragment) as info:
        call()
    assert isinstance(info.value, TypeError)  # a wrong type is also Python's TypeError


def test_a_wrong_value_of_the_right_type_is_still_a_value_error() -> None:
    from vqametrics import InputError

    with pytest.raises(InputError, match="confidence must be in"):
        vqametrics.bootstrap_ci([1.0, 0.0], confidence=2.0)
    with pytest.raises(InputError, match="on_duplicate must be one of"):
        vqametrics.evaluate("textvqa", [], on_duplicate="first")
