"""Per-document score cache that cannot lie: keyed by everything that decides a score,
signed, and checked on every read.

A key is the sha256 of every input that decides one document's score (``cache_key`` says
why each is in), so editing one file rescoring one document, and a new scorer.py or
option rescoring everything, follow from the key alone. Entries are files
``<dir>/<key[:2]>/<key>.json``::

    <mac of the entry> <mac of the detail>\n<entry: one line of JSON>[\n<detail>]

each MAC being HMAC-SHA256 under the user's signing key (:func:`signing_key`) over the
cache key and the line, so an entry edited, planted without the key, or copied under
another key's name is a miss, and is rescored. The signing key never lives in the cache
folder: it is ``$LEAFSCORE_CACHE_KEY`` when set (CI), else a random 32-byte file in the
user's private config folder (``$XDG_CONFIG_HOME/leafscore/cache.key``, else
``~/.config/leafscore/cache.key``, mode 0600, made on first use). So whoever supplies the
cache folder (a restored CI cache, a shared volume, a copied ``~/.cache/leafscore``)
cannot sign an entry: a folder written under another key is a miss throughout, and is
rescored. What an entry must hold to be used is checked by its reader (``cells.problem``
for a cell, ``runpack.decode`` for a run pack). Each entry is written to a temporary file
and renamed over its name, so a reader never sees half an entry; a damaged or unreadable
entry is a miss. Entries are disposable, so unlike ``files.atomic_write_bytes`` no
``fsync`` is made: measured here, fsync cost 7 ms per entry (2.2 s of a 3.2 s cold
DocuBench run), and an entry lost to a power cut is only rescored. The cache lives
outside the benchmark: by default ``$XDG_CACHE_HOME/leafscore`` (else
``~/.cache/leafscore``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Bumped when the entry layout changes; part of every key. (6: entries are signed with
#: a key kept outside the cache folder.)
CACHE_FORMAT = "6"
#: Environment variable that gives the signing key as text (CI: a secret of the job).
KEY_VARIABLE = "LEAFSCORE_CACHE_KEY"
#: Fewest characters of a key given by :data:`KEY_VARIABLE` (``openssl rand -hex 32``
#: gives 64).
MIN_KEY_CHARS = 32
#: File name of the signing key in the user's config folder (:func:`default_key_file`).
KEY_FILE_NAME = "cache.key"
#: Bytes of a signing key file (``secrets.token_bytes``).
SECRET_BYTES = 32
#: The reader tags of ``cache_key``: a result file read from a folder, or a JSONL
#: prediction line re-encoded as the result file it stands for.
READERS: tuple[str, ...] = ("file", "jsonl-line")
#: Package modules whose code decides a cell besides scorer.py: the result bytes, the
#: reader's limits and warnings, and the envelope reading (``benchmark``).
_READER_MODULES: tuple[str, ...] = ("benchmark.py",)
#: The package folder of the accelerated engine (``versions.table("fast")``): every
#: ``.py`` file under it decides the cells that engine scores.
_ENGINE_FOLDER = "_fast"
#: Libraries the metric calls whose versions can move a score (Unicode tables in
#: ``regex``, similarity in ``rapidfuzz``, the assignment solvers in ``scipy``).
_LIBRARIES: tuple[str, ...] = ("numpy", "scipy", "regex", "rapidfuzz", "referencing")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/leafscore``, else ``~/.cache/leafscore``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "leafscore"


def default_key_file() -> Path:
    """``$XDG_CONFIG_HOME/leafscore/cache.key``, else ``~/.config/leafscore/cache.key``:
    where the signing key is kept when :data:`KEY_VARIABLE` is not set. A relative
    ``$XDG_CONFIG_HOME`` is ignored (as the XDG base directory rules say), so the key never
    lands in the working folder. Raises ``RuntimeError`` when neither an absolute
    ``$XDG_CONFIG_HOME`` nor a home folder is known."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        home = os.path.expanduser("~")  # "~" itself when neither $HOME nor pwd knows it
        if not os.path.isabs(home):
            raise RuntimeError("no home folder is known")
        base = os.path.join(home, ".config")
    return Path(base) / "leafscore" / KEY_FILE_NAME


