"""The Pareto frontier of score against a price (leafscore.frontier): a system is
dominated only by one significantly better at no more cost, or tied and cheaper."""

from __future__ import annotations

import numpy as np
import pytest

from leafscore.frontier import comparisons, pareto_frontier

TIED = [[0, 0], [0, 0]]
FIRST_BETTER = [[0, 1], [-1, 0]]


def test_a_tied_cheaper_system_dominates_the_dearer_one():
    assert pareto_frontier([1.0, 2.0], TIED) == (True, False)


def test_tied_and_equally_cheap_systems_are_both_on_the_frontier():
    assert pareto_frontier([1.0, 1.0], TIED) == (True, True)


def test_a_significantly_better_system_at_equal_cost_dominates():
    assert pareto_frontier([1.0, 1.0], FIRST_BETTER) == (True, False)


def test_a_significantly_worse_but_cheaper_system_stays_on_the_frontier():
    assert pareto_frontier([2.0, 1.0], FIRST_BETTER) == (True, True)


def test_a_better_system_that_costs_more_does_not_dominate():
    assert pareto_frontier([3.0, 1.0], FIRST_BETTER) == (True, True)


def test_a_system_without_price_or_score_is_not_placed_and_dominates_nothing():
    assert pareto_frontier([None, 2.0], FIRST_BETTER) == (None, True)
    assert pareto_frontier([0.5, 2.0], TIED, scored=[False, True]) == (None, True)


def test_compare_must_be_square():
    with pytest.raises(ValueError, match="2 x 2"):
        pareto_frontier([1.0, 2.0], [[0, 0]])


def test_comparisons_read_the_paired_interval_of_each_difference():
    rng = np.random.default_rng(0)
    base = rng.normal(0.8, 0.01, 1000)
    samples = np.vstack([base + 0.05, base, base + rng.normal(0, 0.01, 1000)])
    assert comparisons(samples) == ((0, 1, 1), (-1, 0, 0), (-1, 0, 0))


def test_identical_draws_are_tied():
    samples = np.array([[0.5, 0.6, 0.7], [0.5, 0.6, 0.7]])
    assert comparisons(samples) == ((0, 0), (0, 0))
