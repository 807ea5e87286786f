"""Schema validity: the share of a system's results that validate against their schema.

Reported apart from the score and never changing it: a result can be valid and wrong, or
invalid (a number written as text) and right under the metric. Read from the benchmark's
raw results, through the same reader and the run's version's envelope rule as scoring
(``benchmark.read_result``), so "the result" is what was scored.

- **Validator**: the schema's own draft (``jsonschema.validators.validator_for``, Draft
  2020-12 when ``$schema`` is absent) with an empty ``referencing.Registry()``: ``$ref``
  resolves inside the schema only, nothing is retrieved. ``format`` is checked (the
  draft's ``FORMAT_CHECKER``), as ``leafscore validate`` checks labels. Validation is
  strict: a ``null`` where the schema's type has no null is a violation here, although
  the metric reads it as absent.
- **Invalid** as well: a missing result, a parse failure (unreadable file, failed
  envelope, data that is not an object), and a schema whose ``$ref`` cannot be resolved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import scorer
from leafscore.benchmark import Benchmark, read_result


@dataclass(frozen=True)
class Validity:
    """Schema validity of one system.

    ``documents``: results counted; ``valid``: those that validate; ``missing`` and
    ``parse_failures``: counted as invalid; ``invalid``: the ids of every document
    whose result is not valid, sorted.
    """

    system: str
    documents: int
    valid: int
    missing: int
    parse_failures: int
    invalid: tuple[str, ...]

    @property
    def share(self) -> float | None:
        """``valid / documents`` in [0, 1]; ``None`` without documents."""
        return self.valid / self.documents if self.documents else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: every field, then ``share``."""
        return {"system": self.system, "documents": self.documents, "valid": self.valid,
                "missing": self.missing, "parse_failures": self.parse_failures,
                "invalid": list(self.invalid), "share": self.share}


def is_valid(instance: Any, schema: Any) -> bool:
    """True when ``instance`` validates against ``schema`` (see the module: own draft,
    no retrieval, formats checked). An unresolvable ``$ref`` gives False.

    >>> is_valid({"n": 1}, {"type": "object", "properties": {"n": {"type": "number"}}})
    True
    >>> is_valid({"n": "1"}, {"type": "object", "properties": {"n": {"type": "number"}}})
    False
    """
    import jsonschema  # loaded by the first check (``leafscore.validate`` says why)
    import referencing
    import referencing.exceptions

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, registry=referencing.Registry(), format_checker=cls.FORMAT_CHECKER)
    try:
        return validator.is_valid(instance)
    except (referencing.exceptions.Unresolvable, jsonschema.exceptions.SchemaError):
        return False


def schema_validity(bench: Benchmark,
                    record: scorer.ScoringVersion) -> tuple[Validity, ...]:
    """:class:`Validity` of every system of ``bench``, in system order, reading each
    result with the envelope rule of ``record``'s version (the run's, ``Run.record``)."""
    out = []
    for system in bench.systems:
        valid = missing = failed = 0
        invalid = []
        for doc in bench.documents:
            read = read_result(bench.results[(system, doc.id)], record, doc.schema)
            if read.status == "scored" and is_valid(read.outcome.data, doc.schema):
                valid += 1
                continue
            missing += read.status == "missing"
            failed += read.status == "parse_failure"
            invalid.append(doc.id)
        out.append(Validity(system, len(bench.documents), valid, missing, failed,
                            tuple(sorted(invalid))))
    return tuple(out)
