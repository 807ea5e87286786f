"""Files leafscore writes and paths it follows: atomic writes, contained paths, safe names.

* :func:`atomic_write_bytes` / :func:`atomic_write_text` / :func:`atomic_writer` write a
  temporary file in the target's folder, ``fsync`` it, then ``os.replace`` it over the
  target: a reader (or a run killed mid-write) sees the old file or the new one, never half of one.
* :func:`safe_child` joins a relative path under a root and refuses anything that
  resolves outside it (``..``, absolute paths, symlinks pointing out).
* :func:`check_name` refuses system names and document ids that could act as paths.
* :func:`check_output_path` refuses writing inside a benchmark's inputs
  (``schemas/``, ``labels/``, ``results/<system>/``) or over one of them (the config,
  the metadata files, the README but through ``--update``); :func:`check_not_input`
  refuses an output that is one of the JSONL files read.
* :func:`check_input_file` refuses an input that is not a regular file (a FIFO) unopened.
* :func:`output_target` refuses an output path that is not a regular file (a FIFO, a
  device such as ``/dev/null``, a folder) or a symlink leading anywhere but to a regular
  file inside the benchmark root.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import scorer
from scorer import InputError

__all__ = [
    "INPUT_DIRS",
    "MAX_NAME_BYTES",
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_writer",
    "check_input_file",
    "check_name",
    "check_not_input",
    "check_output_path",
    "output_target",
    "safe_child",
]

#: Longest system name or document id, in UTF-8 bytes (a file name holds 255 bytes,
#: and ``.json`` is appended): ``scorer.MAX_NAME_BYTES``.
MAX_NAME_BYTES: int = scorer.MAX_NAME_BYTES
#: Folders of a benchmark root that hold inputs; leafscore never writes inside them
#: (``results/`` itself is allowed: ``results/summary.json`` lives there).
INPUT_DIRS: tuple[str, ...] = ("schemas", "labels")
#: Permission bits of a new output file, before the umask (rw-r--r--).
NEW_FILE_MODE: int = 0o644

# The umask, read once at import (reading it means setting it; done before any thread of
# ours runs) to give new files the permissions an ordinary open() would.
_UMASK = os.umask(0)
os.umask(_UMASK)


# -------------------------------------------------------------------------------------
# Atomic writes
# -------------------------------------------------------------------------------------


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` by ``data`` atomically (:func:`atomic_writer`).

    Raises
    ------
    FileExistsError
        If ``path`` exists and is neither a regular file nor a symlink.
    OSError
        If the folder is missing or not writable, or the disk is full.
    """
    with atomic_writer(path) as stream:
        stream.write(data)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary stream whose content replaces the file at ``path`` when the ``with``
    block ends normally, atomically; nothing is left behind when it raises (Ctrl-C
    included), so output can be streamed as it is produced and still never be seen half
    written.

    A temporary file ``.<name>.<random>.tmp`` is written in the same folder, flushed
    and ``fsync``-ed, given the old regular file's permission bits (or ``0o644`` less the
    umask for a new file, or in place of a symlink), then renamed over ``path`` with
    ``os.replace``; the folder is then
    ``fsync``-ed where the platform allows. If anything fails, the temporary file is
    removed and the previous file, if any, is untouched.

    Parameters
    ----------
    path : str or path-like
        The target file; its folder must exist. A symlink at ``path`` is replaced by a
        regular file, never written through.

    Raises
    ------
    FileExistsError
        If ``path`` exists and is neither a regular file nor a symlink (a FIFO, a device
        node, a folder, a socket): never replaced.
    OSError
        If the folder is missing or not writable, or the disk is full.
    """
    target = Path(path)
    folder = target.parent
    mode = NEW_FILE_MODE & ~_UMASK
    try:
        found = os.stat(target, follow_symlinks=False).st_mode
    except FileNotFoundError:
        found = None
    if found is not None and stat.S_ISREG(found):
        mode = stat.S_IMODE(found) & 0o777  # keep the old bits, never setuid/sticky
    elif found is not None and not stat.S_ISLNK(found):
        raise FileExistsError(errno.EEXIST, "exists and is not a regular file", str(target))
    try:
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:  # a read-only or full folder: the error names the target
        raise naming(exc, target) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
            try:
                stream.flush()
                os.fsync(stream.fileno())
            except OSError as exc:
                raise naming(exc, target) from None
        try:
            os.chmod(temp, mode)
            os.replace(temp, target)
        except OSError as exc:
            raise naming(exc, target) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(folder)


def naming(exc: OSError, target: Path) -> OSError:
    """``exc`` (its class, errno and message) naming ``target``, the file the user asked
    for, rather than the temporary file written for it (``.v.csv.k2j9.tmp``); ``exc``
    itself when it has no errno (nothing to rebuild it from)."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(target))


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Replace the file at ``path`` by ``text`` encoded as UTF-8, atomically.

    Newlines are written as given (no platform translation). See
    :func:`atomic_write_bytes` for the procedure.

    Raises
    ------
    UnicodeEncodeError
        If ``text`` holds an unpaired surrogate (the JSON reader, ``scorer.parse_json``,
        never returns one).
    OSError
        As :func:`atomic_write_bytes`.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable; a no-op where folders cannot be opened (Windows)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


