"""Build the paper table: score every run found, set each cell beside the toolkit's number,
and tell which profile reproduces a number that differs."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..core.arguments import ArgumentTypeError, check
from ..core.exceptions import (
    InputError,
    UnknownNameError,
    command_line_spelled,
    takes_value,
)
from .benchmarks import BENCHMARKS, Benchmark, Measure, benchmark
from .cells import Cell, Column, PaperTable
from .discover import Found, Run, find_runs
from .values import DISPLAY_DIGITS, display, our_value

if TYPE_CHECKING:
    from ..tasks._run import TaskEvaluation

__all__ = ["parse_profiles", "table"]

# -- the profiles -------------------------------------------------------------------------


def parse_profiles(specs: Iterable[str] | Mapping[str, str] | str | None) -> dict[str, str]:
    """``["vlmevalkit", "mme=official"]`` → ``{"*": "vlmevalkit", "mme": "official"}``: a bare
    name applies to every task that has such a profile, ``TASK=NAME`` to one task."""
    if specs is None:
        return {}
    if isinstance(specs, str):
        specs = [specs]
    if isinstance(specs, Mapping):
        return {str(k): str(v) for k, v in specs.items()}
    from ..tasks import get_task

    out: dict[str, str] = {}
    for spec in specs:
        task, sep, name = spec.partition("=")
        if not sep:
            if "*" in out:
                raise InputError(f"--profile {spec}: one profile for every task was given twice")
            out["*"] = spec
            continue
        if not task or not name:
            raise InputError(f"--profile {spec}: expected NAME or TASK=NAME")
        t = get_task(task)
        t.profile(name)  # an unknown profile fails before any file is read
        out[t.name] = name
    return out


def _is_vlmevalkit(prof: Any) -> bool:
    return bool(prof.toolkit.startswith("VLMEvalKit") or prof.name.startswith("vlmevalkit"))


def _same_toolkit(prof: Any, toolkit: str) -> bool:
    if toolkit == "lmms-eval":
        return bool(prof.name.startswith("lmms-eval") or prof.toolkit.startswith("lmms-eval"))
    return _is_vlmevalkit(prof)


# -- numbers --------------------------------------------------------------------------------


def _raw_value(ev: TaskEvaluation, measure: Measure) -> float | None:
    found = our_value(ev, measure)
    if found is None:
        return None
    value = found[0]
    return value / 100.0 if ev.aggregate.units == "fraction" else value


def _reported_value(
    ev: TaskEvaluation,
    bench: Benchmark,
    measure: Measure,
    reported: Mapping[str, Any] | None,
) -> tuple[float, str] | None:
    """The toolkit's number for *measure* in its reported record, in the table's units, and
    where it was read."""
    if not reported:
        return None
    source = str(reported.get("source", "?"))
    if reported.get("toolkit") == "lmms-eval":
        from ..pipeline.toolkit_check import reported_pairs

        mine = _raw_value(ev, measure)
        if mine is None:
            return None
        for _, theirs, ours in reported_pairs(ev, reported):
            if ours == mine:
                return display(theirs, ev.aggregate.units)[0], source
        return None
    values = reported.get("values", {})
    for path in measure.reported:
        group, _, metric = path.partition("/")
        row = values.get(group)
        if isinstance(row, Mapping) and isinstance(row.get(metric), int | float):
            return float(row[metric]) * bench.reported_scale, source
    return None


def _same(a: float, b: float, digits: int) -> bool:
    return f"{a:.{digits}f}" == f"{b:.{digits}f}"


# -- reading the toolkit's files ourselves --------------------------------------------------


def _read_own_reported(path: Path, toolkit: str) -> dict[str, Any]:
    """A reported-score file read as the task readers would, plus VLMEvalKit's ``_score.json``
    (a flat ``{metric: number}`` object, e.g. OCRBench's) that they do not read."""
    from ..readers.layouts import read_reported

    if path.suffix.lower() == ".json" and toolkit == "VLMEvalKit":
        import json

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not readable as JSON ({exc})") from None
        if not isinstance(data, dict):
            raise InputError(f"{path}: expected an object of scores")
        numbers = {
            str(k): float(v)
            for k, v in data.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        return {"source": os.fspath(path), "toolkit": "VLMEvalKit", "values": {"all": numbers}}
    tk, source, values = read_reported(path)  # not UTF-8: an InputError naming the byte
    return {"source": source, "toolkit": tk, "values": values}


class _Scorer:
    """Scores runs, once per (run, profile), with every error one line naming the file."""

    def __init__(self, options: Mapping[str, Mapping[str, Any]]) -> None:
        self.options = options
        self.cache: dict[tuple[str, str | None], TaskEvaluation | InputError] = {}
        self.tmp: list[str] = []

    def evaluate(self, run: Run, profile: str | None, *, hide: Sequence[Path] = ()) -> Any:
        from ..tasks._run import evaluate

        bench = benchmark(run.benchmark)
        key = (os.fspath(run.path), profile)
        if key in self.cache:
            hit = self.cache[key]
            if isinstance(hit, InputError):
                raise hit
            return hit
        path = run.path
        if hide:
            path = self._without(run, hide)
        try:
            with _own_names(run, path) as own:
                ev = evaluate(
                    bench.task, os.fspath(path), profile=profile, **self.options.get(bench.task, {})
                )
                if own is not None:  # the sources and notes name the user's file
                    data = ev.data
                    ev = replace(
                        ev,
                        data=replace(
                            data,
                            sources=tuple(map(own, data.sources)),
                            notes=tuple(map(own, data.notes)),
                        ),
                    )
        except InputError as exc:
            err = _as_table_error(exc, run, path)
            self.cache[key] = err
            if err is exc:
                raise
            raise err from None
        except (OSError, UnicodeDecodeError) as exc:
            err = _as_table_error(InputError(f"{run.path}: {exc}"), run, path)
            self.cache[key] = err
            raise err from None
        self.cache[key] = ev
        return ev

    def _without(self, run: Run, hide: Sequence[Path]) -> Path:
        """A temporary folder holding the run's files but *hide* (a reported file that cannot
        be read), so that the task reader does not trip over it."""
        folder = tempfile.mkdtemp(prefix="vqametrics-table-")
        self.tmp.append(folder)
        for f in (run.path, *run.reported, *run.auxiliary):
            if f not in hide:
                target = Path(folder) / f.name
                try:
                    target.symlink_to(f.absolute())
                except OSError:
                    shutil.copyfile(f, target)
        return Path(folder) / run.path.name

    def close(self) -> None:
        for folder in self.tmp:
            shutil.rmtree(folder, ignore_errors=True)


# -- errors, as the table's user reads them -------------------------------------------------

#: the options ``vqametrics table`` takes (cli/table.py); a task's reading options (``score
#: TASK --on-duplicate last``, ``--allow-missing``, ``--annotations``, …) it does not take
_TABLE_OPTIONS = frozenset(
    {
        "--task",
        "--profile",
        "--name",
        "--columns",
        "--average",
        "--format",
        "--digits",
        "--no-reported",
        "--no-search",
        "--out",
    }
)
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: "pass --X" and the word after it (the value of an option that takes one)
_PASS = re.compile(r"\bpass (--[a-z][a-z0-9-]*)(?![\w-])(?: ([A-Za-z0-9][\w.,=-]*))?")


def _user_path(run: Run, path: Path) -> Callable[[str], str] | None:
    """What turns a text naming *path*'s temporary folder (:meth:`_Scorer._without`) into one
    naming the run's own folder; ``None`` when *path* is the run's file itself."""
    if path == run.path:
        return None
    temp, own = os.fspath(path.parent) + os.sep, os.fspath(run.path.parent) + os.sep

    def mapped(text: str) -> str:
        return text.replace(temp, own)

    return mapped


@contextlib.contextmanager
def _own_names(run: Run, path: Path) -> Iterator[Callable[[str], str] | None]:
    """While a run is read from a temporary copy (*path*), the warnings raised name the user's
    file: they are caught and warned again, reworded; yields :func:`_user_path`'s function."""
    own = _user_path(run, path)
    if own is None:
        yield None
        return
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield own
    finally:  # an error's warnings too
        for w in caught:
            warnings.warn_explicit(own(str(w.message)), w.category, w.filename, w.lineno)


def _as_table_error(exc: InputError, run: Run, path: Path) -> InputError:
    """*exc*, raised scoring *run* read from *path*, worded for the table's user.

    - **The user's path.** When *path* is a temporary copy of the run's folder (made by
      :meth:`_Scorer._without` to hide an unreadable reported file), each mention of that
      folder becomes the run's own folder: the message names the user's file.
    - **Advice that the table can follow.** A task's reader words its advice for ``vqametrics
      score`` ("pass --on-duplicate last to keep the last one"), and ``table`` takes none of a
      task's reading options. On the command line (options spelled as such, see
      :func:`~vqametrics.core.exceptions.command_line_spelling`) "pass --X [VALUE]" becomes
      "run `vqametrics score TASK --results FILE --X [VALUE]`", and a clause names any other
      option the message mentions as ``score``'s. From Python the message keeps its keyword
      (``on_duplicate='last'``, as :class:`~vqametrics.core.exceptions.VqaMetricsError`
      spells it), and a clause says that :func:`table` takes it per task, as ``options``.

    The rest of the message is kept word for word; *exc* itself when nothing changes."""
    text = str(exc.args[0]) if len(exc.args) == 1 else str(exc)
    own = _user_path(run, path)
    new = text if own is None else own(text)
    if any(o not in _TABLE_OPTIONS for o in _OPTION.findall(new)):
        task = benchmark(run.benchmark).task
        if command_line_spelled():
            new = _PASS.sub(lambda m: _run_score(m, task, run.path), new)
            outside = re.sub(r"`[^`]*`", "", new)  # the commands just written are score's
            left = [o for o in dict.fromkeys(_OPTION.findall(outside)) if o not in _TABLE_OPTIONS]
            if left:
                new += f" ({', '.join(left)}: options of `vqametrics score {task}`, not of table)"
        else:
            new += f"; table() takes a task's options as options={{{task!r}: {{...}}}}"
    return exc if new == text else InputError(new)


def _run_score(match: re.Match[str], task: str, path: Path) -> str:
    """ "pass --X [VALUE]" → "run `vqametrics score TASK --results FILE --X [VALUE]`" for an
    option the table does not take (the value only for an option that takes one)."""
    option, word = match.group(1), match.group(2)
    if option in _TABLE_OPTIONS:
        return match.group(0)
    given = option if word is None or not takes_value(option) else f"{option} {word}"
    rest = "" if word is None or takes_value(option) else f" {word}"
    return f"run `vqametrics score {task} --results {path} {given}`{rest}"


# -- the table ------------------------------------------------------------------------------


def _columns(found: Sequence[Run], columns: Sequence[str] | None) -> list[Column]:
    present = {r.benchmark for r in found}
    if not columns:
        return [
            Column(b, m) for b in BENCHMARKS if b.key in present for m in b.measures if m.default
        ]
    out: list[Column] = []
    for spec in columns:
        wanted = spec.strip().lower()
        chosen: list[Column] = []
        for b in BENCHMARKS:
            names = {b.key.lower(), b.title.lower(), b.task.lower()}
            if wanted in names:
                chosen += [Column(b, m) for m in b.measures if m.default]
                continue
            for m in b.measures:
                col = Column(b, m)
                if wanted in (col.id.lower(), *(f"{n}:{m.key.lower()}" for n in names)):
                    chosen.append(col)
        # a benchmark named by its task (mmbench) keeps only the benchmarks that were found
        chosen = [c for c in chosen if c.benchmark.key in present]
        if not chosen:
            known = ", ".join(
                Column(b, m).id for b in BENCHMARKS if b.key in present for m in b.measures
            )
            raise InputError(
                f"--columns {spec}: no such column among the runs found; they have: {known}"
            )
        out += [c for c in chosen if c not in out]
    return out


def _benchmark_filter(tasks: Sequence[str] | None) -> set[str] | None:
    """``--task`` names (a task, an alias, a benchmark's title or dataset name) → keys."""
    if not tasks:
        return None
    from ..tasks import get_task

    keep: set[str] = set()
    for name in tasks:
        low = name.lower()
        hits = {b.key for b in BENCHMARKS if low in (b.key.lower(), b.title.lower())}
        if not hits:
            task = get_task(name).name  # an unknown name is an error listing the tasks
            hits = {b.key for b in BENCHMARKS if b.task == task}
        keep |= hits
    return keep


def table(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    tasks: Sequence[str] | None = None,
    profiles: Iterable[str] | Mapping[str, str] | str | None = None,
    names: Mapping[str, str] | None = None,
    columns: Sequence[str] | None = None,
    average: str | Sequence[str] | None = None,
    digits: int | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    search: bool = True,
) -> PaperTable:
    """One row per model, one column per benchmark, from toolkit output folders or files.

    Parameters
    ----------
    paths : path or paths
        VLMEvalKit output folders (``<model>/<model>_<DATASET>.xlsx`` with ``_acc.csv`` /
        ``_score.csv`` / ``_score.json`` beside), lmms-eval output folders
        (``<date>_samples_<task>.jsonl`` with ``<date>_results.json``), folders of such
        folders, or single files.
    tasks : names, optional
        Keep only these benchmarks: a task (``mmbench``), or a benchmark's title or
        VLMEvalKit dataset name (``CCBench``).
    profiles : ``["NAME", "TASK=NAME", …]`` or ``{task: name}``, optional
        The profile per task; a bare ``NAME`` applies to every task that has it. Default:
        each task's official scorer (when it cannot score the file, e.g. it needs a judge's
        verdicts, the profile of the toolkit that wrote the file, said in a note).
    names : ``{path: model}``, optional
        The model name of the runs under a path (default: from the file name; VLMEvalKit
        ``<model>_<DATASET>``, lmms-eval the folder's name); tells apart two runs of a model.
    columns : names, optional
        The columns, in order: a benchmark (its default columns), a column id (``MME-P``) or
        ``BENCHMARK:MEASURE`` (``POPE:random``).
    average : ``"mean"``, ``"opencompass"`` or both, optional
        Average columns (see :mod:`vqametrics.paper_table.averages`).
    digits : int, optional
        Digits of every cell (default: one decimal; OCRBench, a count, none).
    options : ``{task: {option: value}}``, optional
        Task options passed to the task's reader (``score TASK --OPTION``).
    progress : callable, optional
        ``progress(done, total, what)`` while files are found and scored.
    search : bool, default True
        For a cell that differs from the toolkit's number, score the file under the task's
        other profiles of that toolkit to name the one that reproduces it (each a re-read of
        the file); ``False`` marks the cell without searching.

    Returns
    -------
    PaperTable
        ``cells[(model, column id)]`` with each cell's unrounded number, the toolkit's number,
        the status (``reproduced``/``differs``/``no-reported``/``missing``), the profile that
        reproduces a differing number and the full :class:`TaskEvaluation`.
    """
    _check_arguments(locals())
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    averages = [average] if isinstance(average, str) else list(average or ())
    from .averages import AVERAGES

    unknown = [a for a in averages if a not in AVERAGES]
    if unknown:  # before any file is read
        raise InputError(f"--average {unknown[0]}: choose one of: {', '.join(AVERAGES)}")
    chosen = parse_profiles(profiles)
    keep = _benchmark_filter(tasks)
    found: Found = find_runs(paths, names=names, benchmarks=keep)
    if not found.runs:
        listed = ", ".join(p.name for p in found.unrecognized[:20]) or "no files"
        more = f" and {len(found.unrecognized) - 20} more" if len(found.unrecognized) > 20 else ""
        what = " of the chosen --task" if keep is not None else ""
        raise InputError(
            f"no benchmark run{what} recognized in {', '.join(os.fspath(p) for p in paths)}: "
            f"found {found.n_files} file(s): {listed}{more} (expected VLMEvalKit "
            "<model>_<DATASET>.xlsx or lmms-eval <date>_samples_<task>.jsonl)"
        )
    unscorable = _without_task(found)
    if "*" in chosen:
        from ..tasks import get_task

        if not any(
            chosen["*"] in {p.name for p in get_task(benchmark(r.benchmark).task).profiles}
            for r in found.runs
        ):
            raise InputError(
                f"--profile {chosen['*']}: none of the tasks found has such a profile "
                "(vqametrics profiles --task T lists a task's)"
            )
    if not found.runs:
        raise InputError("no run can be scored here: " + "; ".join(unscorable))
    cols = _columns(found.runs, columns)
    models = sorted({r.model for r in found.runs})
    scorer = _Scorer(options or {})
    cells: dict[tuple[str, str], Cell] = {}
    notes: list[str] = list(unscorable)
    try:
        runs_by = {(r.model, r.benchmark): r for r in found.runs}
        evaluations: dict[tuple[str, str], tuple[TaskEvaluation, Run, tuple[str, ...]]] = {}
        # the runs shown, and those an average needs
        needed = {c.benchmark.key for c in cols}
        if "opencompass" in averages:
            from .averages import OPENCOMPASS

            needed |= {k for keys in OPENCOMPASS.values() for k in keys}
        wanted_runs = [r for r in found.runs if r.benchmark in needed]
        failed: dict[tuple[str, str], InputError] = {}  # a run that cannot be scored: why
        for i, run in enumerate(wanted_runs):
            if progress is not None:
                progress(i, len(wanted_runs), f"{run.model} {benchmark(run.benchmark).title}")
            try:
                evaluations[(run.model, run.benchmark)] = _score_run(run, chosen, scorer)
            except InputError as exc:  # its cells are marked failed; the others are scored
                failed[(run.model, run.benchmark)] = exc
        if progress is not None:
            progress(len(wanted_runs), len(wanted_runs), "")
        for col in cols:
            for model in models:
                found_run = runs_by.get((model, col.benchmark.key))
                if found_run is None:
                    cells[(model, col.id)] = Cell(model, col)
                    continue
                error = failed.get((model, col.benchmark.key))
                if error is not None:
                    cells[(model, col.id)] = _failed_cell(model, col, found_run, error)
                    continue
                ev, _, run_notes = evaluations[(model, col.benchmark.key)]
                cells[(model, col.id)] = _cell(
                    model, col, ev, found_run, run_notes, scorer if search else None, digits
                )
        for m in models:
            lacking = dict.fromkeys(
                c.benchmark.title for c in cols if cells[(m, c.id)].status == "missing"
            )
            if lacking:
                notes.append(f"{m} has no run of {', '.join(lacking)}: empty cells")
    finally:
        scorer.close()
    if failed and not any(c.value is not None for c in cells.values()):
        _none_scored(list(failed.values()))
    out = PaperTable(
        models,
        cols,
        cells,
        found.runs,
        [os.fspath(p) for p in found.unrecognized],
        notes,
        digits=digits,
        searched=search,
    )
    if averages:
        from .averages import add_averages

        add_averages(out, averages, evaluations)
    return out


def _failed_cell(model: str, col: Column, run: Run, error: InputError) -> Cell:
    """The cell of a run that cannot be scored: marked ``failed``, with the error (which names
    the file) as its note; ``table`` does as it does for a file it does not recognize and for
    a reported file it cannot read — it says so under the table and scores the rest."""
    why = str(error)
    note = f"{col.benchmark.title} ({model}): not scored, {why}"
    return Cell(model, col, file=os.fspath(run.path), status="failed", notes=(note,), error=why)


def _none_scored(errors: Sequence[InputError]) -> NoReturn:
    """No cell has a number: one run's error as it is, several in one line."""
    if len(errors) == 1:
        raise errors[0]
    raise InputError(
        f"none of the {len(errors)} runs could be scored: " + " | ".join(map(str, errors))
    )


def _without_task(found: Found) -> list[str]:
    """Drop the runs of benchmarks whose task this version does not have; one note each."""
    from ..tasks import get_task

    notes: list[str] = []
    kept = []
    for run in found.runs:
        bench = benchmark(run.benchmark)
        try:
            get_task(bench.task)
        except UnknownNameError:
            notes.append(
                f"{run.path.name}: a run of {bench.title}, but this vqametrics has no task "
                f"{bench.task!r} to score it"
            )
            continue
        kept.append(run)
    found.runs = kept
    return notes


def _score_run(
    run: Run, chosen: Mapping[str, str], scorer: _Scorer
) -> tuple[TaskEvaluation, Run, tuple[str, ...]]:
    """The run scored under its chosen profile (``TASK=NAME``, else a bare ``NAME`` the task
    has, else the task's default); when the default cannot score the file (an official scorer
    that needs a judge's verdicts the folder does not hold), the toolkit's own profile does,
    and a note says so."""
    from ..tasks import get_task

    bench = benchmark(run.benchmark)
    task = get_task(bench.task)
    notes: list[str] = []
    hide: list[Path] = []
    for f in run.reported:
        try:
            _read_own_reported(f, run.toolkit)
        except InputError as exc:
            hide.append(f)
            run.unreadable.append(f)
            notes.append(
                f"{bench.title} ({run.model}): the reported file could not be read "
                f"({exc}); our number only"
            )
    profile = chosen.get(task.name)
    if profile is None and "*" in chosen:
        if chosen["*"] in {p.name for p in task.profiles}:
            profile = chosen["*"]
        else:
            notes.append(
                f"{bench.title}: task {task.name} has no profile {chosen['*']!r}; scored with "
                f"its default, {task.default_profile}"
            )
    if profile is not None:
        return scorer.evaluate(run, profile, hide=hide), run, tuple(notes)
    try:
        return scorer.evaluate(run, None, hide=hide), run, tuple(notes)
    except InputError as exc:
        fallback = next((p for p in task.profiles if _same_toolkit(p, run.toolkit)), None)
        if fallback is None or fallback.name == task.default_profile:
            raise
        ev = scorer.evaluate(run, fallback.name, hide=hide)
        why = str(exc).split(": ", 1)[-1].split("; ", 1)[0]
        notes.append(
            f"{bench.title} ({run.model}): the {task.default_profile} profile cannot score "
            f"{run.path.name} ({why}); scored with --profile {fallback.name}, the toolkit "
            "that wrote it"
        )
        return ev, run, tuple(notes)


def _cell(
    model: str,
    col: Column,
    ev: TaskEvaluation,
    run: Run,
    run_notes: tuple[str, ...],
    scorer: _Scorer | None,
    digits: int | None,
) -> Cell:
    bench, measure = col.benchmark, col.measure
    found = our_value(ev, measure)
    notes = list(run_notes)
    if found is None:
        notes.append(
            f"{col.id} ({model}): profile {ev.profile.name} has no such number "
            f"(its metrics: {', '.join(ev.aggregate.metrics)})"
        )
        return Cell(model, col, ev, file=os.fspath(run.path), notes=tuple(notes))
    value, units = found
    d = DISPLAY_DIGITS.get(units, 1) if digits is None else digits
    reported = ev.data.reported
    if not reported:
        for f in (f for f in run.reported if f not in run.unreadable):
            try:
                reported = _read_own_reported(f, run.toolkit)
                break
            except InputError:
                continue
    theirs = _reported_value(ev, bench, measure, reported)
    cell = Cell(model, col, ev, value, units, d, file=os.fspath(run.path))
    if theirs is None:
        cell.status = "no-reported"
        cell.notes = tuple(notes)
        return cell
    cell.reported, cell.reported_source = theirs
    if _same(value, cell.reported, d):
        cell.status = "reproduced"
        cell.notes = tuple(notes)
        return cell
    cell.status = "differs"
    toolkit = str((reported or {}).get("toolkit", run.toolkit))
    if scorer is None:  # search=False
        cell.notes = tuple(notes)
        return cell
    cell.reproduced_by, cell.tried = _reproducing_profile(
        ev, run, measure, cell.reported, d, scorer, toolkit
    )
    cell.notes = tuple(notes)
    return cell


def _reproducing_profile(
    ev: TaskEvaluation,
    run: Run,
    measure: Measure,
    theirs: float,
    digits: int,
    scorer: _Scorer,
    toolkit: str,
) -> tuple[str | None, tuple[str, ...]]:
    """The first profile of the task, of the toolkit that reported the number, whose number
    equals the toolkit's at the printed digits; and the profiles tried."""
    tried: list[str] = []
    for prof in ev.task.profiles:
        if prof.name == ev.profile.name or not _same_toolkit(prof, toolkit):
            continue
        tried.append(prof.name)
        try:
            other = scorer.evaluate(run, prof.name)
        except InputError:
            continue
        found = our_value(other, measure)
        if found is not None and _same(found[0], theirs, digits):
            return prof.name, tuple(tried)
    return None, tuple(tried)


def _check_arguments(args: dict[str, Any]) -> None:
    """:func:`table`'s arguments of a wrong type: the library's error, before any file is read."""
    paths = args["paths"]
    if not isinstance(paths, str | os.PathLike):
        check("table", "paths", paths, "sequence")
        for p in paths:
            check("table", "each of paths", p, "path")
    for name in ("tasks", "columns"):
        check("table", name, args[name], "strs", optional=True)
    profiles, average = args["profiles"], args["average"]
    if profiles is not None and not isinstance(profiles, str | Mapping):
        check(
            "table", "profiles", list(profiles) if isinstance(profiles, set) else profiles, "strs"
        )
    if average is not None and not isinstance(average, str):
        check("table", "average", average, "strs")
    names, options = args["names"], args["options"]
    check("table", "names", names, "mapping", optional=True)
    if names and not all(isinstance(v, str) for v in names.values()):
        raise ArgumentTypeError("table: names must map paths to model names (strings)")
    check("table", "options", options, "mapping", optional=True)
    if options and not all(isinstance(v, Mapping) for v in options.values()):
        raise ArgumentTypeError("table: options must map tasks to {option: value} mappings")
    check("table", "digits", args["digits"], "int", optional=True, minimum=0)
    check("table", "progress", args["progress"], "callable", optional=True)
    check("table", "search", args["search"], "bool")
