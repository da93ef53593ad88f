"""The atomic output writer (:mod:`vqametrics.core.output`), at its documented
path: every command writes through it."""

from __future__ import annotations

from ..core.output import (
    MANIFEST,
    FileDigest,
    StagedDir,
    check_not_input,
    check_out_dir,
    discard_unpublished,
    open_output_file,
    publish_dir,
    verify_dir,
    write_chunks,
    write_output_file,
)

__all__ = [
    "MANIFEST",
    "FileDigest",
    "StagedDir",
    "check_not_input",
    "check_out_dir",
    "discard_unpublished",
    "open_output_file",
    "publish_dir",
    "verify_dir",
    "write_chunks",
    "write_output_file",
]
