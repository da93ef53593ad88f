"""The public API: a small, sorted, explicit surface (as httpx checks its exports)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

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
    # importing vqametrics.explain (the module) must not hide vqametrics.explain (the function)
    import subprocess
    import sys

    code = (
        "import vqametrics; vqametrics.Explanation; "
        "print(vqametrics.explain('Yes', ['yes'] * 10).unanimous)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
