"""The cache cannot be forged by whoever supplies its folder (issue 22 item 1).

The signing key lives outside the cache folder: ``$LEAFSCORE_CACHE_KEY`` (CI), else
``$XDG_CONFIG_HOME/leafscore/cache.key`` (``~/.config/leafscore/cache.key``), 32 bytes,
mode 0600, made on first use. A cache folder copied, restored or planted by someone else
verifies only under the key that wrote it; under any other key every entry is a miss and
is rescored. ``report`` and ``verify`` rescore without the cache (``report`` reads it
only when given ``--cache`` or ``--cache-dir``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from cli_helpers import invoke, make_benchmark, private_cache

from leafscore import cache as cache_module
from leafscore import runner, runpack
from leafscore.cache import Cache

__all__ = ["private_cache"]

LABEL = {"a": "x", "b": "y"}
HALF_RIGHT = {"a": "x", "b": "z"}  # one leaf of two: the true score is 50.00
KEY_A = "a" * 16 + "0123456789abcdef" * 3  # 64 characters, as `openssl rand -hex 32`
KEY_B = "b" * 16 + "0123456789abcdef" * 3


def run(*args):
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def half_and_perfect(tmp_path: Path) -> Path:
    """One document; ``half`` truly scores 0.5, ``perfect`` 1.0."""
    return make_benchmark(tmp_path / "bench", {"d1": LABEL},
                          {"half": {"d1": HALF_RIGHT}, "perfect": {"d1": LABEL}})


@pytest.fixture
def default_cache(tmp_path, monkeypatch) -> Path:
    """The default cache folder of the test (``$XDG_CACHE_HOME/leafscore``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return tmp_path / "xdg-cache" / "leafscore"


# ----- the attacker: whoever supplies the cache folder ---------------------------------

def _mac(secret: bytes, key: str, part: str, line: bytes) -> bytes:
    """The entry MAC as the cache format documents it (docs/CLI.md, leafscore/cache.py)."""
    message = key.encode() + b"\x1f" + part.encode() + b"\x1f" + line
    return hmac.digest(secret, message, "sha256").hex().encode()


def _folder_secret(folder: Path) -> bytes:
    """Whatever signing key ``folder`` holds (a ``secret.key`` beside the entries, as the
    cache kept it before issue 22), else one planted there now, 0600, by this user."""
    path = folder / "secret.key"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(32))
        path.chmod(0o600)
    return path.read_bytes()


def _sign(folder: Path, path: Path, line: bytes, detail: bytes,
          secret: bytes | None = None) -> None:
    secret, key = secret or _folder_secret(folder), path.stem
    head = _mac(secret, key, "entry", line) + b" " + (
        _mac(secret, key, "detail", detail) if detail else b"-")
    path.write_bytes(head + b"\n" + line + (b"\n" + detail if detail else b""))


def forge(cache_dir: Path, secret: bytes | None = None) -> int:
    """Re-sign the entries of ``cache_dir`` with whatever the folder holds (or ``secret``),
    each cell made the best one found: every per-cell entry takes the best cell's entry
    (and verdicts), every run pack gives every cell the best cell's columns. Returns the
    entries forged."""
    cells, packs = [], []
    for path in sorted(cache_dir.rglob("*.json")):
        part = path.parent.parent
        if part == cache_dir:
            cells.append(path)
        elif part == cache_dir / "runs":
            packs.append(path)
    forged = 0
    read = [(p, *p.read_bytes().split(b"\n")[1:]) for p in cells]
    best = max(read, key=lambda r: json.loads(r[1])["score"]["accuracy"])
    for path, *_ in read:
        _sign(cache_dir, path, best[1], best[2] if len(best) > 2 else b"", secret)
        forged += 1
    for path in packs:
        entry = json.loads(path.read_bytes().split(b"\n")[1])
        top = max(range(len(entry["value"])), key=entry["value"].__getitem__)
        for column in runpack.COLUMNS:
            entry[column] = [entry[column][top]] * len(entry[column])
        _sign(cache_dir / "runs", path, json.dumps(entry, separators=(",", ":")).encode(), b"",
              secret)
        forged += 1
    return forged


def forged_cache(tmp_path: Path, cache_dir: Path) -> Path:
    """The benchmark, scored once with the cache (as a normal run leaves it), whose cache
    folder has then been forged."""
    root = half_and_perfect(tmp_path)
    run("score", root, "--cache-dir", cache_dir)
    assert forge(cache_dir) >= 3  # two cells and the run pack
    return root


