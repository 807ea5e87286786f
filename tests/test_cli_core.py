"""The CLI's building blocks: signature line, benchmark.toml, cache keys, result envelopes."""

from __future__ import annotations

import pytest
from cli_helpers import REPO, invoke, private_cache

import scorer
from leafscore.benchmark import RawResult, read_result
from leafscore.cache import cache_key
from leafscore.config import parse_config
from leafscore.signature import (
    FIELDS,
    format_signature,
    parse_signature,
    set_digest,
    with_bootstrap,
)

__all__ = ["private_cache"]

SIG = ("leafscore:2.0|match:optimal|opts:5be1c07a|schemas:3f2a9c1e0b7d|labels:9c01d4e2a6f0"
       "|bs:1000|seed:12345|tool:0.1.0")


def test_parse_signature_round_trips_every_field():
    fields = parse_signature(SIG)
    assert tuple(fields) == FIELDS
    assert format_signature(
        version=fields["leafscore"], matching=fields["match"], options_digest=fields["opts"],
        schemas=fields["schemas"], labels=fields["labels"], resamples=int(fields["bs"]),
        seed=int(fields["seed"]), tool=fields["tool"]) == SIG


def test_a_signature_value_holding_a_bar_is_refused():
    with pytest.raises(ValueError, match="holds"):
        format_signature(version="2.0", matching="a|b", options_digest="x", schemas="s",
                         labels="l", tool="t")


def test_with_bootstrap_replaces_only_bs_and_seed():
    assert with_bootstrap(SIG, resamples=200, seed=7) == SIG.replace(
        "bs:1000|seed:12345", "bs:200|seed:7")


def test_a_set_digest_ignores_listing_order_and_sees_renames():
    assert set_digest({"a": "1", "b": "2"}) == set_digest({"b": "2", "a": "1"})
    assert set_digest({"a": "1"}) != set_digest({"c": "1"})


def test_the_score_output_signature_parses_and_names_the_version():
    last = invoke("score", REPO, "--version", "1.0", "--format", "csv").stdout.splitlines()[-1]
    fields = parse_signature(last.removeprefix("# "))
    assert (fields["leafscore"], fields["match"], fields["tool"]) == ("1.0", "greedy", "0.1.0")


def test_the_config_reads_every_known_key():
    config = parse_config('name = "n"\nversion = "1"\nscoring_version = "1.0"\n'
                          'metadata = "m.json"\nbreakdowns = ["lang"]\n'
                          '[options]\nabs_tol = 0.01\n[display_names]\ngpt = "GPT"\n')
    assert (config.name, config.version, config.scoring_version, config.metadata) == (
        "n", "1", "1.0", "m.json")
    assert config.breakdowns == ("lang",)
    assert config.options == scorer.Options(abs_tol=0.01)
    assert dict(config.display_names) == {"gpt": "GPT"}


def test_an_unknown_config_key_is_an_input_error_naming_it():
    with pytest.raises(scorer.InputError, match="unknown key 'scoring'"):
        parse_config('scoring = "2.0"\n')


def test_a_config_value_of_the_wrong_type_is_an_input_error():
    with pytest.raises(scorer.InputError) as raised:
        parse_config("scoring_version = 2.1\n")
    assert raised.value.reason == 'must be a string, not 2.1 (quoted: scoring_version = "2.1")'


def test_a_config_table_given_as_text_names_the_toml_kind_wanted():
    with pytest.raises(scorer.InputError) as raised:
        parse_config('options = "x"\n')
    assert raised.value.reason == "must be a table, not 'x'"


def test_a_file_given_as_root_is_not_a_folder_exit_2(tmp_path):
    (tmp_path / "f.json").write_text("{}")
    result = invoke("score", tmp_path / "f.json")
    assert result.exit_code == 2
    assert "f.json: not a folder (a benchmark is a folder holding labels/, schemas/ and " \
        "results/)" in result.stderr


def test_an_unknown_scoring_option_exits_2_naming_benchmark_toml(tmp_path):
    from cli_helpers import make_benchmark

    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}},
                          config="[options]\nabs_toll = 0.1\n")
    result = invoke("score", root)
    assert result.exit_code == 2
    assert "benchmark.toml:options" in result.stderr and "abs_toll" in result.stderr