@dataclass(frozen=True)
class SigningKey:
    """The key that signs a cache folder's entries, or why there is none.

    ``secret``: 32 bytes, or ``None`` when the cache must not be used; ``source``: where
    it comes from (``$LEAFSCORE_CACHE_KEY`` or the key file's path); ``problem``: ``""``
    when ``secret`` is set, else one line saying why it is not.
    """

    secret: bytes | None
    source: str
    problem: str = ""


def signing_key(directory: str | os.PathLike[str]) -> SigningKey:
    """The signing key for the cache folder ``directory``, read from the environment now.

    :data:`KEY_VARIABLE`, when set and not empty: its text (at least
    :data:`MIN_KEY_CHARS` characters) hashed to 32 bytes; nothing is read or written.
    Else the key file :func:`default_key_file`, made on first use (its folder mode 0700,
    the file 0600, written to a private temporary file and linked to its name, so a
    concurrent run either links first or reads the key the other linked). A key file
    must be a regular file (a symlink is not followed) of :data:`SECRET_BYTES` bytes,
    owned by this user and unreadable by others, and must not lie inside ``directory``
    (whoever supplies the folder would hold the key). The file is read once per process.

    Never raises: an unusable key (too short, a key folder that is read-only or cannot
    be made, a key that is not private, no home folder) is a :class:`SigningKey` whose
    ``problem`` says why, and a cache under it neither reads nor writes.
    """
    environ = os.environ  # read on every call (a cache get), so kept to three lookups
    given = environ.get(KEY_VARIABLE) or None
    where = (None, None) if given else (environ.get("XDG_CONFIG_HOME"), environ.get("HOME"))
    return _signing_key_in(os.fspath(directory), given, *where)


@functools.cache
def _signing_key_in(directory: str, given: str | None, config: str | None,
                    home: str | None) -> SigningKey:
    """:func:`signing_key` once per (cache folder, environment) and process: ``config``
    and ``home`` are ``$XDG_CONFIG_HOME`` and ``$HOME``, which decide the key file."""
    if given is not None:
        return _signing_key(directory, given, "")
    try:
        key_file = str(default_key_file())
    except RuntimeError:
        return SigningKey(None, "", "no home folder to keep the cache key in "
                                    f"(set XDG_CONFIG_HOME or {KEY_VARIABLE})")
    return _signing_key(directory, None, key_file)


@functools.cache
def scorer_digest() -> str:
    """sha256 hex of the bytes of the imported ``scorer.py``."""
    import scorer

    return hashlib.sha256(Path(scorer.__file__).read_bytes()).hexdigest()


def engine_files() -> list[Path]:
    """Every ``.py`` file of the accelerated engine (``leafscore/_fast/``, sub-folders
    included), in path order: the code ``--engine fast`` scores with."""
    folder = Path(__file__).resolve().parent / _ENGINE_FOLDER
    return sorted(folder.rglob("*.py"), key=lambda path: path.as_posix())