def half_score(summary_or_matrix: dict) -> float:
    if "aggregates" in summary_or_matrix:
        return summary_or_matrix["aggregates"]["half"]
    return summary_or_matrix["systems"]["half"]["documents"]["d1"]


# ----- a forged folder changes nothing --------------------------------------------------

def test_the_forgery_signed_with_the_users_own_key_would_show_100(tmp_path, default_cache):
    """The control: the forged entries are well-formed, so only the key stands in the way
    (the field report: a system whose true score is 50.00 shown as 100.00)."""
    root = half_and_perfect(tmp_path)
    run("score", root, "--cache-dir", default_cache)
    forge(default_cache, cache_module.signing_key(default_cache).secret)
    assert half_score(json.loads(run("score", root, "--format", "json").stdout)) == 1.0


def test_a_forged_cache_folder_never_changes_a_shown_score(tmp_path, default_cache):
    root = forged_cache(tmp_path, default_cache)
    shown = run("score", root, "--format", "json")
    board = run("leaderboard", root, "--resamples", "100")
    assert half_score(json.loads(shown.stdout)) == 0.5
    assert shown.stdout == run("score", root, "--format", "json", "--no-cache").stdout
    assert board.stdout == run("leaderboard", root, "--resamples", "100", "--no-cache").stdout


def test_a_forged_cache_folder_never_changes_a_reported_score(tmp_path, default_cache):
    root = forged_cache(tmp_path, default_cache)
    run("report", root, "--resamples", "100", "--out", tmp_path / "cold", "--no-cache")
    for name, told in (("plain", ()), ("cached", ("--cache",))):
        run("report", root, "--resamples", "100", "--out", tmp_path / name, *told)
        summary = json.loads((tmp_path / name / "summary.json").read_text("utf-8"))
        assert summary["aggregates"]["half"] == 0.5
        for file in ("summary.json", "summary.csv"):
            assert (tmp_path / name / file).read_bytes() == \
                (tmp_path / "cold" / file).read_bytes()


def test_a_forged_cache_folder_never_makes_verify_pass_a_forged_summary(tmp_path,
                                                                       default_cache):
    root = forged_cache(tmp_path, default_cache)
    run("report", root, "--resamples", "100", "--no-cache")
    assert run("verify", root).stdout.startswith("verify: OK")
    path = root / "results" / "summary.json"
    summary = json.loads(path.read_text("utf-8"))
    summary["aggregates"]["half"] = summary["per_doc"][0]["half"] = 1.0  # as the cache says
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", "utf-8")
    checked = invoke("verify", root)
    assert checked.exit_code == 1
    assert "verify: DRIFT: results/summary.json does not reproduce" in checked.stdout
    assert "differs at /aggregates/half, /per_doc/0/half" in checked.stdout


def test_a_secret_key_planted_in_the_cache_folder_is_never_read(tmp_path):
    planted = tmp_path / "cache" / "secret.key"
    planted.parent.mkdir()
    planted.write_bytes(os.urandom(32))
    planted.chmod(0o600)
    key = "0" * 64
    entry = tmp_path / "cache" / key[:2] / f"{key}.json"
    entry.parent.mkdir()
    _sign(tmp_path / "cache", entry, b'{"a":1}', b"")
    assert Cache(tmp_path / "cache").get(key) is None


# ----- a copied or restored cache verifies only under the key that wrote it -------------

def scored_cells(monkeypatch) -> list[str]:
    """The result files scored from now on in this process (the serial executor)."""
    scored: list[str] = []
    real = runner.score_cell
    monkeypatch.setattr(runner, "score_cell",
                        lambda doc, raw, *rest: scored.append(raw.file) or real(doc, raw, *rest))
    return scored


def test_a_cache_restored_under_the_key_that_wrote_it_is_used(tmp_path, monkeypatch):
    root = half_and_perfect(tmp_path)
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_A)
    cold = run("score", root, "--format", "json", "--cache-dir", tmp_path / "ci-cache")
    shutil.copytree(tmp_path / "ci-cache", tmp_path / "restored")  # the CI cache artifact
    scored = scored_cells(monkeypatch)
    warm = run("score", root, "--format", "json", "--cache-dir", tmp_path / "restored")
    assert scored == []
    assert warm.stdout == cold.stdout


