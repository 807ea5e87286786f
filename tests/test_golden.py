"""Frozen scoring versions: the scorer reproduces every committed golden output exactly.

``tests/golden/cases/<name>.json`` holds hand-authored (schema, label, result) triples;
``tests/golden/<version>/<name>.json`` holds what that version printed when it was
frozen (see ``tests/golden/freeze.py``). Any change in any number fails here: a scoring
change needs a new scoring version, never an edit of a frozen one.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import pytest

import scorer

GOLDEN = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_freeze", GOLDEN / "freeze.py")
freeze = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(freeze)

NAMES = freeze.case_names()


def test_there_are_at_least_40_golden_cases():
    assert len(NAMES) >= 40


@pytest.mark.parametrize("name", NAMES)
def test_every_golden_case_is_a_schema_label_result_triple(name):
    case = json.loads((GOLDEN / "cases" / f"{name}.json").read_text(encoding="utf-8"))
    assert sorted(case) == ["label", "result", "schema"]


@pytest.mark.parametrize("version", scorer.SCORING_VERSIONS)
def test_every_frozen_file_belongs_to_a_golden_case(version):
    frozen = sorted(path.stem for path in (GOLDEN / version).glob("*.json"))
    assert set(frozen) <= set(NAMES)


@pytest.mark.parametrize("version", scorer.SCORING_VERSIONS)
@pytest.mark.parametrize("name", NAMES)
def test_the_scorer_reproduces_the_frozen_output(engine, name, version):
    path = freeze.golden_path(version, name)
    assert path.is_file(), (
        f"{path} is missing: freeze a new case or version once with "
        "`python tests/golden/freeze.py` (it writes missing files only)"
    )
    frozen = path.read_text(encoding="utf-8")
    current = freeze.render(freeze.frozen_output(freeze.load_case(name), version,
                                                 engine.score))
    if current != frozen:
        diff = "".join(
            list(difflib.unified_diff(
                frozen.splitlines(keepends=True), current.splitlines(keepends=True),
                fromfile=f"frozen {version}/{name}.json", tofile=f"{engine.name} engine",
            ))[:60]
        )
        pytest.fail(
            f"scoring version {version} changed its output on golden case {name!r}. "
            "A scoring change needs a new scoring version, never an edit of a frozen "
            f"one.\n{diff}",
            pytrace=False,
        )
