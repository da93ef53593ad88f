"""Results cross process pools (``multiprocessing``, ``joblib``, ``concurrent.futures``): every
result type pickles, and comes back as the same run of the same registered task and profile."""

from __future__ import annotations

import dataclasses
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import vqametrics
from vqametrics.mmbench import load_mmbench_tsv
from vqametrics.tasks._run import TaskEvaluation

DATA = Path(vqametrics.__file__).parent / "data"


def _vqa(fixture_5q: Path) -> TaskEvaluation:
    return vqametrics.evaluate(
        "vqav2",
        fixture_5q / "results.json",
        annotations=fixture_5q / "annotations.json",
        metrics="em",
        ci=50,
    )


def test_a_vqa_run_comes_back_the_same(fixture_5q: Path) -> None:
    run = _vqa(fixture_5q)
    back = pickle.loads(pickle.dumps(run))
    assert back.task is run.task and back.profile is run.profile  # the registered objects
    # official_accuracy.json: 98.0
    assert round(back.headline, 2) == 98.0
    assert back.as_dict() == run.as_dict() and back.scores == run.scores
    assert back.diagnostics is not None and back.diagnostics.flags == run.diagnostics.flags


def test_textvqa_and_mmbench_runs_pickle() -> None:
    textvqa = vqametrics.evaluate(
        "textvqa",
        DATA / "textvqa_val_sample" / "results_vila-1.5-8b.json",
        annotations=DATA / "textvqa_val_sample" / "annotations.json",
    )
    assert pickle.loads(pickle.dumps(textvqa)).as_dict() == textvqa.as_dict()
    with pytest.warns(vqametrics.VqaMetricsWarning, match="repeated index"):  # en + cn rows
        data = load_mmbench_tsv(DATA / "mmbench_samples.tsv", on_duplicate="last")
    preds = {row.index: row.answer for row in data.rows}  # every answer right
    result = vqametrics.evaluate_mmbench(data, preds, mode="vanilla")
    back = pickle.loads(pickle.dumps(result))
    assert back.score == 1.0 and back.signature == result.signature
    assert back.questions == result.questions and back.tables == result.tables


def test_the_older_results_and_profiles_pickle(fixture_5q: Path) -> None:
    old = vqametrics.evaluate_vqa(fixture_5q / "annotations.json", fixture_5q / "results.json")
    assert pickle.loads(pickle.dumps(old)).as_dict() == old.as_dict()
    profile = vqametrics.get_profile("official")
    assert pickle.loads(pickle.dumps(profile)) is profile
    assert pickle.loads(pickle.dumps(vqametrics.get_task("pope"))) is vqametrics.get_task("pope")


def test_a_task_of_ones_own_is_refused_by_name() -> None:
    mine = dataclasses.replace(vqametrics.get_task("chartqa"), name="my-chartqa")
    with pytest.raises(TypeError, match="'my-chartqa': only a registered task can be pickled"):
        pickle.dumps(mine)


def _headline(path: str) -> tuple[float, str]:
    folder = Path(path)
    run = vqametrics.evaluate(
        "vqav2", folder / "results.json", annotations=folder / "annotations.json"
    )
    return run.headline, run.signature.format()


def test_a_run_made_in_a_worker_process(fixture_5q: Path) -> None:
    with ProcessPoolExecutor(max_workers=1) as pool:
        headline, signature = pool.submit(_headline, str(fixture_5q)).result(timeout=60)
        run = pool.submit(_vqa, fixture_5q).result(timeout=60)  # the result itself, pickled
    assert round(headline, 2) == 98.0 and signature.startswith("vqa-acc|profile:official|")
    assert run.task is vqametrics.get_task("vqav2") and round(run.headline, 2) == 98.0
