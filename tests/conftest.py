"""Shared fixtures: where ``../shared`` is, and whether its absence skips or fails; and
``engine``, which runs a test of scores once on each engine; and a signing key for the
score cache of the session's own (never the user's ``~/.config/leafscore/cache.key``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from engines import ENGINES, Engine

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The shared material folder: ``$LEAFSCORE_SHARED`` or ``../shared`` beside the repo."""
    return Path(os.environ.get("LEAFSCORE_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session", autouse=True)
def private_cache_key(tmp_path_factory):
    """The cache's signing key of this test session: ``$XDG_CONFIG_HOME`` in a temporary
    folder, and no ``$LEAFSCORE_CACHE_KEY`` from outside (a test that needs either sets
    it itself)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        patch.delenv("LEAFSCORE_CACHE_KEY", raising=False)
        yield


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of ``../shared``; skips when absent, fails under ``LEAFSCORE_REQUIRE_SHARED=1``."""
    path = shared_dir()
    if not path.is_dir():
        if os.environ.get("LEAFSCORE_REQUIRE_SHARED") == "1":
            pytest.fail(f"{path} is missing and LEAFSCORE_REQUIRE_SHARED=1")
        pytest.skip(f"{path} is absent")
    return path


@pytest.fixture(scope="module", params=ENGINES, ids=[e.name for e in ENGINES])
def engine(request) -> Engine:
    """Each engine in turn (``reference``, then ``fast``): a test of scores taking it runs
    on both, and every assertion it makes holds for both."""
    return request.param