def test_a_cache_copied_under_another_key_is_a_miss_and_is_rescored(tmp_path, monkeypatch):
    root = half_and_perfect(tmp_path)
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_A)
    cold = run("score", root, "--format", "json", "--cache-dir", tmp_path / "theirs")
    shutil.copytree(tmp_path / "theirs", tmp_path / "copied")
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_B)
    scored = scored_cells(monkeypatch)
    warm = run("score", root, "--format", "json", "--cache-dir", tmp_path / "copied")
    assert scored == ["results/half/d1.json", "results/perfect/d1.json"]
    assert warm.stdout == cold.stdout


def test_a_cache_copied_from_another_users_key_file_is_a_miss(tmp_path, monkeypatch):
    root = half_and_perfect(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "their-config"))
    run("score", root, "--cache-dir", tmp_path / "theirs")
    shutil.copytree(tmp_path / "theirs", tmp_path / "copied")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "my-config"))
    scored = scored_cells(monkeypatch)
    run("score", root, "--cache-dir", tmp_path / "copied")
    assert scored == ["results/half/d1.json", "results/perfect/d1.json"]


def test_an_entry_signed_under_one_key_is_read_under_that_key_only(tmp_path, monkeypatch):
    store = Cache(tmp_path / "cache")
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_A)
    store.put("f" * 64, {"score": 1})
    assert store.get("f" * 64) == ({"score": 1}, None)
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_B)
    assert store.get("f" * 64) is None


# ----- where the key is kept ------------------------------------------------------------

def test_the_key_file_is_made_once_in_the_config_folder_and_never_replaced(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    path = tmp_path / "config" / "leafscore" / "cache.key"
    first = path.read_bytes()
    cache_module._make_secret(str(path.parent), str(path))  # a second run making it at once
    assert path.read_bytes() == first
    assert [p.name for p in path.parent.iterdir()] == ["cache.key"]  # no temporary left


def test_without_xdg_config_home_the_key_is_under_the_home_config_folder(tmp_path,
                                                                         monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_module.default_key_file() == tmp_path / "home/.config/leafscore/cache.key"


def test_a_key_from_the_environment_makes_no_key_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", KEY_A)
    scored = scored_cells(monkeypatch)
    root = half_and_perfect(tmp_path)
    run("score", root, "--cache-dir", tmp_path / "cache")
    run("score", root, "--cache-dir", tmp_path / "cache")
    assert len(scored) == 2  # the second run read both cells from the cache
    assert not (tmp_path / "config").exists()


def test_an_empty_key_variable_counts_as_unset(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", "")
    run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    assert (tmp_path / "config" / "leafscore" / "cache.key").stat().st_size == 32


def test_a_key_from_the_environment_shorter_than_32_characters_turns_the_cache_off(
        tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFSCORE_CACHE_KEY", "x" * 31)
    out = run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    assert out.stderr.splitlines()[0] == ("leafscore: $LEAFSCORE_CACHE_KEY holds fewer than "
                                          "32 characters; scoring without the cache")
    assert not (tmp_path / "cache").exists()


def test_a_key_folder_that_cannot_be_made_turns_the_cache_off_with_one_note(tmp_path,
                                                                            monkeypatch):
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "a-file"))
    out = run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    key = tmp_path / "a-file" / "leafscore" / "cache.key"
    notes = [line for line in out.stderr.splitlines() if "cache" in line]
    assert notes == [f"leafscore: cannot make or read the cache key {key} (Not a directory); "
                     "scoring without the cache"]
    assert not (tmp_path / "cache").exists()
    assert json.loads(run("score", half_and_perfect(tmp_path), "--format", "json",
                          "--cache-dir", tmp_path / "cache").stdout)["systems"]["half"][
        "documents"] == {"d1": 0.5}


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root writes into a read-only folder")
def test_a_read_only_key_folder_turns_the_cache_off_with_one_note(tmp_path, monkeypatch):
    folder = tmp_path / "config" / "leafscore"
    folder.mkdir(parents=True)
    folder.chmod(0o500)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    try:
        out = run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    finally:
        folder.chmod(0o700)
    assert (f"leafscore: cannot make or read the cache key {folder / 'cache.key'} "
            "(Permission denied); scoring without the cache") in out.stderr.splitlines()
    assert not (tmp_path / "cache").exists()


def test_a_key_file_inside_the_cache_folder_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "shared"))
    out = run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "shared")
    key = tmp_path / "shared" / "leafscore" / "cache.key"
    assert (f"leafscore: the cache key {key} lies inside the cache folder "
            f"{tmp_path / 'shared'}, so whoever supplies the folder would hold it; scoring "
            "without the cache") in out.stderr.splitlines()
    assert not key.exists()


