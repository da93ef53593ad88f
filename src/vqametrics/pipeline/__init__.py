"""Whole-run pipelines behind the task runner: ``vqa`` is VQA v2's bulk reader and scorer
(:func:`~vqametrics.pipeline.vqa.evaluate_vqa`, :class:`~vqametrics.pipeline.vqa.VQAEvaluation`)."""
