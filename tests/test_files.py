"""leafscore.files: atomic writes, contained paths and safe names (issue 5)."""

from __future__ import annotations

import errno
import os
import stat
from unittest import mock

import pytest

from leafscore.files import (
    atomic_write_bytes,
    atomic_write_text,
    check_name,
    check_output_path,
    safe_child,
)
from scorer import InputError

# --- atomic writes --------------------------------------------------------------------------


def test_atomic_write_text_creates_the_file_as_utf8(tmp_path):
    atomic_write_text(tmp_path / "s.json", '{"é": 1}\n')
    assert (tmp_path / "s.json").read_bytes() == '{"é": 1}\n'.encode()


def test_atomic_write_replaces_an_existing_file(tmp_path):
    (tmp_path / "s.json").write_text("old")
    atomic_write_bytes(tmp_path / "s.json", b"new")
    assert (tmp_path / "s.json").read_bytes() == b"new"


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    atomic_write_bytes(tmp_path / "s.json", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_failed_rename_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    (tmp_path / "s.json").write_text("old")
    with (
        mock.patch("leafscore.files.os.replace", side_effect=OSError("disk gone")),
        pytest.raises(OSError, match="disk gone"),
    ):
        atomic_write_bytes(tmp_path / "s.json", b"new")
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]
    assert (tmp_path / "s.json").read_text() == "old"


def test_a_folder_refusing_the_temporary_file_is_an_error_naming_the_target(tmp_path):
    refused = OSError(errno.EROFS, "Read-only file system", str(tmp_path / ".v.csv.k2j9.tmp"))
    with (
        mock.patch("tempfile.mkstemp", side_effect=refused),
        pytest.raises(OSError) as raised,
    ):
        atomic_write_bytes(tmp_path / "v.csv", b"x")
    assert (raised.value.errno, raised.value.filename) == (errno.EROFS, str(tmp_path / "v.csv"))


def test_a_failed_rename_is_an_error_naming_the_target(tmp_path):
    with (
        mock.patch("leafscore.files.os.replace",
                   side_effect=PermissionError(errno.EACCES, "Permission denied", "t.tmp")),
        pytest.raises(PermissionError) as raised,
    ):
        atomic_write_bytes(tmp_path / "v.csv", b"x")
    assert raised.value.filename == str(tmp_path / "v.csv")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_keeps_the_old_permission_bits(tmp_path):
    (tmp_path / "s.json").write_text("old")
    os.chmod(tmp_path / "s.json", 0o640)
    atomic_write_bytes(tmp_path / "s.json", b"new")
    assert stat.S_IMODE(os.stat(tmp_path / "s.json").st_mode) == 0o640


def test_new_file_is_readable_by_others_like_an_ordinary_file(tmp_path):
    atomic_write_bytes(tmp_path / "s.json", b"x")
    assert stat.S_IMODE(os.stat(tmp_path / "s.json").st_mode) & 0o044 == 0o044 & ~_umask()


def test_atomic_write_replaces_a_symlink_instead_of_writing_through_it(tmp_path):
    (tmp_path / "outside.txt").write_text("precious")
    (tmp_path / "s.json").symlink_to(tmp_path / "outside.txt")
    atomic_write_bytes(tmp_path / "s.json", b"new")
    assert (tmp_path / "outside.txt").read_text() == "precious"
    assert not (tmp_path / "s.json").is_symlink()


def test_atomic_write_into_a_missing_folder_raises_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write_bytes(tmp_path / "no" / "s.json", b"x")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- safe_child ---------------------------------------------------------------------------------


def test_safe_child_returns_the_resolved_path_inside_root(tmp_path):
    assert safe_child(tmp_path, "results/a/x.json") == tmp_path.resolve() / "results/a/x.json"


def test_safe_child_refuses_dot_dot_escapes(tmp_path):
    with pytest.raises(InputError, match="outside"):
        safe_child(tmp_path / "root", "results/../../etc/passwd")


def test_safe_child_allows_dot_dot_that_stays_inside(tmp_path):
    assert safe_child(tmp_path, "results/../labels/x.json") == tmp_path.resolve() / "labels/x.json"


