"""An output file is written by renaming a new file onto its path, so a path that is not a
regular file (a pipe, a device, a socket, also behind a symlink such as ``/dev/stdout``) is
refused before any work, and never replaced; errors name the path, not ``[Errno N]``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.core.output import check_output_file, write_output_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def _plain_tsv(tmp_path: Path) -> Path:
    data = tmp_path / "plain.tsv"
    data.write_text("index\tquestion\tA\tB\tanswer\n1\tq\tcat\tdog\tA\n", encoding="utf-8")
    return data


def test_a_pipe_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    pipe = tmp_path / "out.tsv"
    os.mkfifo(pipe)
    with pytest.raises(FileExistsError, match="is not a regular file"):
        write_output_file(pipe, b"x")
    link = tmp_path / "link.tsv"
    link.symlink_to(pipe)  # behind a symlink too (/dev/stdout is one)
    with pytest.raises(FileExistsError, match="is not a regular file"):
        check_output_file(link)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and link.is_symlink()


def test_a_symlink_to_a_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_bytes(b"kept")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    write_output_file(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert target.read_bytes() == b"kept"


def test_the_command_refuses_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "circular.tsv"
    os.mkfifo(pipe)
    assert main(["mmbench-circular", str(_plain_tsv(tmp_path)), str(pipe)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"vqametrics: error: {pipe}: is not a regular file (a device, a pipe or a socket): the "
        "output is a new file renamed onto its path, which would replace it; name a file"
    )
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing/out.tsv", "missing: no such folder"), ("afile/out.tsv", "afile: is not a folder")],
)
def test_a_path_in_no_folder_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    out = tmp_path / name
    assert main(["mmbench-circular", str(_plain_tsv(tmp_path)), str(out)]) == 2
    assert capsys.readouterr().err.strip() == f"vqametrics: error: {tmp_path / message}"
