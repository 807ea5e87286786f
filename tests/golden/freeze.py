"""Freeze the output of every scoring version on every golden case.

Each ``cases/<name>.json`` holds one hand-authored triple ``{"schema", "label",
"result"}``. This script writes, for every version in ``scorer.SCORING_VERSIONS``,
``<version>/<name>.json``:

* version 1.0: ``score(...).to_dict()`` (spec 1.0 §5 shape);
* later versions: ``score(...).to_dict(verdicts=True)`` (accuracy, counts, fields and
  one verdict per leaf);
* ``{"error": "<str(ScoringError)>"}`` when the version raises ``ScoringError``.

Files are JSON with sorted keys, two-space indents, UTF-8 text and a trailing newline.
``tests/test_golden.py`` renders the current output the same way and compares text.

A frozen file is never rewritten by default: a scoring change needs a new scoring
version, never an edit of a frozen one. Only missing files are written, so adding a
case or a version freezes just that. ``--overwrite`` exists for a version that has not
been released yet.

Usage::

    python tests/golden/freeze.py                 # write missing files only
    python tests/golden/freeze.py --check         # exit 1 if any file is missing or differs
    python tests/golden/freeze.py --overwrite --version 2.0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent
CASES = GOLDEN / "cases"
sys.path.insert(0, str(GOLDEN.parent.parent))

import scorer  # noqa: E402  (the repo root is put on the path first)


def case_names() -> list[str]:
    """Names of every golden case, sorted: ``cases/<name>.json`` stems."""
    return sorted(path.stem for path in CASES.glob("*.json"))


def load_case(name: str) -> dict[str, Any]:
    """The triple ``{"schema", "label", "result"}`` of one case."""
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))


def frozen_output(case: dict[str, Any], version: str, score: Any = scorer.score,
                  ) -> dict[str, Any]:
    """What the golden file of ``version`` holds for ``case`` (see the module docstring),
    scored by ``score`` (``scorer.score``, the definition, unless a test passes another
    engine's)."""
    try:
        outcome = score(case["result"], case["schema"], case["label"], version=version)
    except scorer.ScoringError as error:
        return {"error": str(error)}
    return outcome.to_dict() if version == "1.0" else outcome.to_dict(verdicts=True)


def render(output: dict[str, Any]) -> str:
    """The exact text of a golden file: sorted keys, indent 2, trailing newline."""
    return json.dumps(output, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def golden_path(version: str, name: str) -> Path:
    return GOLDEN / version / f"{name}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Freeze golden outputs of scoring versions.")
    parser.add_argument("--version", action="append", choices=scorer.SCORING_VERSIONS,
                        help="only this version (repeatable; default: all)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare only; exit 1 on drift")
    mode.add_argument("--overwrite", action="store_true",
                      help="rewrite existing files (only for an unreleased version)")
    args = parser.parse_args(argv)

    written = kept = drift = 0
    for version in args.version or scorer.SCORING_VERSIONS:
        (GOLDEN / version).mkdir(exist_ok=True)
        for name in case_names():
            path = golden_path(version, name)
            text = render(frozen_output(load_case(name), version))
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    print(f"differs: {path.relative_to(GOLDEN)}")
                    drift += 1
                continue
            if path.exists() and not args.overwrite:
                kept += 1
                continue
            path.write_text(text, encoding="utf-8")
            written += 1
    if args.check:
        print(f"{drift} golden file(s) missing or different")
        return 1 if drift else 0
    print(f"wrote {written} golden file(s), kept {kept} frozen one(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