def test_the_cache_key_changes_with_each_input():
    base = dict(schema_sha256="s", label_sha256="l", result_sha256="r", version="2.0",
                engine="fast", options_sha256="o", code_sha256="c", reader="file")
    keys = {cache_key(**base)}
    for name in base:
        changed = "jsonl-line" if name == "reader" else "changed"
        keys.add(cache_key(**dict(base, **{name: changed})))
    assert len(keys) == 1 + len(base)


def read(data: bytes | None, version: str = "2.0", schema: dict | None = None):
    record = scorer.scoring_version(version)
    return read_result(RawResult("r.json", data), record, schema or {"type": "object"})


def test_data_given_as_a_string_holding_json_is_decoded_with_a_warning():
    outcome = read(b'{"status": "ok", "data": "{\\"a\\": 1}"}')
    assert (outcome.status, outcome.outcome.data) == ("scored", {"a": 1})
    assert any("text holding JSON" in w for w in outcome.warnings)


def test_an_envelope_without_data_is_a_parse_failure_with_a_warning():
    outcome = read(b'{"status": "ok"}')
    assert outcome.status == "parse_failure"
    assert outcome.warnings == ("r.json: envelope has no data (parse failure)",)


def test_a_file_without_an_envelope_is_the_result_itself():
    outcome = read(b'{"a": 1}')
    assert (outcome.status, outcome.outcome.data, outcome.warnings) == ("scored", {"a": 1}, ())


def test_an_object_with_an_undeclared_data_member_and_no_status_is_an_envelope():
    outcome = read(b'{"data": {"a": 1}, "cost": 0.1}')
    assert (outcome.status, outcome.outcome.data) == ("scored", {"a": 1})


def test_a_declared_data_member_without_status_is_part_of_the_result_itself():
    schema = {"type": "object", "properties": {"data": {"type": "string"}}}
    outcome = read(b'{"data": "x"}', schema=schema)
    assert (outcome.status, outcome.outcome.data) == ("scored", {"data": "x"})


def test_an_envelope_status_other_than_ok_is_a_parse_failure():
    assert read(b'{"status": "error", "data": {"a": 1}}').status == "parse_failure"


def test_an_empty_result_file_is_a_parse_failure():
    assert read(b"").status == "parse_failure"


def test_an_absent_result_is_missing():
    assert read(None).status == "missing"


def test_version_1_0_scores_a_string_data_member_as_it_is_as_docubench_does():
    outcome = read(b'{"data": "{\\"a\\": 1}"}', "1.0")
    assert (outcome.status, outcome.outcome.data) == ("scored", '{"a": 1}')


def test_version_1_0_scores_a_failed_envelope_s_data_and_reports_a_parse_failure():
    outcome = read(b'{"status": "failed", "data": null}', "1.0")
    assert (outcome.status, outcome.outcome.data) == ("parse_failure", {})


def test_a_hidden_folder_under_results_is_not_a_system(tmp_path):
    from leafscore.benchmark import list_systems

    (tmp_path / "results" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "results" / "gpt").mkdir()
    assert list_systems(tmp_path) == ["gpt"]


def test_version_before_the_command_is_a_usage_error_not_a_silent_success():
    from click.testing import CliRunner

    from leafscore.cli import main

    result = CliRunner().invoke(main, ["--version", "1.0", "score"])
    assert result.exit_code == 2
    assert "leafscore score --version 1.0" in result.output


def test_diff_tolerance_is_a_fraction_so_a_percent_is_refused():
    from click.testing import CliRunner

    from leafscore.cli import main

    result = CliRunner().invoke(main, ["diff", str(REPO), "--base", "beacon", "--head",
                                       "cobalt", "--tolerance", "10"])
    assert result.exit_code == 2
    assert "0.0<=x<=1.0" in result.output


def test_verify_checks_a_summary_written_elsewhere_with_report_out(tmp_path):
    from click.testing import CliRunner

    from leafscore.cli import main

    runner = CliRunner()
    cache = ["--cache-dir", str(tmp_path / "cache")]
    written = runner.invoke(main, ["report", str(REPO), "--out", str(tmp_path / "out"),
                                   "--resamples", "100"])
    assert written.exit_code == 0, written.output
    checked = runner.invoke(main, ["verify", str(REPO), "--summary",
                                   str(tmp_path / "out" / "summary.json"), *cache])
    assert checked.exit_code == 0, checked.output
    assert "reproduces" in checked.output
