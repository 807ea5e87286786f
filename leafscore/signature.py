"""The signature line: a number travels with its recipe (STYLE.md §1, after sacrebleu).

Example::

    leafscore:2.0|match:optimal|opts:5be1c07a|schemas:3f2a9c1e0b7d|labels:9c01d4e2a6f0|bs:1000|seed:12345|tool:0.1.0

Every field is a resolved setting, never "default". Structured options enter as a digest
of canonical JSON (:func:`options_digest`), so no value holds ``|`` or ``:``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from leafscore import stats

#: Field names, in the order they are printed.
FIELDS: tuple[str, ...] = ("leafscore", "match", "opts", "schemas", "labels", "bs", "seed", "tool")
#: Hex digits kept from a set digest.
SET_DIGEST_CHARS = 12
#: Bootstrap defaults printed when a run has not been resampled with other settings.
DEFAULT_RESAMPLES, DEFAULT_SEED = stats.DEFAULT_RESAMPLES, stats.DEFAULT_SEED


def options_digest(options: Any) -> str:
    """A signature's ``opts:``: 8 hex digits of the sha256 of ``options.to_dict()`` (a
    ``scorer.Options``) as sorted, compact JSON; changes with any resolved option."""
    text = json.dumps(options.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def set_digest(digests: Mapping[str, str]) -> str:
    """Digest of a set of files, first 12 hex digits of a sha256.

    ``digests`` maps relative path -> sha256 hex. The set digest hashes the lines
    ``"<path>\\t<sha256>\\n"`` in sorted path order, so it changes when any file is
    added, removed, renamed or edited, and never with listing order.
    """
    h = hashlib.sha256()
    for path in sorted(digests):
        h.update(f"{path}\t{digests[path]}\n".encode())
    return h.hexdigest()[:SET_DIGEST_CHARS]


def format_signature(
    *,
    version: str,
    matching: str,
    options_digest: str,
    schemas: str,
    labels: str,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    tool: str,
) -> str:
    """Build the signature line from resolved settings.

    ``schemas``/``labels`` are set digests (``set_digest``); ``resamples`` and ``seed``
    are the bootstrap settings (ints). Raises ``ValueError`` if any value holds ``|``
    or ``:`` (which would break ``parse_signature``) or is empty.
    """
    values = (version, matching, options_digest, schemas, labels, str(resamples), str(seed), tool)
    for name, value in zip(FIELDS, values, strict=True):
        if not value or "|" in value or ":" in value:
            raise ValueError(f"signature field {name}={value!r} is empty or holds '|' or ':'")
    return "|".join(f"{name}:{value}" for name, value in zip(FIELDS, values, strict=True))


def parse_signature(text: str) -> dict[str, str]:
    """Split a signature line into ``{field: value}`` (all values strings).

    Splits on ``|``, then each part on its first ``:``. Raises ``ValueError`` naming the
    part when one has no ``:`` or a field repeats.
    """
    out: dict[str, str] = {}
    for part in text.strip().split("|"):
        name, sep, value = part.partition(":")
        if not sep:
            raise ValueError(f"signature part {part!r} has no ':'")
        if name in out:
            raise ValueError(f"signature field {name!r} appears twice")
        out[name] = value
    return out


def with_bootstrap(signature: str, *, resamples: int, seed: int) -> str:
    """The same signature with its ``bs`` and ``seed`` fields replaced."""
    fields = parse_signature(signature)
    fields["bs"], fields["seed"] = str(resamples), str(seed)
    return "|".join(f"{k}:{v}" for k, v in fields.items())
