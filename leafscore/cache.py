"""Per-document score cache, keyed by the content that decides the score.

A key is the sha256 of (schema bytes, label bytes, result bytes, scoring version,
options digest, scorer.py bytes), so editing one file rescoring one document, and a
new scorer.py or option rescoring everything, follow from the key alone. Entries are
JSON files ``<dir>/<key[:2]>/<key>.json``, each written to a temporary file and renamed
over its name, so a reader never sees half an entry; a damaged or unreadable entry is a
miss. Entries are disposable, so unlike ``files.atomic_write_bytes`` no ``fsync`` is
made: measured here, fsync cost 7 ms per entry (2.2 s of a 3.2 s cold DocuBench run),
and an entry lost to a power cut is only rescored. The cache lives outside the benchmark:
by default ``$XDG_CACHE_HOME/leafscore`` (else ``~/.cache/leafscore``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Bumped when the entry layout changes; part of every key.
CACHE_FORMAT = "3"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/leafscore``, else ``~/.cache/leafscore``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "leafscore"


@functools.cache
def scorer_digest() -> str:
    """sha256 hex of the bytes of the imported ``scorer.py``."""
    import scorer

    return hashlib.sha256(Path(scorer.__file__).read_bytes()).hexdigest()


def cache_key(
    *,
    schema_sha256: str,
    label_sha256: str,
    result_sha256: str,
    version: str,
    options_digest: str,
    scorer_sha256: str,
) -> str:
    """sha256 hex of every input that decides one document's score."""
    parts = (
        CACHE_FORMAT, schema_sha256, label_sha256, result_sha256, version, options_digest,
        scorer_sha256,
    )
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _entry_path(directory: Path, key: str) -> Path:
    return Path(os.path.join(directory, key[:2], f"{key}.json"))


@dataclass(frozen=True)
class Cache:
    """A cache folder; ``directory=None`` disables it (every ``get`` misses).

    An entry file holds one line of JSON (the entry) and, optionally, a second line
    (the detail: a document's verdicts), so a reader that needs no detail never parses
    it, and each cell costs one file.
    """

    directory: Path | None

    def get(self, key: str, *, detail: bool = False) -> tuple[Any, Any] | None:
        """``(entry, detail)`` stored under ``key``; ``detail`` is ``None`` unless asked for
        and stored. ``None`` when absent, disabled or unreadable."""
        if self.directory is None:
            return None
        try:
            with open(os.path.join(self.directory, key[:2], f"{key}.json"), "rb") as handle:
                data = handle.read()
            head, _, tail = data.partition(b"\n")
            entry = json.loads(head)
            extra = json.loads(tail) if detail and tail else None
        except (OSError, ValueError):
            return None
        return entry, extra

    def put(self, key: str, entry: Any, detail: Any = None) -> None:
        """Store JSON-able ``entry`` (and ``detail`` when not ``None``) under ``key``; an
        unwritable cache is ignored (the next run rescores)."""
        if self.directory is None:
            return
        path = _entry_path(self.directory, key)
        data = _line(entry) if detail is None else _line(entry) + b"\n" + _line(detail)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            _replace_without_fsync(path, data)


def _line(value: Any) -> bytes:
    """Compact JSON on one line (``json.dumps`` escapes every newline inside strings)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def _replace_without_fsync(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
