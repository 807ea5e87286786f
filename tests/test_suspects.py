"""`leafscore suspects`: label leaves that several systems agree on against the label."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cli_helpers import REPO, invoke, make_benchmark

import leafscore
from leafscore.suspects import default_min_agree

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "total": {"type": "number"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "number"},
            "unit": {"type": "string"}}}},
    },
}
SYSTEMS = ("s1", "s2", "s3", "s4", "s5")
#: (document, address, label value written instead of the truth; None: left empty).
PLANTED = [
    ("d03", "name", "Acme Corp"),
    ("d05", "total", 999.0),
    ("d08", "lines[1].qty", 77),
    ("d11", "name", None),
    ("d14", "lines[0].sku", "ZZ-000"),
    ("d17", "total", 1.5),
]


def _truth(index: int) -> dict[str, Any]:
    return {"name": f"Vendor {index}", "total": 100.0 + index,
            "lines": [{"sku": f"SKU-{index}-{j}", "qty": j + 1, "unit": f"U{j}"}
                      for j in range(3)]}


def _leaves(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    return [("name",), ("total",)] + [("lines", j, k) for j in range(3)
                                     for k in ("sku", "qty", "unit")]


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target = doc
    for step in path[:-1]:
        target = target[step]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value


def _address(path: tuple[Any, ...]) -> str:
    return path[0] if len(path) == 1 else f"{path[0]}[{path[1]}].{path[2]}"


def _item(path: tuple[Any, ...]) -> str:
    """The scalar's address, or its array item's (``lines[1]``)."""
    return path[0] if len(path) == 1 else f"{path[0]}[{path[1]}]"


def planted_benchmark(root) -> Any:
    """20 documents, 5 noisy systems (array items of three leaves, so that a planted leaf's
    item pairs on two correct leaves): every system errs on about a fifth of the leaves with
    a value of its own, s1 and s2 share a wrong name in 5 documents (two never reach
    --min-agree 3), results list array items shuffled and write some numbers as text; on
    planted leaves (and the rest of a planted array item, so that it pairs) at least three
    systems give the truth."""
    rng = random.Random(12)
    labels, results = {}, {s: {} for s in SYSTEMS}
    planted = {(doc, address): value for doc, address, value in PLANTED}
    planted_items = {(doc, address.split(".")[0]) for doc, address, _ in PLANTED}
    for i in range(20):
        doc_id = f"d{i:02d}"
        truth = _truth(i)
        label = json.loads(json.dumps(truth))
        for path in _leaves(truth):
            if (doc_id, _address(path)) in planted:
                _set(label, path, planted[(doc_id, _address(path))])
        labels[doc_id] = label
        for k, system in enumerate(SYSTEMS):
            result = json.loads(json.dumps(truth))
            for path in _leaves(truth):
                if k >= 2 and (doc_id, _item(path)) in planted_items:
                    continue  # s3, s4, s5 read planted leaves (and their items) right
                if k < 2 and i % 4 == 1 and path == ("name",):
                    _set(result, path, "Shared Wrong")  # s1 and s2 agree: 5 such leaves
                elif rng.random() < 0.2:
                    _set(result, path, f"{system}-wrong-{i}" if path[-1] != "qty" and
                         path[-1] != "total" else 5000 + k)
            if k % 2:
                result["total"] = f"{result['total']:,.2f}" if isinstance(
                    result["total"], float) else result["total"]
            rng.shuffle(result["lines"])
            results[system][doc_id] = result
    return make_benchmark(root, labels, results, schema=SCHEMA,
                          config='scoring_version = "2.0"\n')


def test_every_planted_label_error_is_found_at_min_agree_3_with_no_false_alarm(tmp_path):
    found = leafscore.evaluate(planted_benchmark(tmp_path), cache=False).suspects(min_agree=3)
    assert sorted((s.document, s.address) for s in found.suspects) == sorted(
        (doc, address) for doc, address, _ in PLANTED)
    assert all(s.agree >= 3 for s in found.suspects)


def test_the_suspect_names_the_label_value_the_agreed_value_and_the_systems(tmp_path):
    found = leafscore.evaluate(planted_benchmark(tmp_path), cache=False).suspects(min_agree=3)
    total = next(s for s in found.suspects if (s.document, s.address) == ("d05", "total"))
    assert total.label == 999.0 and total.value == "105"
    assert {"s3", "s4", "s5"} <= set(total.systems)
    empty = next(s for s in found.suspects if s.document == "d11")
    assert (empty.label, empty.value, empty.compared) == (None, "Vendor 11", "raw")


def test_suspects_are_ranked_by_the_number_of_agreeing_systems(tmp_path):
    found = leafscore.evaluate(planted_benchmark(tmp_path), cache=False).suspects(min_agree=3)
    agree = [s.agree for s in found.suspects]
    assert agree == sorted(agree, reverse=True)


def test_the_5_names_two_systems_share_are_suspects_at_min_agree_2_only(tmp_path):
    run = leafscore.evaluate(planted_benchmark(tmp_path), cache=False)
    shared = [s for s in run.suspects(min_agree=2).suspects if s.value == "sharedwrong"]
    assert sorted(s.document for s in shared) == ["d01", "d05", "d09", "d13", "d17"]
    assert all(s.systems == ("s1", "s2") for s in shared)


def test_the_default_min_agree_is_a_majority_and_at_least_3():
    assert [default_min_agree(n) for n in (3, 4, 5, 6, 9)] == [3, 3, 3, 4, 5]


def test_suspects_cli_lists_the_planted_errors_as_a_table(tmp_path):
    out = invoke("suspects", planted_benchmark(tmp_path), "--min-agree", "3")
    assert out.exit_code == 0
    assert "6 entries for 6 suspect label leaf/leaves" in out.stdout
    assert '5/5         1  d05         total         999.0        "105"           ' \
        '105.0 (s1, s3, s5); "105.00" (s2, s4)' in out.stdout


def test_suspects_under_1_0_exits_2_saying_it_needs_verdicts():
    out = invoke("suspects", REPO, "--version", "1.0")
    assert out.exit_code == 2
    assert "needs per-leaf verdicts, which version 1.0 does not keep; pass --version 2.1" \
        in out.stderr


def test_the_sample_has_no_suspect_at_the_default_min_agree_of_3():
    data = json.loads(invoke("suspects", REPO, "--format", "json").stdout)
    assert (data["min_agree"], data["suspects"], data["patterns"]) == (3, [], [])


def test_min_agree_1_is_refused():
    assert invoke("suspects", REPO, "--min-agree", "1").exit_code == 2


def test_min_agree_above_the_number_of_systems_exits_2_naming_the_option_and_the_count():
    out = invoke("suspects", REPO, "--min-agree", "10")
    assert out.exit_code == 2
    assert "leafscore: error: --min-agree 10 is more than the 4 system(s) scored; " \
        "pass at most 4" in out.stderr
    assert out.stdout == ""


def test_disagree_above_the_number_of_systems_selected_exits_2():
    out = invoke("suspects", REPO, "--system", "atlas", "--system", "beacon",
                 "--disagree", "3")
    assert out.exit_code == 2
    assert "--disagree 3 is more than the 2 system(s) scored; pass at most 2" in out.stderr


def test_min_agree_equal_to_the_number_of_systems_is_accepted():
    data = json.loads(invoke("suspects", REPO, "--min-agree", "4", "--format", "json").stdout)
    assert (data["min_agree"], data["systems"]) == (4, 4)


@pytest.mark.parametrize("min_agree", [4, 5])
def test_docubench_2_0_suspects_are_at_least_min_agree_systems_against_the_label(
        shared, min_agree):
    found = leafscore.evaluate(shared / "docubench", version="2.0").suspects(
        min_agree=min_agree)
    assert found.suspects and all(s.agree >= min_agree for s in found.suspects)
    assert all(s.value != s.label_canon for s in found.suspects)


ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"},
                                     "n": {"type": "number"}}}}}}


def rows_benchmark(root, label_rows, system_rows) -> Any:
    """One document ``doc`` of ``rows``: its label rows and each system's rows."""
    return make_benchmark(root, {"doc": {"rows": label_rows}},
                          {s: {"doc": {"rows": rows}} for s, rows in system_rows.items()},
                          schema=ROWS, config='scoring_version = "2.1"\n')


