"""Power of paired comparisons: the formula against statsmodels, the bootstrap check,
Holm's correction, and `leafscore power` on the sample and on DocuBench."""

from __future__ import annotations

import json

import numpy as np
import pytest
from analysis_fakes import run_of
from cli_helpers import REPO, invoke, make_benchmark
from statsmodels.stats.power import NormalIndPower, TTestPower, normal_power

import leafscore
from leafscore import power as power_mod
from leafscore import stats

# (effect size d = delta / sd, alpha, power): three settings of the formula.
SETTINGS = [(0.2, 0.05, 0.8), (0.5, 0.05, 0.9), (0.8, 0.01, 0.8)]


@pytest.mark.parametrize(("effect", "alpha", "power"), SETTINGS)
def test_documents_needed_equals_statsmodels_normal_one_sample_power(effect, alpha, power):
    # NormalIndPower with ratio=0 is the one-sample (paired) normal test, solved
    # numerically and counting the far tail too: equal within 1e-5 relative.
    sd = 0.08
    ours = stats.documents_needed_exact(effect * sd, sd, alpha=alpha, power=power)
    theirs = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power,
                                          ratio=0, alternative="two-sided")
    assert ours == pytest.approx(theirs, rel=1e-5)


@pytest.mark.parametrize(("effect", "alpha", "power"), SETTINGS)
def test_the_minimum_detectable_difference_has_the_wanted_normal_power(effect, alpha, power):
    n, sd = 50, 0.08
    mdd = stats.min_detectable_difference(sd, n, alpha=alpha, power=power)
    assert normal_power(mdd / sd, n, alpha) == pytest.approx(power, abs=1e-5)


@pytest.mark.parametrize(("effect", "alpha", "power"), SETTINGS)
def test_the_normal_approximation_needs_at_most_four_documents_fewer_than_the_t_test(
        effect, alpha, power):
    # The t-test needs about z_{1-alpha/2}^2 / 2 more documents: 1.9 at 5%, 3.3 at 1%.
    ours = stats.documents_needed_exact(effect, 1.0, alpha=alpha, power=power)
    exact_t = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power,
                                       alternative="two-sided")
    assert 0 < exact_t - ours < 4


def test_at_5_percent_and_80_percent_power_the_factor_is_2_8016():
    assert stats.min_detectable_difference(1.0, 1) == pytest.approx(2.801585, abs=1e-6)


def test_one_point_with_a_5_point_sd_needs_197_documents():
    # (2.801585 * 0.05 / 0.01)^2 = 196.22 -> 197
    assert stats.documents_needed(0.01, 0.05) == 197


def test_the_formula_at_zero_sd_gives_two_documents_and_an_mdd_of_0():
    # The bare formula's limit; the power analysis reports it as undefined (below).
    assert stats.documents_needed(0.01, 0.0) == 2
    assert stats.min_detectable_difference(0.0, 50) == 0.0


def test_identical_systems_have_an_undefined_mdd_and_documents_needed():
    run = run_of({"a": [0.5, 0.9, 0.7], "b": [0.5, 0.9, 0.7]})
    analysis = power_mod.analyse(run)
    (pair,) = analysis.pairs
    assert (pair.sd, pair.mdd, pair.needed) == (0.0, None, None)
    assert pair.undefined == "the differences do not vary (sd 0): nothing to extrapolate from"
    assert (analysis.mdd, analysis.needed) == (None, None)
    assert analysis.sd_source.endswith("undefined: the sd is 0")


def test_power_on_identical_systems_prints_undefined_not_0_or_2_documents(tmp_path):
    labels = {f"d{i}": {"a": "x", "b": "y"} for i in range(4)}
    same = {f"d{i}": {"a": "x", "b": "y" if i % 2 else "z"} for i in range(4)}
    out = invoke("power", make_benchmark(tmp_path, labels, {"s1": same, "s2": same}),
                 "--version", "2.0")
    assert out.exit_code == 0
    assert "the smallest detectable difference is undefined" in out.stdout
    assert "Documents needed to detect 1 point(s): undefined." in out.stdout
    assert "MDD 0.00" not in out.stdout and "nan" not in out.stdout.lower()


def test_the_bootstrap_power_at_the_mdd_is_0_80_within_0_03_on_near_normal_differences():
    differences = np.random.default_rng(7).normal(0.01, 0.05, 200)
    mdd = stats.min_detectable_difference(float(differences.std(ddof=1)), 200)
    simulated = stats.bootstrap_power(differences, mdd, resamples=4000, seed=3)
    assert simulated == pytest.approx(0.80, abs=0.03)


