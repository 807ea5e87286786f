"""Per-document score cache, keyed by the content that decides the score.

A key is the sha256 of (schema bytes, label bytes, result bytes, scoring version,
options digest, scorer.py bytes), so editing one file rescoring one document, and a
new scorer.py or option rescoring everything, follow from the key alone. Entries are
JSON files ``<dir>/<key[:2]>/<key>.json`` written atomically (``files``); a damaged or
unreadable entry is a miss. The cache lives outside the benchmark: by default
``$XDG_CACHE_HOME/leafscore`` (else ``~/.cache/leafscore``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafscore import files

#: Bumped when the entry layout changes; part of every key.
CACHE_FORMAT = "1"


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
    return Path(directory) / key[:2] / f"{key}.json"


@dataclass(frozen=True)
class Cache:
    """A cache folder; ``directory=None`` disables it (every ``get`` misses)."""

    directory: Path | None

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry stored under ``key``, or ``None`` (absent, disabled or unreadable)."""
        if self.directory is None:
            return None
        try:
            value = json.loads(_entry_path(self.directory, key).read_bytes())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` (a JSON-able dict) under ``key``; an unwritable cache is ignored."""
        if self.directory is None:
            return
        path = _entry_path(self.directory, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            files.atomic_write_bytes(path, json.dumps(entry, separators=(",", ":")).encode())
        except OSError:
            return