def test_0_and_0_0_written_into_an_empty_label_leaf_agree_and_are_kept_as_written(tmp_path):
    root = rows_benchmark(tmp_path, [{"a": "x", "b": "y"}], {
        "s1": [{"a": "x", "b": "y", "n": 0}], "s2": [{"a": "x", "b": "y", "n": 0.0}],
        "s3": [{"a": "x", "b": "y", "n": 0}]})
    (suspect,) = leafscore.evaluate(root, cache=False).suspects(min_agree=3).suspects
    assert (suspect.address, suspect.value, suspect.compared) == ("rows[0].n", "0", "raw")
    assert suspect.written == ((0, ("s1", "s3")), (0.0, ("s2",)))


def test_leaves_of_one_field_label_and_value_are_one_pattern_with_a_count(tmp_path):
    label = [{"a": f"x{i}", "b": f"y{i}"} for i in range(3)]
    rows = [{"a": f"x{i}", "b": f"y{i}", "n": 0} for i in range(3)]
    root = rows_benchmark(tmp_path, label, {s: rows for s in ("s1", "s2", "s3")})
    (pattern,) = leafscore.evaluate(root, cache=False).suspects(min_agree=3).patterns
    assert (pattern.field, pattern.label, pattern.value, pattern.count) == (
        "rows[].n", None, "0", 3)
    assert [s.address for s in pattern.leaves] == ["rows[0].n", "rows[1].n", "rows[2].n"]
    assert pattern.documents == ("doc",)


