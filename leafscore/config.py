"""``benchmark.toml`` -> a frozen ``BenchmarkConfig``; unknown keys are errors.

The file is optional. Its shape (every key optional)::

    name = "leafscore-sample"          # benchmark name, shown in reports
    version = "0.2.0"                  # dataset version
    scoring_version = "2.0"            # pinned metric version; absent = latest
    metadata = "metadata.json"         # JSON list of records, each with "doc_id"
    breakdowns = ["ftype", "lang"]     # metadata columns to break scores down by
    schema = "invoice.json"            # schema of documents without schemas/<id>.json, or:
    schema_by = "doctype"              # their metadata column naming schemas/<value>.json

    [options]                          # benchmark-wide scoring options (scorer.Options)
    decimal_separator = "."
    date_formats = ["%d/%m/%Y"]

    [display_names]                    # system -> name shown in reports
    gpt = "GPT"

    [costs]                            # cost and latency members (leafscore.costs)
    latency = "meta.latency_ms"
    latency_unit = "ms"
    [costs.prices.gpt]                 # USD per million tokens
    input = 1.25
    output = 10.0

Nothing in the file is executed; paths are resolved inside ROOT.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import scorer
from leafscore.costs import CostSettings, parse_settings

CONFIG_NAME = scorer.CONFIG_NAME
#: Metadata files looked for, in order, when the config names none.
DEFAULT_METADATA_FILES: tuple[str, ...] = scorer.METADATA_FILES
#: Breakdown columns used, when present in the metadata, if the config names none.
DEFAULT_BREAKDOWNS: tuple[str, ...] = ("ftype", "file_type", "lang", "language", "tags")

@dataclass(frozen=True)
class BenchmarkConfig:
    """A benchmark's settings.

    ``scoring_version`` is ``None`` when not pinned (else a known version); ``options``
    is the ``[options]`` table, checked, as a ``scorer.Options``;
    ``metadata`` is a path relative to ROOT or ``None``; ``breakdowns`` is ``None`` when
    the config does not choose the columns; ``costs`` the ``[costs]`` table, checked
    (``costs.parse_settings``).
    """

    name: str = ""
    version: str = ""
    scoring_version: str | None = None
    metadata: str | None = None
    breakdowns: tuple[str, ...] | None = None
    options: scorer.Options = field(default_factory=scorer.Options)
    display_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Shared schemas (``scorer.schema_name``): the file in ``schemas/`` of every document
    #: without its own, or the metadata column naming it; at most one of the two.
    schema: str | None = None
    schema_by: str | None = None
    costs: CostSettings = field(default_factory=CostSettings)


def parse_config(text: str, *, source: str = CONFIG_NAME) -> BenchmarkConfig:
    """Parse the text of a ``benchmark.toml`` with ``scorer.parse_config`` (the one config
    reader, shared with ``python scorer.py``).

    Raises ``InputError(source, key, reason)`` for invalid TOML, an unknown key, a value
    of the wrong type, an unknown ``scoring_version`` or an invalid ``[options]`` value.
    """
    return _from_table(scorer.parse_config(text, source), source)


def _from_table(data: dict[str, Any], source: str = CONFIG_NAME) -> BenchmarkConfig:
    breakdowns = data.get("breakdowns")
    return BenchmarkConfig(
        name=data.get("name", ""),
        version=data.get("version", ""),
        scoring_version=data.get("scoring_version"),
        metadata=data.get("metadata"),
        breakdowns=None if breakdowns is None else tuple(breakdowns),
        options=data["options"],
        display_names=MappingProxyType(dict(data.get("display_names", {}))),
        schema=data.get("schema"),
        schema_by=data.get("schema_by"),
        costs=parse_settings(data.get("costs"), source),
    )


def load_config(root: Path) -> BenchmarkConfig:
    """Read ``ROOT/benchmark.toml`` with ``scorer.read_config``; the defaults when there is
    none. Raises ``InputError`` as ``parse_config`` does, or for text that is not UTF-8.
    """
    return _from_table(scorer.read_config(Path(root)), str(Path(root) / CONFIG_NAME))
