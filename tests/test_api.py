"""The public API: a small, sorted, explicit surface (as httpx checks its exports)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import vqametrics


def test_all_is_sorted_and_complete() -> None:
    public = {n for n in dir(vqametrics) if not n.startswith("_")} | {"__version__"}
    modules = {n for n in public if type(getattr(vqametrics, n)).__name__ == "module"}
    assert sorted(vqametrics.__all__, key=str.casefold) == sorted(
        public - modules, key=str.casefold
    )


def test_version_is_in_signature() -> None:
    from vqametrics.data import sample_files

    f = sample_files("textbook")
    signature = vqametrics.evaluate_vqa(f["annotations"], f["results"]).signature.format()
    assert signature.split("|")[-1] == "vqametrics:0.1.0"  # the version pyproject builds
    assert vqametrics.__version__ == "0.1.0"


MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(vqametrics.__path__, "vqametrics.")
    if not m.name.startswith(("vqametrics.demo", "vqametrics.__main__"))
)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    mod = importlib.import_module(module)
    failures, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_signature_format_and_dict() -> None:
    sig = vqametrics.Signature("vqa-acc", (("profile", "official"), ("ci", True), ("x", None)))
    assert sig.format() == "vqa-acc|profile:official|ci:yes|vqametrics:0.1.0"
    assert sig.as_dict() == {
        "metric": "vqa-acc",
        "profile": "official",
        "ci": True,
        "vqametrics": "0.1.0",
    }
    assert sig.with_fields(seed=12).format().endswith("|seed:12|vqametrics:0.1.0")
    # a field set again keeps its place: never written twice
    assert sig.with_fields(ci=False).format() == "vqa-acc|profile:official|ci:no|vqametrics:0.1.0"


def test_unknown_profile_error_lists_names() -> None:
    with pytest.raises(
        vqametrics.UnknownNameError, match="valid profiles: official, official-2017"
    ):
        vqametrics.get_profile("offical")


def test_core_import_is_light() -> None:
    import subprocess
    import sys

    heavy = "('numpy', 'matplotlib', 'starlette')"
    code = f"import sys, vqametrics; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_explain_stays_the_function_after_its_module_is_imported() -> None:
    # importing the explanation module leaves vqametrics.explain the function
    import subprocess
    import sys

    code = (
        "import vqametrics, importlib; vqametrics.explain; "
        "importlib.import_module('vqametrics.views.explanation').Explanation; "
        "print(vqametrics.explain('Yes', ['yes'] * 10).unanimous)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_at_most_thirty_public_names() -> None:
    assert len(set(vqametrics.__all__) - {"__version__"}) <= 30


def test_no_module_is_named_like_an_exported_function() -> None:
    modules = {m.name for m in pkgutil.iter_modules(vqametrics.__path__)}
    functions = {n for n in vqametrics.__all__ if callable(getattr(vqametrics, n))}
    assert modules & functions == set()
    assert not isinstance(vqametrics.evaluate, type(vqametrics))  # the function, not a module


def test_evaluate_is_the_one_entry_point() -> None:
    from vqametrics.data import sample_files

    f = sample_files("textbook")
    ev = vqametrics.evaluate("vqav2", f["results"], annotations=f["annotations"])
    assert isinstance(ev, vqametrics.TaskEvaluation)
    alias = vqametrics.evaluate_task("vqav2", f["results"], annotations=f["annotations"])
    assert alias.scores == ev.scores and alias.as_dict() == ev.as_dict()
    # the textbook example of the spec: its scores as the official script gives them
    old = vqametrics.evaluate_vqa(f["annotations"], f["results"])
    assert ev.scores == old.scores
    for fn in (vqametrics.evaluate_task, vqametrics.evaluate_vqa, vqametrics.evaluate_mmbench):
        assert "evaluate" in (fn.__doc__ or "").split("\n\n")[0]


def test_explain_stays_the_function_after_an_evaluation_explains(tmp_path: Path) -> None:
    # TaskEvaluation.explain imports the explanation module: vqametrics.explain stays the function
    import subprocess
    import sys

    f = tmp_path / "r.csv"
    f.write_text("index,answer,prediction\n1,cat,cat\n", encoding="utf-8")
    code = (
        "import vqametrics; "
        f"vqametrics.evaluate('ocrvqa', {str(f)!r}).explain(1); "
        "print(vqametrics.explain('Yes', ['yes'] * 10).unanimous)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("vqametrics.pipeline.vqa", "VQAEvaluation"),
        ("vqametrics.readers.vqa", "load_annotations"),
        ("vqametrics.kernels.exact_match", "exact_match_any"),
        ("vqametrics.extract", "extract_answer"),
        ("vqametrics.integrations.metrics", "VQAAccuracy"),
        ("vqametrics.mmbench", "build_circular"),
        ("vqametrics.analysis.compare", "compare_vqa"),
        ("vqametrics.tasks", "parse_yes_no"),
    ],
)
def test_the_rest_is_in_its_submodule(module: str, name: str) -> None:
    assert name not in vqametrics.__all__
    assert hasattr(importlib.import_module(module), name)
