"""Small benchmark folders for the CLI tests, built in a temporary directory.

``make_benchmark`` writes ``schemas/``, ``labels/`` and ``results/<system>/`` from
Python values; a result given as ``bytes`` is written as is (to make broken files), and
``None`` leaves the file out (a missing result).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leafscore.cli import main

REPO = Path(__file__).resolve().parent.parent

FLAT = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


def make_benchmark(
    root: Path,
    labels: dict[str, Any],
    results: dict[str, dict[str, Any]],
    *,
    schema: Any = FLAT,
    config: str | None = None,
) -> Path:
    """A benchmark at ``root``: one schema for all labels, envelopes {"data": value}."""
    for doc_id, label in labels.items():
        write_json(root / "schemas" / f"{doc_id}.json", schema)
        write_json(root / "labels" / f"{doc_id}.json", label)
    for system, docs in results.items():
        (root / "results" / system).mkdir(parents=True, exist_ok=True)
        for doc_id, value in docs.items():
            path = root / "results" / system / f"{doc_id}.json"
            if value is None:
                continue
            if isinstance(value, bytes):
                path.write_bytes(value)
            else:
                write_json(path, {"status": "ok", "data": value})
    if config is not None:
        (root / "benchmark.toml").write_text(config, encoding="utf-8")
    return root


#: What `leafscore report` writes into a benchmark's results/ (README; .gitignore'd).
REPORT_OUTPUTS = ("summary.json", "summary.csv")


def copy_tree(source: Path, target: Path) -> Path:
    """A writable copy of a benchmark folder (schemas, labels, results, config, metadata)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("schemas", "labels", "results"):
        if (source / name).is_dir():  # not what `leafscore report` left in the sample
            shutil.copytree(source / name, target / name,
                            ignore=shutil.ignore_patterns(*REPORT_OUTPUTS))
    for name in ("benchmark.toml", "sources.json", "metadata.json"):
        if (source / name).is_file():
            shutil.copy(source / name, target / name)
    return target


def invoke(*args: str | Path):
    """Run ``leafscore ARGS`` in-process; ``.stdout`` and ``.stderr`` kept apart."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own default cache folder (``$XDG_CACHE_HOME``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
