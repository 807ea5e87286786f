"""A generated benchmark folder for the explorer's tests: any number of documents and
systems, seeded, with every kind of verdict (wrong values, missing leaves, extra items,
parse failures, missing results) and metadata to filter by."""

from __future__ import annotations

import json
import random
from pathlib import Path

SCHEMA = {
    "type": "object",
    "properties": {
        "number": {"type": "string"},
        "vendor": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "total": {"type": "number"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"desc": {"type": "string"}, "qty": {"type": "integer"},
                               "amount": {"type": "number"}},
            },
        },
    },
}
WORDS = ("bolts", "paint", "cable", "labour", "pipe", "glass", "timber", "tiles", "sand")
LANGS = ("en", "de", "fr", "ja")
FTYPES = ("pdf", "png", "docx")
TAGS = ("invoice", "handwritten", "long-array", "multi-page", "rotated")


def _label(rng: random.Random, hostile: str | None) -> dict:
    lines = [{"desc": rng.choice(WORDS) + f" {rng.randint(1, 99)}", "qty": rng.randint(1, 20),
              "amount": round(rng.uniform(1, 900), 2)} for _ in range(rng.randint(1, 6))]
    return {"number": f"INV-{rng.randint(1000, 9999)}",
            "vendor": hostile or rng.choice(("Acme GmbH", "Blue Ltd", "Côte SA", "東京商事")),
            "date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "total": round(sum(line["amount"] for line in lines), 2), "lines": lines}


def _result(rng: random.Random, label: dict, error_rate: float) -> dict | str | None:
    """A system's result: mostly the label, with ``error_rate`` leaf errors; sometimes an
    unreadable file (a parse failure) or none at all (a missing result)."""
    roll = rng.random()
    if roll < error_rate / 20:
        return None
    if roll < error_rate / 10:
        return "{not json"
    data = json.loads(json.dumps(label))
    for key in ("number", "vendor", "date"):
        if rng.random() < error_rate:
            data[key] = data[key] + "x"
    if rng.random() < error_rate:
        data.pop("total")
    for line in data["lines"]:
        if rng.random() < error_rate:
            line["qty"] += 1
    if rng.random() < error_rate:
        data["lines"].append({"desc": "surcharge", "qty": 1, "amount": 9.5})
    return {"status": "ok", "data": data}


def make_benchmark(root: Path, *, documents: int, systems: int, seed: int = 7,
                   hostile: str | None = None) -> Path:
    """Write a benchmark folder under ``root`` and return it.

    ``documents`` ids ``doc-0000``..., ``systems`` names ``sys-00``...; system k makes
    errors at a rate growing with k. ``hostile`` (a string) becomes the vendor of the
    first document's label and a tag of every document, to test escaping.
    """
    rng = random.Random(seed)
    for folder in ("schemas", "labels"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    names = [f"sys-{k:02d}" for k in range(systems)]
    for name in names:
        (root / "results" / name).mkdir(parents=True, exist_ok=True)
    sources = []
    schema_text = json.dumps(SCHEMA)
    for i in range(documents):
        doc = f"doc-{i:04d}"
        label = _label(rng, hostile if i == 0 else None)
        (root / "schemas" / f"{doc}.json").write_text(schema_text)
        (root / "labels" / f"{doc}.json").write_text(json.dumps(label, ensure_ascii=False))
        for k, name in enumerate(names):
            result = _result(rng, label, 0.02 + 0.03 * k)
            if result is None:
                continue
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            (root / "results" / name / f"{doc}.json").write_text(text)
        tags = rng.sample(TAGS, rng.randint(0, 2)) + ([hostile] if hostile else [])
        sources.append({"doc_id": doc, "ftype": rng.choice(FTYPES), "lang": rng.choice(LANGS),
                        "tags": tags})
    (root / "sources.json").write_text(json.dumps(sources, ensure_ascii=False))
    (root / "benchmark.toml").write_text(
        'name = "generated"\nscoring_version = "2.0"\n'
        'breakdowns = ["ftype", "lang", "tags"]\n')
    return root