# -------------------------------------------------------------------------------------
# Paths
# -------------------------------------------------------------------------------------


def safe_child(root: str | os.PathLike[str], relpath: str | os.PathLike[str]) -> Path:
    """The resolved path of ``relpath`` under ``root``, refused if it leaves ``root``.

    Parameters
    ----------
    root : str or path-like
        The benchmark root (resolved, symlinks followed: the root itself may be a link).
    relpath : str or path-like
        A relative path such as ``"results/sys-a/inv-7.json"``. It need not exist.

    Returns
    -------
    Path
        ``root/relpath`` with every symlink resolved; it lies inside the resolved root.
        Open this path, not the unresolved one, so what was checked is what is read.

    Raises
    ------
    InputError
        If ``relpath`` is absolute, holds a NUL, or resolves outside ``root`` (through
        ``..`` or a symlink pointing out of it); ``file`` is ``root/relpath`` as given.
    """
    shown = os.path.join(os.fspath(root), os.fspath(relpath))
    if "\x00" in os.fspath(relpath):
        raise InputError(shown, "", "path holds a NUL character")
    if os.path.isabs(relpath):
        raise InputError(shown, "", "absolute path where a path inside the root was expected")
    base = Path(root).resolve()
    try:
        resolved = (base / relpath).resolve()
    except (OSError, RuntimeError) as error:  # symlink loop
        raise InputError(shown, "", f"cannot resolve: {error}") from None
    if not resolved.is_relative_to(base):
        raise InputError(
            shown, "", f"resolves to {resolved}, outside {base} (symlink or '..'); refused"
        )
    return resolved


def check_name(kind: str, name: object, *, source: str = "") -> str:
    """Return ``name`` if it is safe as one path component, else raise.

    A safe name is a non-empty ``str`` of at most :data:`MAX_NAME_BYTES` UTF-8 bytes,
    without ``/``, ``\\``, NUL or other control characters, not ``.`` or ``..``, not
    starting with ``.`` (hidden files, temporary files) or ``-`` (read as an option),
    and without leading or trailing whitespace: ``scorer.name_problem``, the rule
    ``python scorer.py ROOT`` applies to the same names.

    Parameters
    ----------
    kind : str
        What the name is, for the message: ``"system name"``, ``"document id"``.
    name : object
        The candidate; anything other than ``str`` is refused (convert ids first).
    source : str, default=""
        Where the name came from (``"pred.jsonl:line 4"``), the error's ``file``.

    Raises
    ------
    InputError
        Naming ``kind``, the value (``repr``) and the rule broken.
    """
    reason = _name_problem(name)
    if reason:
        raise InputError(source, "", f"{kind} {name!r} {reason}")
    assert isinstance(name, str)
    return name


def _name_problem(name: object) -> str:
    if not isinstance(name, str):
        return f"is a {type(name).__name__}, expected a string"
    return scorer.name_problem(name)  # the one rule, `python scorer.py ROOT`'s too


