"""Calibration of the paired test: rejection rates on null benchmarks built from DocuBench.

For every comparison with the leader on DocuBench (``../shared/docubench`` or
``$LEAFSCORE_SHARED/docubench``), 200 null benchmarks of 50, 20 and 10 documents draw the
pair's observed per-document differences and give each a random sign
(``leafscore.stats.null_rejection_rate``): the truth is "no difference", so a calibrated
test at 5% rejects on at most about 5% of them. The old bootstrap p-value rejected
6.2-9.3% at 50 documents, 8-12% at 20 and 12-15% at 10 (issue 23).

Usage::

    python benchmarks/bench_null_rejection.py              # version 2.0, markdown table
    python benchmarks/bench_null_rejection.py --version 1.0 --trials 500
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import leafscore  # noqa: E402
from leafscore import stats  # noqa: E402
from leafscore.leaderboard import ranking  # noqa: E402

SIZES = (50, 20, 10)


def rates(version: str, trials: int) -> list[tuple[str, dict[int, float]]]:
    """(system, {documents: rejection rate}) for every system against the leader."""
    root = Path(os.environ.get("LEAFSCORE_SHARED", REPO.parent / "shared")) / "docubench"
    run = leafscore.evaluate(root, version=version, keep_verdicts=False).run
    order = ranking(run)
    lead = run.document_scores(order[0])
    out = []
    for system in order[1:]:
        d = stats.paired_differences(lead, run.document_scores(system))
        out.append((system, {n: stats.null_rejection_rate(d, n, trials=trials)
                             for n in SIZES if n <= d.size}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="2.0")
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    table = rates(args.version, args.trials)
    print(f"Rejection rate at 5% on {args.trials} null benchmarks (DocuBench "
          f"{args.version}, leader against each system, paired sign-flip test)\n")
    print("| system | " + " | ".join(f"{n} docs" for n in SIZES) + " |")
    print("|:--|" + "--:|" * len(SIZES))
    for system, by_n in table:
        print(f"| {system} | " + " | ".join(
            f"{100 * by_n[n]:.1f}%" if n in by_n else "–" for n in SIZES) + " |")
    pooled = {n: sum(by_n[n] for _, by_n in table) / len(table) for n in SIZES}
    print("| all comparisons | " + " | ".join(f"{100 * pooled[n]:.1f}%" for n in SIZES)
          + " |")
    se = 100 * (0.05 * 0.95 / args.trials) ** 0.5
    print(f"\nEach cell is a share of {args.trials} null benchmarks: a test rejecting exactly "
          f"5% gives {se:.1f} points of binomial noise per cell "
          f"({se / len(table) ** 0.5:.1f} for all comparisons). Acceptance (issue 23): "
          "the rate over all comparisons at most 5.5% at each size.")


if __name__ == "__main__":
    main()
