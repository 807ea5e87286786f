"""The one input error type: a label, schema, config or result folder leafscore cannot use."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input, pointing at its place: ``file`` (a path as given), ``pointer`` (an RFC 6901
    JSON pointer, a TOML key, or ``"line 3 column 5"``; may be ``""``) and ``reason``.

    Every field is in ``.args``, so the error pickles across worker processes. The CLI
    prints ``str(error)`` on one line and exits 2.
    """

    def __init__(self, file: str, pointer: str, reason: str) -> None:
        super().__init__(file, pointer, reason)
        self.file, self.pointer, self.reason = str(file), pointer, reason

    def __str__(self) -> str:
        place = f"{self.file}#{self.pointer}" if self.pointer.startswith("/") else (
            f"{self.file}:{self.pointer}" if self.pointer else self.file
        )
        return f"{place}: {self.reason}"