def test_safe_child_refuses_absolute_paths(tmp_path):
    with pytest.raises(InputError, match="absolute path"):
        safe_child(tmp_path, "/etc/passwd")


def test_safe_child_refuses_a_symlink_pointing_outside_root(tmp_path):
    root, secret = tmp_path / "root", tmp_path / "secret.json"
    (root / "results" / "sys").mkdir(parents=True)
    secret.write_text("{}")
    (root / "results" / "sys" / "x.json").symlink_to(secret)
    with pytest.raises(InputError) as caught:
        safe_child(root, "results/sys/x.json")
    assert caught.value.file == str(root / "results/sys/x.json")
    assert "outside" in caught.value.reason


def test_safe_child_refuses_a_symlinked_system_folder_pointing_outside(tmp_path):
    root = tmp_path / "root"
    (root / "results").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "results" / "sys").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="outside"):
        safe_child(root, "results/sys/x.json")


def test_safe_child_allows_a_symlink_that_stays_inside_root(tmp_path):
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.json").write_text("{}")
    (tmp_path / "alias.json").symlink_to(tmp_path / "labels" / "a.json")
    assert safe_child(tmp_path, "alias.json") == tmp_path.resolve() / "labels/a.json"


def test_safe_child_refuses_a_symlink_loop(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InputError):
        safe_child(tmp_path, "loop/x.json")


def test_safe_child_refuses_a_nul_character(tmp_path):
    with pytest.raises(InputError, match="NUL"):
        safe_child(tmp_path, "a\x00.json")


def test_safe_child_works_when_the_root_itself_is_a_symlink(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert safe_child(tmp_path / "link", "x.json") == (tmp_path / "real").resolve() / "x.json"


# --- check_name ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gpt", "docupipe_high", "1ZVqiyJZ", "inv-7", "Ö.v2", "a b"])
def test_ordinary_names_are_accepted(name):
    assert check_name("system name", name) == name


@pytest.mark.parametrize(
    "name, reason",
    [
        ("", "is empty"),
        (".", "is a relative path component"),
        ("..", "is a relative path component"),
        ("../x", "holds a path separator"),
        ("a/b", "holds a path separator"),
        ("a\\b", "holds a path separator"),
        ("a\x00b", "holds a control character or surrogate"),
        ("a\nb", "holds a control character or surrogate"),
        (".hidden", "starts with '.'"),
        ("-rf", "starts with '-'"),
        (" a", "starts or ends with whitespace"),
        ("x" * 201, "is longer than 200 bytes"),
        (7, "is a int, expected a string"),
        (None, "is a NoneType, expected a string"),
    ],
)
def test_unsafe_names_are_refused_with_the_rule_broken(name, reason):
    with pytest.raises(InputError) as caught:
        check_name("document id", name)
    assert caught.value.reason == f"document id {name!r} {reason}"


def test_check_name_errors_name_their_source():
    with pytest.raises(InputError) as caught:
        check_name("document id", "../../etc/passwd", source="pred.jsonl:line 4")
    assert str(caught.value) == (
        "pred.jsonl:line 4: document id '../../etc/passwd' holds a path separator"
    )


# --- check_output_path -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "relpath", ["schemas/x.json", "labels/x.json", "results/sys/x.json", "results/sys/sub/y"]
)
def test_writing_inside_input_folders_is_refused(tmp_path, relpath):
    with pytest.raises(InputError, match="is inside the input folder"):
        check_output_path(tmp_path, tmp_path / relpath)


@pytest.mark.parametrize("relpath", ["results/summary.json", "board.md", ".leafscore/cache/a"])
def test_writing_outputs_in_the_root_is_allowed(tmp_path, relpath):
    assert check_output_path(tmp_path, tmp_path / relpath) == (tmp_path / relpath).resolve()


def test_the_readme_named_as_the_one_to_update_may_be_written(tmp_path):
    readme = tmp_path / "README.md"
    assert check_output_path(tmp_path, readme, readme=readme) == readme.resolve()


def test_writing_outside_the_root_is_allowed(tmp_path):
    out = tmp_path / "elsewhere.md"
    assert check_output_path(tmp_path / "root", out) == out.resolve()
