"""``readers/_paths.py`` spells paths as :mod:`pathlib` does (issue 23 took pathlib off a
small score's start): each helper against ``pathlib`` itself, on chosen and generated paths."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers._paths import (
    glob_names,
    path_join,
    path_name,
    path_suffix,
    path_text,
    path_with_name,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="elsewhere pathlib itself answers")

CHOSEN = [
    "",
    ".",
    "..",
    "/",
    "//",
    "///",
    "////a",
    "//a/b",
    "a",
    "a/",
    "./a//b/./",
    "a/./b/../c",
    "/x/./y.csv/",
    "x.tar.gz",
    ".xlsx",
    "a/.xlsx",
    "a.",
    "a..",
    "a.b.",
    "..csv",
    "dir.csv/.",
    "d/coco_pope_random.json",
    "sp ace/é.JSONL",
]

#: path text from the characters that matter to parsing: slashes, dots and a few letters
PATHS = st.text(alphabet="/.ab_xcsvé ", max_size=14)


@pytest.mark.parametrize("text", CHOSEN)
def test_chosen_paths_are_spelled_as_pathlib_spells_them(text: str) -> None:
    path = PurePosixPath(text)
    assert path_text(text) == str(path)
    assert path_name(text) == path.name
    assert path_suffix(text) == path.suffix
    assert path_join(text, "coco_pope_random.json") == str(path / "coco_pope_random.json")
    _same_with_name(text, "x_acc.csv")


def _same_with_name(text: str, name: str) -> None:
    """``path_with_name`` is ``with_name``, a path without a name refused by both."""
    try:
        expected = str(PurePosixPath(text).with_name(name))
    except ValueError:
        with pytest.raises(ValueError, match="has an empty name"):
            path_with_name(text, name)
    else:
        assert path_with_name(text, name) == expected


@given(PATHS)
def test_generated_paths_are_spelled_as_pathlib_spells_them(text: str) -> None:
    path = PurePosixPath(text)
    assert path_text(text) == str(path)
    assert path_name(text) == path.name
    assert path_suffix(text) == path.suffix


@given(PATHS, st.text(alphabet=".ab_xé", min_size=1, max_size=6).filter(lambda n: n != "."))
def test_a_name_joins_a_folder_as_pathlib_joins_it(folder: str, name: str) -> None:
    assert path_join(folder, name) == str(PurePosixPath(folder) / name)
    _same_with_name(folder, name)


def test_a_path_object_is_spelled_as_its_text_and_bytes_are_refused() -> None:
    assert path_text(Path("./a//b")) == "a/b"
    with pytest.raises(TypeError):
        path_text(b"a")  # type: ignore[arg-type]


def test_the_names_a_glob_finds(tmp_path: Path) -> None:
    names = ["coco_pope_random.json", "coco_pope_.json", "Coco_pope_x.json", "coco_pope_a.jsonl"]
    names += ["coco_pope.json", "x_coco_pope_b.json", ".coco_pope_hidden.json"]
    for name in names:
        (tmp_path / name).write_text("{}")
    (tmp_path / "coco_pope_dir.json").mkdir()  # glob finds folders too
    expected = sorted(p.name for p in tmp_path.glob("coco_pope_*.json"))
    assert sorted(glob_names(str(tmp_path), "coco_pope_", ".json")) == expected
    assert expected == ["coco_pope_.json", "coco_pope_dir.json", "coco_pope_random.json"]
