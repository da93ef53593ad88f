"""Find the runs in toolkit output folders: which file is which model's run of which benchmark,
which files belong to a run (its reported scores, its judge sheets), and which are neither.

VLMEvalKit writes ``<model>_<DATASET>.xlsx`` (or ``.tsv``/``.csv``/``.json``) with
``<model>_<DATASET>_<suffix>`` beside it: ``_acc.csv``, ``_score.csv``, ``_score.json`` (its
reported numbers), ``_openai_result.xlsx``, ``_auxmatch.xlsx``, ``_<judge>.xlsx``/``.pkl``
(judge decisions). lmms-eval writes ``<date>_samples_<task>.jsonl`` beside
``<date>_results.json`` (one results file for every task of the run).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.exceptions import InputError
from ..readers.toolkit_names import (  # what a name says: shared with the runner's warning
    LMMS_EVAL_TASKS,
    VLMEVALKIT_DATASETS,
    lmms_samples,
    main_split,
    vlmevalkit_splits,
)

__all__ = ["Found", "Run", "find_runs"]

#: files whose name says they hold the toolkit's reported numbers
_REPORTED_SUFFIXES = ("_acc.csv", "_score.csv", "_score.json")
_LMMS_RESULTS = re.compile(r"^(?P<date>.+?)_results\.json$")


@dataclass
class Run:
    """One model's run of one benchmark: its main file and the files attached to it."""

    model: str
    benchmark: str
    path: Path
    toolkit: str
    #: the toolkit's reported-score files (``_acc.csv``, ``_score.json``, ``results.json``)
    reported: list[Path] = field(default_factory=list)
    #: other files of the run (judge sheets, extraction sheets)
    auxiliary: list[Path] = field(default_factory=list)
    #: reported files that could not be read (the cell then shows our number and a note)
    unreadable: list[Path] = field(default_factory=list)


@dataclass
class Found:
    """What the given paths hold: the runs, and every file that is not part of one."""

    runs: list[Run]
    unrecognized: list[Path]
    n_files: int


def _files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Every file under *paths* (a folder is walked, hidden entries skipped), sorted, once."""
    out: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        p = Path(given)
        if p.is_dir():
            found = sorted(
                f
                for f in p.rglob("*")
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
        elif p.is_file():
            found = [p]
        else:
            raise InputError(f"{p}: no such file or folder")
        for f in found:
            key = f.absolute()
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def _lmms_model(results: Path) -> str | None:
    """The model an lmms-eval ``results.json`` names (``model_name``), if it can be read."""
    import json

    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("model_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def find_runs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    names: Mapping[str, str] | None = None,
    benchmarks: Iterable[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> Found:
    """The runs under *paths*; *names* maps a path (a file or a folder above it) to the model
    name its runs get; *benchmarks* keeps only those benchmark keys. Two runs of the same model
    and benchmark are an error naming both files."""
    files = _files(paths)
    keep = set(benchmarks) if benchmarks is not None else None
    runs: dict[tuple[str, str], Run] = {}
    mains: dict[tuple[Path, str], Run] = {}  # (folder, "<model>_<DATASET>") → run
    lmms_results: dict[tuple[Path, str], Path] = {}
    rest: list[Path] = []
    named = {Path(k).absolute(): v for k, v in (names or {}).items()}

    def model_of(path: Path, default: str) -> str:
        for parent in (path.absolute(), *path.absolute().parents):
            if parent in named:
                return named[parent]
        return default

    def add(run: Run) -> None:
        if keep is not None and run.benchmark not in keep:
            return
        key = (run.model, run.benchmark)
        if key in runs:
            other = runs[key]
            raise InputError(
                f"two files for model {run.model!r} and benchmark {run.benchmark}: "
                f"{other.path} and {run.path}; tell them apart with --name NAME=PATH"
            )
        runs[key] = run

    for i, f in enumerate(files):
        if progress is not None:
            progress(i, len(files), f.name)
        name = f.name
        m = _LMMS_RESULTS.match(name)
        if m is not None:
            lmms_results[(f.parent, m["date"])] = f
            continue
        lmms = lmms_samples(name)
        if lmms is not None:
            date, task = lmms
            default = _lmms_model(f.with_name(f"{date}_results.json")) or f.parent.name
            run = Run(model_of(f, default), LMMS_EVAL_TASKS[task], f, "lmms-eval")
            mains[(f.parent, f"lmms:{date}:{task}")] = run
            add(run)
            continue
        parsed = main_split(name)
        if parsed is not None:
            model, dataset = parsed
            run = Run(model_of(f, model), VLMEVALKIT_DATASETS[dataset], f, "VLMEvalKit")
            prior = mains.get((f.parent, f"{model}_{dataset}"))
            if prior is not None:
                # the same run in two formats (.xlsx and .tsv): the sheet is the run
                raise InputError(
                    f"two files for model {run.model!r} and benchmark {run.benchmark}: "
                    f"{prior.path} and {f}; keep one"
                )
            mains[(f.parent, f"{model}_{dataset}")] = run
            add(run)
            continue
        rest.append(f)
    if progress is not None:
        progress(len(files), len(files), "")
    unrecognized: list[Path] = []
    for f in rest:
        # the reading whose <model>_<DATASET> is a run in the same folder
        owned = [
            (mains[(f.parent, f"{model}_{dataset}")], tail)
            for model, dataset, tail in vlmevalkit_splits(f.name)
            if (f.parent, f"{model}_{dataset}") in mains
        ]
        if not owned:
            unrecognized.append(f)
            continue
        run, tail = owned[0]
        if tail in _REPORTED_SUFFIXES:
            run.reported.append(f)
        else:
            run.auxiliary.append(f)
    for (folder, tag), run in mains.items():
        if tag.startswith("lmms:"):
            date = tag.split(":")[1]
            results = lmms_results.pop((folder, date), None)
            if results is not None:
                run.reported.append(results)
                # one results file serves every task of the run
                lmms_results[(folder, date)] = results
    used = {p for r in mains.values() for p in r.reported}
    unrecognized += [p for p in lmms_results.values() if p not in used]
    ordered = sorted(runs.values(), key=lambda r: (r.model, r.benchmark))
    return Found(ordered, sorted(unrecognized), len(files))
