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
            "sku": {"type": "string"}, "qty": {"type": "number"}}}},
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
            "lines": [{"sku": f"SKU-{index}-{j}", "qty": j + 1} for j in range(3)]}


def _leaves(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    return [("name",), ("total",)] + [("lines", j, k) for j in range(3) for k in ("sku", "qty")]


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
    """20 documents, 5 noisy systems: every system errs on about a fifth of the leaves with
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
    assert "6 suspect label leaf/leaves." in out.stdout
    assert "d05         total" in out.stdout


def test_suspects_under_1_0_exits_2_saying_it_needs_verdicts():
    out = invoke("suspects", REPO, "--version", "1.0")
    assert out.exit_code == 2
    assert "needs per-leaf verdicts, which version 1.0 does not keep; pass --version 2.1" \
        in out.stderr


def test_the_sample_has_no_suspect_at_the_default_min_agree_of_3():
    data = json.loads(invoke("suspects", REPO, "--format", "json").stdout)
    assert (data["min_agree"], data["suspects"]) == (3, [])


def test_min_agree_1_is_refused():
    assert invoke("suspects", REPO, "--min-agree", "1").exit_code == 2


@pytest.mark.parametrize("min_agree", [4, 6])
def test_docubench_2_0_suspects_are_at_least_min_agree_systems_against_the_label(
        shared, min_agree):
    found = leafscore.evaluate(shared / "docubench", version="2.0").suspects(
        min_agree=min_agree)
    assert found.suspects and all(s.agree >= min_agree for s in found.suspects)
    assert all(s.value != s.label_canon for s in found.suspects)
