"""Bootstrap intervals and paired differences (leafscore.stats)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leafscore import stats

EIGHT = [0.5, 0.75, 1.0, 1.0, 0.25, 0.9, 0.8, 0.6]


def test_each_resample_draws_as_many_documents_as_the_benchmark_holds():
    counts = stats.bootstrap_counts(7, resamples=50, seed=3)
    assert counts.shape == (50, 7)
    assert set(counts.sum(axis=1)) == {7}


def test_the_same_seed_gives_the_same_draws():
    first = stats.bootstrap_counts(5, resamples=2, seed=1)
    assert first.tolist() == [[1, 0, 2, 1, 1], [1, 2, 0, 0, 2]]
    assert np.array_equal(first, stats.bootstrap_counts(5, resamples=2, seed=1))


def test_another_seed_gives_other_draws():
    one = stats.bootstrap_counts(20, resamples=10, seed=1)
    assert not np.array_equal(one, stats.bootstrap_counts(20, resamples=10, seed=2))


def test_a_fixed_seed_gives_a_stable_interval():
    samples = stats.bootstrap_macro(stats.score_matrix([EIGHT]))
    assert samples.shape == (1, 1000)
    assert stats.percentile_interval(samples[0]) == (0.55, 0.8875)


def test_a_wider_confidence_gives_a_wider_interval():
    samples = stats.bootstrap_macro(stats.score_matrix([EIGHT]))[0]
    low95, high95 = stats.percentile_interval(samples, confidence=0.95)
    low50, high50 = stats.percentile_interval(samples, confidence=0.5)
    assert low95 < low50 < high50 < high95


def test_every_system_is_scored_on_the_same_draws():
    samples = stats.bootstrap_macro(stats.score_matrix([EIGHT, EIGHT]))
    assert np.array_equal(samples[0], samples[1])


def test_identical_systems_are_never_significantly_different():
    samples = stats.bootstrap_macro(stats.score_matrix([EIGHT, EIGHT]))
    gap = stats.paired_difference(samples[0], samples[1], 0.0)
    assert gap == stats.Difference(0.0, 0.0, 0.0, 1.0)
    assert not gap.significant()


def test_a_system_20_points_better_on_every_document_is_significant():
    worse = [0.1, 0.3, 0.5, 0.7, 0.0, 0.6, 0.8, 0.4]
    better = [x + 0.2 for x in worse]
    gap = stats.mean_difference(worse, better)
    assert gap.estimate == pytest.approx(0.2)
    assert gap.low == pytest.approx(0.2) and gap.high == pytest.approx(0.2)
    # Exact sign-flip test: 8 documents, all 20 points up; of the 2**8 sign patterns only
    # the observed one and its mirror image are as extreme.
    assert gap.p_value == 2 / 256
    assert gap.significant()


def test_a_small_mixed_change_has_a_pinned_interval_and_p_value():
    head = [0.6, 0.75, 0.9, 1.0, 0.5, 0.9, 0.9, 0.7]
    gap = stats.mean_difference(EIGHT, head)
    assert gap.estimate == pytest.approx(0.05625)
    assert gap.low == pytest.approx(-0.0125)
    assert gap.high == pytest.approx(0.125)
    # Differences +10, 0, -10, 0, +25, 0, +10, +10 points: 5 nonzero, exact test over
    # 2**5 = 32 patterns, 10 of them with |sum| >= 45 points.
    assert gap.p_value == 10 / 32
    assert not gap.significant()


def test_a_system_with_one_score_on_every_document_has_exactly_that_interval():
    samples = stats.bootstrap_macro(stats.score_matrix([[0.9] * 50]))
    assert stats.percentile_interval(samples[0]) == (0.9, 0.9)


def test_a_document_not_scored_is_left_out_of_every_draw_mean():
    samples = stats.bootstrap_macro(stats.score_matrix([[1.0, None, 1.0]]))[0]
    kept = samples[~np.isnan(samples)]
    assert set(kept.tolist()) == {1.0}


def test_a_draw_holding_only_unscored_documents_gives_no_value():
    samples = stats.bootstrap_macro(stats.score_matrix([[0.4, None]]), resamples=200)[0]
    assert np.isnan(samples).any()
    assert stats.percentile_interval(samples) == (0.4, 0.4)


def test_a_system_with_no_scored_document_has_no_interval():
    samples = stats.bootstrap_macro(stats.score_matrix([[None, None]]))[0]
    assert stats.interval(samples, float("nan")).low is None


def test_a_difference_with_an_unscored_side_is_undefined():
    gap = stats.mean_difference([0.5, 0.5], [None, None])
    assert math.isnan(gap.estimate)
    assert (gap.low, gap.high, gap.p_value) == (None, None, None)
    assert not gap.significant()


def test_no_documents_is_an_error():
    with pytest.raises(ValueError, match="at least one"):
        stats.score_matrix([[]])


def test_systems_with_different_document_counts_are_an_error():
    with pytest.raises(ValueError, match="one score slot per document"):
        stats.score_matrix([[0.5, 0.5], [0.5]])


def test_zero_resamples_is_an_error():
    with pytest.raises(ValueError, match="resamples=0"):
        stats.bootstrap_counts(3, resamples=0)


def test_a_confidence_outside_0_1_is_an_error():
    with pytest.raises(ValueError, match="confidence=95"):
        stats.percentile_interval(np.array([0.5]), confidence=95)


def test_unpaired_sample_rows_are_an_error():
    with pytest.raises(ValueError, match="same draws"):
        stats.paired_difference(np.zeros(3), np.zeros(4), 0.0)


scores = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(values=scores, seed=st.integers(0, 2**32 - 1))
def test_the_interval_contains_the_point_estimate(values, seed):
    samples = stats.bootstrap_macro(stats.score_matrix([values]), resamples=200, seed=seed)
    estimate = float(np.mean(values))
    low, high = stats.percentile_interval(samples[0])
    assert low - 1e-12 <= estimate <= high + 1e-12


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), min_size=1, max_size=30),
    seed=st.integers(0, 2**32 - 1),
)
def test_swapping_base_and_head_negates_the_difference(pairs, seed):
    base, head = [p[0] for p in pairs], [p[1] for p in pairs]
    forward = stats.mean_difference(base, head, resamples=200, seed=seed)
    backward = stats.mean_difference(head, base, resamples=200, seed=seed)
    assert backward.estimate == -forward.estimate
    assert backward.low == pytest.approx(-forward.high, abs=1e-12)
    assert backward.high == pytest.approx(-forward.low, abs=1e-12)
    assert backward.p_value == forward.p_value


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.floats(0.0, 1.0)), min_size=1, max_size=30)
       .filter(lambda xs: any(x is not None for x in xs)))
def test_a_system_is_never_significantly_different_from_itself(values):
    gap = stats.mean_difference(values, values, resamples=200)
    assert (gap.estimate, gap.p_value) == (0.0, 1.0)