def test_a_key_file_that_is_a_symlink_turns_the_cache_off(tmp_path, monkeypatch):
    folder = tmp_path / "config" / "leafscore"
    folder.mkdir(parents=True)
    (tmp_path / "elsewhere.key").write_bytes(os.urandom(32))
    (tmp_path / "elsewhere.key").chmod(0o600)
    (folder / "cache.key").symlink_to(tmp_path / "elsewhere.key")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    out = run("score", half_and_perfect(tmp_path), "--cache-dir", tmp_path / "cache")
    assert "scoring without the cache" in out.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can give a file to another user")
def test_a_key_file_owned_by_another_user_turns_the_cache_off(tmp_path, monkeypatch):
    folder = tmp_path / "config" / "leafscore"
    folder.mkdir(parents=True)
    (folder / "cache.key").write_bytes(os.urandom(32))
    (folder / "cache.key").chmod(0o600)
    os.chown(folder / "cache.key", 65534, 65534)  # nobody
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert Cache(tmp_path / "cache").problem == (
        f"the cache key {folder / 'cache.key'} is not a private 32-byte file of this user")


def test_a_key_of_the_wrong_size_turns_the_cache_off(tmp_path, monkeypatch):
    folder = tmp_path / "config" / "leafscore"
    folder.mkdir(parents=True)
    (folder / "cache.key").write_bytes(b"short")
    (folder / "cache.key").chmod(0o600)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert Cache(tmp_path / "cache").problem == (
        f"the cache key {folder / 'cache.key'} is not a private 32-byte file of this user")


def test_the_key_folder_and_file_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert Cache(tmp_path / "cache").problem == ""
    key = tmp_path / "config" / "leafscore" / "cache.key"
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert hashlib.sha256(key.read_bytes()).hexdigest() != hashlib.sha256(b"").hexdigest()


# ----- report and verify rescore without the cache -------------------------------------

def test_verify_rescores_every_document_even_with_a_warm_cache(tmp_path, default_cache,
                                                              monkeypatch):
    root = half_and_perfect(tmp_path)
    run("report", root, "--resamples", "100", "--cache")  # warms the default cache
    run("score", root)
    scored = scored_cells(monkeypatch)
    run("verify", root)
    assert scored == ["results/half/d1.json", "results/perfect/d1.json"]


def test_verify_says_once_that_it_does_not_use_a_cache_folder_given_to_it(tmp_path):
    root = half_and_perfect(tmp_path)
    run("report", root, "--resamples", "100")
    out = run("verify", root, "--cache-dir", tmp_path / "cache")
    assert out.stderr.splitlines().count(
        "leafscore: `verify` rescores without the cache; --cache-dir is not used") == 1
    assert not (tmp_path / "cache").exists()


def test_report_rescores_every_document_even_with_a_warm_cache(tmp_path, default_cache,
                                                              monkeypatch):
    root = half_and_perfect(tmp_path)
    run("score", root)  # warms the default cache
    scored = scored_cells(monkeypatch)
    run("report", root, "--resamples", "100")
    assert scored == ["results/half/d1.json", "results/perfect/d1.json"]


def test_report_reads_the_cache_when_told_to(tmp_path, default_cache, monkeypatch):
    root = half_and_perfect(tmp_path)
    run("score", root)
    scored = scored_cells(monkeypatch)
    run("report", root, "--resamples", "100", "--cache")
    run("report", root, "--resamples", "100", "--cache-dir", default_cache)
    assert scored == []


def test_report_refuses_cache_with_no_cache(tmp_path):
    out = invoke("report", half_and_perfect(tmp_path), "--cache", "--no-cache")
    assert out.exit_code == 2
    assert "--cache and --no-cache contradict each other" in out.stderr


def test_a_relative_xdg_config_home_is_ignored_for_the_home_config_folder(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_module.default_key_file() == tmp_path / "home/.config/leafscore/cache.key"


def test_no_home_folder_turns_the_cache_off_saying_what_to_set(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(cache_module.os.path, "expanduser", lambda path: path)  # no pwd entry
    assert Cache(tmp_path / "cache").problem == (
        "no home folder to keep the cache key in (set XDG_CONFIG_HOME or LEAFSCORE_CACHE_KEY)")
    assert Cache(tmp_path / "cache").get("0" * 64) is None