def test_values_inside_an_item_paired_on_one_correct_leaf_are_no_agreement(tmp_path):
    root = rows_benchmark(tmp_path, [{"a": "x", "b": "y"}],
                          {s: [{"a": "x", "b": "z"}] for s in ("s1", "s2", "s3")})
    found = leafscore.evaluate(root, cache=False).suspects(min_agree=3)
    assert (found.suspects, found.disagreements) == ((), ())


def test_the_same_values_inside_an_item_paired_on_two_correct_leaves_are_a_suspect(tmp_path):
    root = rows_benchmark(tmp_path, [{"a": "x", "b": "y", "n": 5}],
                          {s: [{"a": "x", "b": "z", "n": 5}] for s in ("s1", "s2", "s3")})
    (suspect,) = leafscore.evaluate(root, cache=False).suspects(min_agree=3).suspects
    assert (suspect.address, suspect.label, suspect.value, suspect.results) == (
        "rows[0].b", "y", "z", ("z", "z", "z"))


def test_a_leaf_three_systems_dispute_in_three_values_is_a_disagreement(tmp_path):
    root = rows_benchmark(tmp_path, [{"a": "x", "b": "y", "n": 5}], {
        "s1": [{"a": "x", "b": "P", "n": 5}], "s2": [{"a": "x", "b": "Q", "n": 5}],
        "s3": [{"a": "x", "b": "R-1", "n": 5}]})
    found = leafscore.evaluate(root, cache=False).suspects(min_agree=3, disagree=3)
    (disputed,) = found.disagreements
    assert found.suspects == ()
    assert (disputed.address, disputed.label, disputed.systems, disputed.results,
            disputed.canons) == ("rows[0].b", "y", ("s1", "s2", "s3"), ("P", "Q", "R-1"),
                                 ("p", "q", "r1"))


def test_a_label_item_three_systems_leave_out_is_an_unpaired_item_with_its_label(tmp_path):
    label = [{"a": "x", "b": "y"}, {"a": "lost", "b": "row", "n": 7}]
    root = rows_benchmark(tmp_path, label, {s: [{"a": "x", "b": "y"}]
                                            for s in ("s1", "s2", "s3")})
    (item,) = leafscore.evaluate(root, cache=False).suspects(disagree=3).unpaired
    assert (item.document, item.item, item.field, item.systems, item.of) == (
        "doc", "rows[1]", "rows[]", ("s1", "s2", "s3"), 3)
    assert item.label == (("rows[1].a", "lost"), ("rows[1].b", "row"), ("rows[1].n", 7))


def test_disagree_1_is_refused():
    assert invoke("suspects", REPO, "--disagree", "1").exit_code == 2


def test_the_json_keeps_each_patterns_leaves_and_raw_values(tmp_path):
    label = [{"a": f"x{i}", "b": f"y{i}"} for i in range(2)]
    rows = [{"a": f"x{i}", "b": f"y{i}", "n": 0} for i in range(2)]
    root = rows_benchmark(tmp_path, label, {s: rows for s in ("s1", "s2", "s3")})
    data = json.loads(invoke("suspects", root, "--format", "json").stdout)
    (pattern,) = data["patterns"]
    assert (pattern["count"], pattern["field"], pattern["documents"], pattern["written"]) == (
        2, "rows[].n", ["doc"], [{"result": 0, "systems": ["s1", "s2", "s3"]}])
    assert [leaf["address"] for leaf in pattern["leaves"]] == ["rows[0].n", "rows[1].n"]
    assert (data["disagree"], data["disagreements"], data["unpaired"]) == (3, [], [])


def test_docubench_groups_the_29_null_nights_into_one_entry_with_the_raw_zeros(shared):
    found = leafscore.evaluate(shared / "docubench").suspects()
    (nights,) = [p for p in found.patterns if p.field == "tripRows[].nights"]
    assert (nights.count, nights.documents, nights.label, nights.value) == (
        29, ("45xidifn",), None, "0")
    assert nights.written == ((0, ("claude", "extend", "gemini", "gpt")),)
    assert nights.leaves[0].address == "tripRows[1].nights"


def test_docubench_suspects_table_shows_the_nights_entry_with_its_indices(shared):
    out = invoke("suspects", shared / "docubench")
    assert "    4/6        29  45xidifn    tripRows[1-8,10-13,15-31].nights  " in out.stdout
    assert "0 (claude, extend, gemini, gpt)" in out.stdout
    assert "11 entries for 41 suspect label leaf/leaves" in out.stdout
