"""``benchmark.toml`` -> a frozen ``BenchmarkConfig``; unknown keys are errors.

The file is optional. Its shape (every key optional)::

    name = "leafscore-sample"          # benchmark name, shown in reports
    version = "0.2.0"                  # dataset version
    scoring_version = "2.0"            # pinned metric version; absent = latest
    metadata = "metadata.json"         # JSON list of records, each with "doc_id"
    breakdowns = ["ftype", "lang"]     # metadata columns to break scores down by

    [options]                          # benchmark-wide scoring options (scorer.Options)
    decimal_separator = "."
    date_formats = ["%d/%m/%Y"]

    [display_names]                    # system -> name shown in reports
    gpt = "GPT"

Nothing in the file is executed; paths are resolved inside ROOT.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from leafscore.errors import InputError

CONFIG_NAME = "benchmark.toml"
#: Metadata files looked for, in order, when the config names none.
DEFAULT_METADATA_FILES: tuple[str, ...] = ("metadata.json", "sources.json")
#: Breakdown columns used, when present in the metadata, if the config names none.
DEFAULT_BREAKDOWNS: tuple[str, ...] = ("ftype", "file_type", "lang", "language", "tags")

_KEYS = {
    "name": str,
    "version": str,
    "scoring_version": str,
    "metadata": str,
    "breakdowns": list,
    "options": dict,
    "display_names": dict,
}


@dataclass(frozen=True)
class BenchmarkConfig:
    """A benchmark's settings.

    ``scoring_version`` is ``None`` when not pinned; ``options`` is the raw ``[options]``
    table (read-only mapping), turned into ``scorer.Options`` by the runner;
    ``metadata`` is a path relative to ROOT or ``None``; ``breakdowns`` is ``None`` when
    the config does not choose the columns.
    """

    name: str = ""
    version: str = ""
    scoring_version: str | None = None
    metadata: str | None = None
    breakdowns: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    display_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def parse_config(text: str, *, source: str = CONFIG_NAME) -> BenchmarkConfig:
    """Parse the text of a ``benchmark.toml``.

    Raises ``InputError(source, key, reason)`` for invalid TOML, an unknown key, or a
    value of the wrong type.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, "", f"invalid TOML: {exc}") from None
    for key, value in data.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise InputError(source, key, f"unknown key {key!r} (known keys: {known})")
        if not isinstance(value, _KEYS[key]):
            raise InputError(source, key, f"must be a {_KEYS[key].__name__}, got {value!r}")
    breakdowns = data.get("breakdowns")
    if breakdowns is not None and not all(isinstance(b, str) for b in breakdowns):
        raise InputError(source, "breakdowns", "must be a list of column names")
    names = data.get("display_names", {})
    if not all(isinstance(v, str) for v in names.values()):
        raise InputError(source, "display_names", "values must be strings")
    return BenchmarkConfig(
        name=data.get("name", ""),
        version=data.get("version", ""),
        scoring_version=data.get("scoring_version"),
        metadata=data.get("metadata"),
        breakdowns=None if breakdowns is None else tuple(breakdowns),
        options=MappingProxyType(dict(data.get("options", {}))),
        display_names=MappingProxyType(dict(names)),
    )


def load_config(root: Path) -> BenchmarkConfig:
    """Read ``ROOT/benchmark.toml``; the defaults when there is none.

    Raises ``InputError`` as ``parse_config`` does, or when the file is not UTF-8 text.
    """
    path = Path(root) / CONFIG_NAME
    if not path.is_file():
        return BenchmarkConfig()
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), "", f"not UTF-8 text ({exc.reason})") from None
    return parse_config(text, source=str(path))
