# the compiled answer scanner (_answerscan.c), used by readers._bulk when it is built
from typing import Any

def scan_answers(raws: list[Any], /) -> tuple[bytearray, list[str], bytearray] | None: ...