@functools.cache
def code_digest() -> str:
    """sha256 hex of the code a cell's score comes from: the bytes of ``scorer.py``, of
    the package's reader modules (:data:`_READER_MODULES`) and of every file of the
    accelerated engine (:func:`engine_files`, each with its path), the Python version and
    its Unicode database, and the versions of the libraries the metric calls (an absent
    library counts as ``-``)."""
    parts = [scorer_digest()]
    here = Path(__file__).resolve().parent
    parts += [hashlib.sha256((here / name).read_bytes()).hexdigest()
              for name in _READER_MODULES]
    parts += [f"{path.relative_to(here).as_posix()}:"
              f"{hashlib.sha256(path.read_bytes()).hexdigest()}" for path in engine_files()]
    parts += [sys.version, unicodedata.unidata_version]
    from importlib import metadata  # 7 ms to import: a run with no cache never asks

    for name in _LIBRARIES:
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=-")
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def options_sha256(options: Any) -> str:
    """sha256 hex of ``options.to_dict()`` as canonical JSON: the full digest, where a
    signature prints its first 8 hex digits (``signature.options_digest``)."""
    text = json.dumps(options.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(
    *,
    schema_sha256: str,
    label_sha256: str,
    result_sha256: str,
    version: str,
    engine: str,
    options_sha256: str,
    code_sha256: str,
    reader: str,
) -> str:
    """sha256 hex of every input that decides one (system, document) cell.

    Parameters
    ----------
    schema_sha256 : str
        The schema's content digest. It decides the leaves and their comparators, and
        the envelope rule: ``{"data": ...}`` is an envelope only when the schema's root
        does not declare ``data`` (``scorer.is_envelope``).
    label_sha256 : str
        The label's content digest: what the result is scored against.
    result_sha256 : str
        The result's bytes (``RawResult.sha256``; a missing or unreadable result is a
        marker naming why, so each reason keys apart).
    version : str
        The scoring version's name (``record.name``): its scorer, envelope rule,
        parse-failure and missing rules all differ.
    engine : str
        The engine that scores it (``versions.ENGINES``): the engines give the same
        scores, and this keeps a bug of one from ever serving the other its cells.
    options_sha256 : str
        Full digest of the benchmark-wide options (``options_sha256``): tolerances and
        comparators move verdicts.
    code_sha256 : str
        ``code_digest()``: a change of the metric's or the reader's code, or of the
        libraries it calls, can move any score.
    reader : str
        One of :data:`READERS`: how ``result_sha256``'s bytes came to be. Both readers
        now hand the same rule the same kind of bytes, so this only keeps any future
        difference between them from serving one mode the other's score (it once did:
        0.00 for a folder run where JSONL scored 100.00).

    Returns
    -------
    str
        64 hex digits. The part separator (U+001F) appears in none of the parts, so two
        different tuples never join to the same text.

    Raises
    ------
    ValueError
        If ``reader`` is not one of :data:`READERS`.
    """
    if reader not in READERS:
        raise ValueError(f"reader={reader!r} is not one of {', '.join(map(repr, READERS))}")
    parts = (
        CACHE_FORMAT, schema_sha256, label_sha256, result_sha256, version, engine,
        options_sha256, code_sha256, reader,
    )
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _entry_path(directory: Path, key: str) -> Path:
    return Path(os.path.join(directory, key[:2], f"{key}.json"))


@dataclass(frozen=True)
class Cache:
    """A cache folder; ``directory=None`` disables it (every ``get`` misses).

    An entry file holds a line of two MACs, one line of JSON (the entry) and, optionally,
    a third line (the detail: a document's verdicts), so a reader that needs no detail
    never parses or verifies it, and each cell costs one file. A cache whose signing key
    (:func:`signing_key`) cannot be made or is not safe to trust works as a disabled
    cache; :attr:`problem` says why.
    """

    directory: Path | None

    @property
    def problem(self) -> str:
        """``""`` when the cache is usable or disabled on purpose (``directory=None``); else
        one line saying why it is not used (its signing key's ``problem``)."""
        return "" if self.directory is None else signing_key(self.directory).problem

    def _secret(self) -> bytes | None:
        return None if self.directory is None else signing_key(self.directory).secret

    def part(self, name: str) -> Cache:
        """A cache in the sub-folder ``name``, for entries of another kind (signed with
        the same key); disabled when this one is (disabled, or its key is not usable)."""
        if self._secret() is None:
            return Cache(None)
        return Cache(self.directory / name)  # type: ignore[operator]

    def get(self, key: str, *, detail: bool = False) -> tuple[Any, Any] | None:
        """``(entry, detail)`` stored under ``key``; ``detail`` is ``None`` unless asked for
        and stored. ``None`` when absent, disabled, unreadable, or when a MAC does not
        match (an edited entry, one signed under another key, or one stored under another
        cache key)."""
        secret = self._secret()
        if secret is None:
            return None
        try:
            with open(_entry_path(self.directory, key), "rb") as handle:  # type: ignore[arg-type]
                data = handle.read()
            head, _, rest = data.partition(b"\n")
            line, _, tail = rest.partition(b"\n")
            entry_mac, _, detail_mac = head.partition(b" ")
            if not hmac.compare_digest(entry_mac, _mac(secret, key, "entry", line)):
                return None
            entry = json.loads(line)
            extra = None
            if detail and tail:
                if not hmac.compare_digest(detail_mac, _mac(secret, key, "detail", tail)):
                    return None
                extra = json.loads(tail)
        except (OSError, ValueError):
            return None
        return entry, extra

    def put(self, key: str, entry: Any, detail: Any = None) -> None:
        """Store JSON-able ``entry`` (and ``detail`` when not ``None``) under ``key``,
        signed; an unwritable cache is ignored (the next run rescores). Raises
        ``ValueError`` for a value JSON cannot hold (NaN, infinities)."""
        secret = self._secret()
        if secret is None or self.directory is None:
            return
        line = _line(entry)
        tail = b"" if detail is None else _line(detail)
        head = _mac(secret, key, "entry", line) + b" " + (
            _mac(secret, key, "detail", tail) if tail else b"-")
        data = head + b"\n" + line + (b"\n" + tail if tail else b"")
        path = _entry_path(self.directory, key)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            _replace_without_fsync(path, data)


def _mac(secret: bytes, key: str, part: str, line: bytes) -> bytes:
    """Hex HMAC-SHA256 of one line of an entry, bound to its cache key and its part, so a
    line moved to another key's file, or from entry to detail, does not verify."""
    message = key.encode() + b"\x1f" + part.encode() + b"\x1f" + line
    return hmac.digest(secret, message, "sha256").hex().encode()


@functools.cache
def _signing_key(directory: str, given: str | None, key_file: str) -> SigningKey:
    """:func:`signing_key` once per (cache folder, given key, key file) and process."""
    if given is not None:
        if len(given) < MIN_KEY_CHARS:
            return SigningKey(None, f"${KEY_VARIABLE}",
                              f"${KEY_VARIABLE} holds fewer than {MIN_KEY_CHARS} characters")
        text = given.encode("utf-8", "surrogateescape")
        secret = hashlib.sha256(b"leafscore cache key\x1f" + text).digest()
        return SigningKey(secret, f"${KEY_VARIABLE}")
    if _inside(key_file, directory):
        return SigningKey(None, key_file, f"the cache key {key_file} lies inside the cache "
                                          f"folder {directory}, so whoever supplies the "
                                          f"folder would hold it")
    try:
        folder = os.path.dirname(key_file)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not os.path.lexists(key_file):
            _make_secret(folder, key_file)
        fd = os.open(key_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            key = handle.read(SECRET_BYTES + 1) if stat.S_ISREG(info.st_mode) else b""
    except OSError as exc:
        return SigningKey(None, key_file, f"cannot make or read the cache key {key_file} "
                                          f"({exc.strerror or exc})")
    private = info.st_mode & 0o077 == 0 and (
        not hasattr(os, "geteuid") or info.st_uid == os.geteuid())
    if not stat.S_ISREG(info.st_mode) or not private or len(key) != SECRET_BYTES:
        return SigningKey(None, key_file, f"the cache key {key_file} is not a private "
                                          f"{SECRET_BYTES}-byte file of this user")
    return SigningKey(key, key_file)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it, symlinks resolved."""
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError):  # a symlink loop: refuse rather than guess
        return True


def _make_secret(directory: str, path: str) -> None:
    """Write a new random key to ``path`` unless another process just did."""
    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-key-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(SECRET_BYTES))
        with contextlib.suppress(FileExistsError):
            os.link(name, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def _line(value: Any) -> bytes:
    """Compact JSON on one line (``json.dumps`` escapes every newline inside strings)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def _replace_without_fsync(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