def check_output_path(root: str | os.PathLike[str], path: str | os.PathLike[str], *,
                      inputs: Iterable[str] = (), readme: str | os.PathLike[str] | None = None
                      ) -> Path:
    """Return ``path`` resolved if leafscore may write it, else raise.

    Refused: anything inside ``root/schemas/``, ``root/labels/`` or a system folder
    ``root/results/<system>/``; any of ``inputs`` (paths relative to ``root``: the
    config, the metadata files), compared by name without regard to case and, when both
    exist, as the same file (a hard link, another spelling); and a README at the top of
    ``root`` (``README``, ``README.md``, ``readme.rst``...) other than ``readme``, the one
    ``--update`` rewrites. ``root/results/summary.json`` and paths outside the root
    (``--out FILE``) are allowed.

    Raises
    ------
    InputError
        Naming ``path`` and the input it is, or the input folder it is inside.
    """
    base = Path(root).resolve()
    target = Path(path).resolve()
    if not target.is_relative_to(base):
        return target
    parts = target.relative_to(base).parts
    inside = (len(parts) > 1 and parts[0] in INPUT_DIRS) or (
        len(parts) > 2 and parts[0] == "results"
    )
    if inside:
        folder = "/".join(parts[:2] if parts[0] == "results" else parts[:1])
        raise InputError(os.fspath(path), "", f"is inside the input folder {folder}/; refused")
    for rel in inputs:
        if _same_input(target, base, rel):
            raise InputError(os.fspath(path), "", f"is the benchmark's input {rel}; refused "
                             "(outputs never replace an input)")
    allowed = None if readme is None else Path(readme).resolve()
    if len(parts) == 1 and parts[0].casefold().startswith("readme") and target != allowed:
        raise InputError(os.fspath(path), "", "is the benchmark's README; refused (rewrite "
                         "its leaderboard block with `leafscore leaderboard --update`)")
    return target


def check_not_input(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]
                    ) -> None:
    """Raise if the output ``path`` is one of the input files ``inputs`` (JSONL mode:
    the gold, prediction, schema and config files): the same resolved path, or the same
    file (``os.path.samefile``: a hard link, another spelling).

    Raises
    ------
    InputError
        Naming ``path`` and the input it would replace.
    """
    target = Path(path).resolve()
    for given in inputs:
        source = Path(given)
        if target == source.resolve() or _samefile(target, source):
            raise InputError(os.fspath(path), "", f"is the input {os.fspath(given)}; refused "
                             "(outputs never replace an input)")


def _same_input(target: Path, base: Path, rel: str) -> bool:
    """Whether ``target`` is the input ``base/rel``: by name, case aside, or as a file."""
    candidate = base / rel
    try:
        named = target.relative_to(base).as_posix().casefold() == \
            candidate.resolve().relative_to(base).as_posix().casefold()
    except (ValueError, OSError, RuntimeError):
        named = False
    return named or _samefile(target, candidate)


def _samefile(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_input_file(path: str | os.PathLike[str]) -> None:
    """Raise unless ``path`` is a regular file (a symlink to one counts), looked at with
    ``stat`` only: a FIFO is never opened, so it cannot make the caller wait.

    Raises
    ------
    InputError
        Naming ``path`` as given: ``no such file``, or what it is (``is a FIFO, not a
        regular file``, a folder, a device node, a socket).
    """
    shown = os.fspath(path)
    try:
        found = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(shown, "", "no such file") from None
    except (OSError, ValueError) as exc:  # a NUL in the path, a loop, no permission
        raise InputError(shown, "", f"cannot read: {getattr(exc, 'strerror', None) or exc}"
                         ) from None
    if not stat.S_ISREG(found):
        raise InputError(shown, "", f"is {_kind(found)}, not a regular file")


def output_target(root: str | os.PathLike[str] | None, path: str | os.PathLike[str]) -> Path:
    """The file an output given as ``path`` (``--out``) may replace, else raise.

    Allowed: a path that does not exist yet, a regular file, or a symlink that resolves
    to a regular file inside ``root`` (the link is kept; its target is replaced).

    Parameters
    ----------
    root : str, path-like or None
        The benchmark root; ``None`` (no folder, JSONL mode) allows no symlink.
    path : str or path-like
        The output path as given on the command line.

    Returns
    -------
    Path
        ``path`` itself, or for an allowed symlink the regular file it resolves to.

    Raises
    ------
    InputError
        Naming ``path`` and what it is: a FIFO, a device node (``/dev/null``), a
        folder, a socket, a dangling symlink or one leading elsewhere.
    """
    shown = os.fspath(path)
    try:
        found = os.stat(path, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return Path(path)
    if stat.S_ISREG(found):
        return Path(path)
    if not stat.S_ISLNK(found):
        raise InputError(shown, "", f"exists and is {_kind(found)}; refused "
                         "(outputs replace regular files only)")
    try:
        resolved = Path(path).resolve(strict=True)
        real = os.stat(resolved).st_mode
    except (OSError, RuntimeError):
        raise InputError(shown, "", "is a dangling symlink; refused") from None
    inside = root is not None and resolved.is_relative_to(Path(root).resolve())
    if not (stat.S_ISREG(real) and inside):
        what = "a regular file" if stat.S_ISREG(real) else _kind(real)
        raise InputError(shown, "", f"is a symlink to {what} {resolved}, not to a regular "
                         "file inside the benchmark folder; refused")
    return resolved
