"""Whole-run pipelines behind the task runner: ``vqa`` is VQA v2's bulk reader and scorer and
its :class:`~vqametrics.pipeline.vqa.VQAEvaluation` view (``evaluate_vqa``, the old entry point,
is an alias of the runner in :mod:`vqametrics.tasks.vqav2`)."""
