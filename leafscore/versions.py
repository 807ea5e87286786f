"""The door: which scoring version, and which engine scores it, chosen once per command.

A command (``leafscore score``, ``leafscore.evaluate``, ``leafscore validate``...) turns
what it was asked for into a record here, and passes the record on: nothing after the
door looks a version up by its name.

* The engine: the one asked for (``--engine``, ``engine=``), else the environment
  variable :data:`ENGINE_VARIABLE`, else :data:`DEFAULT_ENGINE`. ``"reference"`` scores
  with ``scorer.py``'s own records (``scorer.VERSIONS``), ``"fast"`` with the accelerated
  engine's (``leafscore._fast.VERSIONS``); both give the same scores.
* The version: the one asked for (``--version``, ``version=``), else the benchmark's pin
  (``benchmark.toml``'s ``scoring_version``), else ``scorer.DEFAULT_VERSION``.

A record does not know its engine, so the engine's name travels beside it where it
matters (``Run.engine``, the cache keys).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import scorer

#: Engine names, the default first.
ENGINES: tuple[str, ...] = ("fast", "reference")
#: The engine of a command that asks for none.
DEFAULT_ENGINE: str = "fast"
#: The environment variable naming the engine when a command asks for none.
ENGINE_VARIABLE: str = "LEAFSCORE_ENGINE"


def choose_engine(asked: str | None = None, *,
                  environ: Mapping[str, str] | None = None) -> str:
    """The engine's name: ``asked``, else ``$LEAFSCORE_ENGINE`` (an empty value counts as
    unset), else ``"fast"``. ``environ`` defaults to ``os.environ``.

    Raises ``ValueError`` (one line, naming where the value came from) when the engine
    asked for, or the environment's, is not one of :data:`ENGINES`.
    """
    if asked is None:
        environ = os.environ if environ is None else environ
        name, given = environ.get(ENGINE_VARIABLE) or DEFAULT_ENGINE, ENGINE_VARIABLE
    else:
        name, given = asked, "engine"
    if name not in ENGINES:
        raise ValueError(f"{given}={name!r} is not one of {', '.join(map(repr, ENGINES))}")
    return name


def table(engine: str) -> Mapping[str, scorer.ScoringVersion]:
    """Version name -> record, as the engine called ``engine`` scores it. Raises
    ``ValueError`` for an unknown engine."""
    if engine == "reference":
        return scorer.VERSIONS
    if engine == "fast":
        from leafscore import _fast  # the accelerated engine, loaded when it is chosen

        return _fast.VERSIONS
    raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, ENGINES))}")


def resolve(asked: str | None, pinned: str | None, *, engine: str | None = None,
            on_default: Callable[[str], None] | None = None) -> scorer.ScoringVersion:
    """The record of the scoring version a command uses: ``asked`` (a flag or argument)
    wins, else ``pinned`` (the benchmark's ``scoring_version``), else
    ``scorer.DEFAULT_VERSION``, which is then passed to ``on_default`` (the CLI says so
    on stderr). The record is taken from the table of ``engine``
    (:func:`choose_engine`'s rule when ``None``).

    Raises ``ValueError`` for an unknown version (``version='3.0' is not one of '1.0',
    '2.0'``) or engine.
    """
    name = asked or pinned
    if name is None:
        name = scorer.DEFAULT_VERSION
        if on_default is not None:
            on_default(name)
    records = table(choose_engine(engine))
    record = records.get(name)
    if record is None:
        raise ValueError(f"version={name!r} is not one of {', '.join(map(repr, records))}")
    return record