def test_the_bootstrap_power_at_no_difference_is_the_5_percent_level_within_0_02():
    differences = np.random.default_rng(8).normal(0.0, 0.05, 200)
    assert stats.bootstrap_power(differences, 0.0, resamples=4000) == pytest.approx(
        0.05, abs=0.02)


def test_holm_multiplies_the_smallest_p_by_m_and_keeps_the_order():
    assert stats.holm([0.01, 0.04, 0.03, None]) == (0.03, 0.06, 0.06, None)
    assert stats.holm([0.5, 0.9]) == (1.0, 1.0)


def test_power_needs_a_positive_delta_and_power_between_0_and_1():
    with pytest.raises(ValueError, match="delta"):
        stats.documents_needed(0.0, 0.1)
    with pytest.raises(ValueError, match="power"):
        stats.min_detectable_difference(0.1, 10, power=1.0)


def test_the_sample_can_detect_27_97_points_and_needs_9391_documents_for_one():
    analysis = leafscore.evaluate(REPO, cache=False, keep_verdicts=False).power()
    assert analysis.documents == 12
    assert analysis.sd_source == "median of 3 adjacent pair(s)"
    assert round(100 * analysis.mdd, 2) == 27.97
    assert analysis.needed == 9391


def test_the_sample_over_all_six_pairs_detects_25_33_points_and_needs_7701_documents():
    analysis = leafscore.evaluate(REPO, cache=False, keep_verdicts=False).power()
    assert analysis.pairs_all == 6
    assert round(100 * analysis.mdd_all_pairs, 2) == 25.33
    assert analysis.needed_all_pairs == 7701
    assert [(p.a, p.b, p.relation) for p in analysis.pairs] == [
        ("atlas", "beacon", "leader, adjacent"), ("atlas", "cobalt", "leader"),
        ("atlas", "drift", "leader"), ("beacon", "cobalt", "adjacent"),
        ("cobalt", "drift", "adjacent")]


def test_power_with_a_given_sd_of_10_points_on_12_documents_detects_8_09_points():
    out = invoke("power", REPO, "--sd", "0.1", "--delta", "0.01")
    assert out.exit_code == 0
    assert "smallest detectable difference is 8.09 points" in out.stdout
    assert "Documents needed to detect 1 point(s): 785." in out.stdout
    assert "Chow, Shao & Wang" in out.stdout
    assert out.stdout.rstrip().splitlines()[-1].startswith("leafscore:2.0|")


def test_power_json_gives_fractions_and_the_pairs():
    data = json.loads(invoke("power", REPO, "--format", "json").stdout)
    assert data["needed"] == 9391 and data["delta"] == 0.01
    assert len(data["pairs"]) == 5 and data["warning"] is None


def test_power_on_fewer_than_10_documents_carries_the_warning(tmp_path):
    labels = {f"d{i}": {"a": "x", "b": "y"} for i in range(4)}
    results = {"s1": {f"d{i}": {"a": "x", "b": "y" if i % 2 else "z"} for i in range(4)},
               "s2": {f"d{i}": {"a": "x", "b": "z"} for i in range(4)}}
    out = invoke("power", make_benchmark(tmp_path, labels, results), "--version", "2.0")
    assert "warning: only 4 document(s), fewer than 10" in out.stdout


def test_docubench_under_2_0_detects_3_93_points_and_needs_774_documents_for_one(shared):
    # The headline is the median sd of the 5 adjacent pairs (9.93 points); over all 15
    # pairs it is 11.53 points: 4.57 points, 1044 documents (the old headline).
    run = leafscore.evaluate(shared / "docubench", version="2.0", keep_verdicts=False)
    analysis = run.power()
    assert analysis.documents == 50
    assert analysis.sd_source == "median of 5 adjacent pair(s)"
    assert round(100 * analysis.mdd, 2) == 3.93
    assert analysis.needed == 774
    assert run.power(delta=0.005).needed == 3095
    assert round(100 * analysis.mdd_all_pairs, 2) == 4.57
    assert analysis.needed_all_pairs == 1044
    top = analysis.pairs[0]
    assert (top.a, top.b, round(100 * top.mdd, 2)) == (
        "docupipe_high", "docupipe_standard", 1.60)
