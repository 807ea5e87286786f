"""The documentation runs: every ``sh`` example line and every ``python`` block of
README.md and docs/*.md (and examples/jsonl/README.md) runs on a shipped dataset; the
rules docs/SCORING.md states hold, each checked with ``scorer.score``; the GitHub
Actions example (docs/ci/leafscore.yml) runs its shell steps on a copy of the sample.

Examples run verbatim from the root of a writable copy of the repository (the sample,
``examples/``, ``scorer.py``, README.md), since some write (``report``, ``--update``);
``../shared`` beside that copy is the read-only shared folder. Lines that install are
skipped, and the skipped lines are listed here by name, so nothing is skipped silently.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import REPO, copy_tree, invoke, private_cache  # noqa: F401 (autouse)

import scorer

DOCS = sorted(
    [REPO / "README.md", REPO / "examples" / "jsonl" / "README.md",
     *(REPO / "docs").glob("*.md")],
    key=lambda p: p.relative_to(REPO).as_posix())
WORKFLOW = REPO / "docs" / "ci" / "leafscore.yml"
RUNNABLE = ("leafscore ", "python3 scorer.py", "python scorer.py", ".venv/bin/python scorer.py")

#: Every doc line part not run, with the reason: (file, command).
SKIPPED = [
    ("README.md", "python3 -m venv .venv"),                           # makes the venv
    ("README.md", ". .venv/bin/activate"),                            # activates it
    ("README.md", "python -m pip install -e ."),                      # installs
    ("README.md", "python3 -m venv .venv"),                           # makes the venv
    ("README.md", ". .venv/bin/activate"),                            # activates it
    ("README.md", 'python -m pip install -e ".[test,dask]"'),         # installs
    ("README.md", "python -m pytest"),                                # is this test run
    ("README.md", 'python -m pip install -e ".[plot]"'),              # installs an extra
]


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def fenced(path: Path, lang: str) -> list[tuple[int, str]]:
    """The ```lang blocks of ``path``: (line number of the fence, body)."""
    out, body, start = [], None, 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if body is None and line.strip() == f"```{lang}":
            body, start = [], number
        elif body is not None and line.strip() == "```":
            out.append((start, "\n".join(body) + "\n"))
            body = None
        elif body is not None:
            body.append(line)
    return out


def sh_commands(path: Path) -> list[tuple[str, str]]:
    """Every command of the ```sh blocks of ``path``, ``&&`` chains split, as
    (``file:line``, command), backslash continuations joined, comments dropped."""
    out = []
    for start, body in fenced(path, "sh"):
        pending, first = "", 0
        for offset, line in enumerate(body.splitlines(), 1):
            first = first or start + offset
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            command, pending = (pending + line).split("#", 1)[0].strip(), ""
            out.extend((f"{rel(path)}:{first}", part.strip())
                       for part in command.split("&&") if command)
            first = 0
    return out


def runs(command: str) -> bool:
    return command.startswith(RUNNABLE)


def work_copy(tmp_path: Path) -> Path:
    """A writable copy of the repository root: the sample, examples/, scorer.py and
    README.md, at ``tmp_path/main`` (so ``../shared`` is ``tmp_path/shared``)."""
    work = copy_tree(REPO, tmp_path / "main")
    shutil.copytree(REPO / "examples", work / "examples")
    for name in ("scorer.py", "README.md"):
        shutil.copy(REPO / name, work / name)
    return work


def run_command(command: str, work: Path, where: str) -> None:
    """Run one doc command in ``work``; it must exit 0."""
    words = shlex.split(command)
    if words[0] == "leafscore":
        result = invoke(*words[1:])
        detail = result.stderr
    else:
        done = subprocess.run([sys.executable, *words[1:]], cwd=work, capture_output=True,
                              text=True, check=False, timeout=300)
        result, detail = done, done.stderr
        result.exit_code = done.returncode  # type: ignore[attr-defined]
    assert result.exit_code == 0, f"{where}: `{command}` exited {result.exit_code}: {detail}"


# ------------------------------------------------------------------------------------
# Examples in the docs
# ------------------------------------------------------------------------------------


def test_every_sh_command_in_the_docs_is_run_or_skipped_by_name():
    for path in DOCS:
        for where, command in sh_commands(path):
            assert runs(command) or (where.split(":")[0], command) in SKIPPED, \
                f"{where}: `{command}` is neither run nor listed in SKIPPED"


def test_the_skipped_doc_commands_are_exactly_the_installs_and_the_test_run():
    skipped = [(where.split(":")[0], command) for path in DOCS
               for where, command in sh_commands(path) if not runs(command)]
    assert skipped == SKIPPED


def test_the_docs_hold_sh_examples_and_python_blocks_to_run():
    names = {rel(p) for p in DOCS if any(runs(c) for _, c in sh_commands(p))}
    assert {"README.md", "docs/CLI.md", "examples/jsonl/README.md"} <= names
    assert len(fenced(REPO / "docs" / "API.md", "python")) >= 5


@pytest.mark.parametrize("doc", [p for p in DOCS if any(runs(c) for _, c in sh_commands(p))],
                         ids=rel)
def test_every_sh_example_of_a_doc_runs_in_order_and_exits_0(doc, tmp_path, monkeypatch,
                                                            request):
    work = work_copy(tmp_path)
    commands = [(w, c) for w, c in sh_commands(doc) if runs(c)]
    if any("../shared" in c for _, c in commands):
        (tmp_path / "shared").symlink_to(request.getfixturevalue("shared"))
    monkeypatch.chdir(work)
    for where, command in commands:
        run_command(command, work, where)


@pytest.mark.parametrize(("doc", "start", "code"), [
    (doc, start, code) for doc in DOCS for start, code in fenced(doc, "python")],
    ids=lambda value: rel(value) if isinstance(value, Path) else
    (str(value) if isinstance(value, int) else "code"))
def test_every_python_block_of_a_doc_runs(doc, start, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(work_copy(tmp_path))
    exec(compile(code, f"{rel(doc)}:{start}", "exec"), {"__name__": "__doc_example__"})


def printed_leaderboard(shared, version: str) -> list[tuple[str, str, str]]:
    done = subprocess.run([sys.executable, str(REPO / "scorer.py"), str(shared / "docubench"),
                           "--version", version, "--format", "md"],
                          capture_output=True, text=True, check=True, timeout=300)
    return re.findall(r"^\| (\d)\s+\| (\w+)\s+\| ([\d.]+)\s+\|$", done.stdout, re.MULTILINE)


@pytest.mark.parametrize(("version", "column"), [("1.0", 2), ("2.1", 3)])
def test_the_docubench_leaderboards_in_the_readme_are_what_scorer_prints(shared, version,
                                                                         column):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d) \| (\w+) \| ([\d.]+) \| ([\d.]+) \|$", readme, re.MULTILINE)
    shown = sorted(((row[1], row[column]) for row in rows), key=lambda pair: -float(pair[1]))
    printed = [(system, score) for _, system, score in printed_leaderboard(shared, version)]
    assert len(rows) == 6 and shown == printed


def test_the_sh_examples_name_only_systems_of_the_sample():
    commands = " ".join(c for path in DOCS for _, c in sh_commands(path))
    sample = {p.name for p in (REPO / "results").iterdir() if p.is_dir()}
    named = set(re.findall(r"--(?:system|base|head) (\S+)", commands))
    assert named and named <= sample


def test_gitignore_ignores_the_summary_report_writes_into_the_sample():
    lines = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert {"/results/summary.json", "/results/summary.csv"} <= set(lines)


# ------------------------------------------------------------------------------------
# docs/SCORING.md: which comparison, and dates
# ------------------------------------------------------------------------------------


def kind(engine, field: dict, label, result, **kwargs) -> str:
    """The verdict kind of one field ``f`` with schema ``field``."""
    schema = {"type": "object", "properties": {"f": field}}
    doc = engine.score({"f": result}, schema, {"f": label}, **kwargs)
    return next(v.kind for v in doc.verdicts if v.field == "f")


DATE = {"type": "string", "format": "date"}


def test_scoring_md_lists_the_default_date_formats_of_the_scorer_in_order():
    text = (REPO / "docs" / "SCORING.md").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.strip().startswith("`%Y-%m-%d`, `%m/%d/"))
    assert tuple(re.findall(r"`(%[^`]+)`", line)) == scorer.DEFAULT_DATE_FORMATS


@pytest.mark.parametrize("written", ["2024-03-07", "03/07/2024", "07.03.2024",
                                     "March 7, 2024", "Mar 7, 2024", "7 March 2024",
                                     "2024/03/07"])
def test_each_default_date_format_reads_its_date(engine, written):
    assert kind(engine, DATE, "2024-03-07", written) == "correct"


def test_the_first_default_format_that_reads_a_date_wins_so_07_03_2024_is_3_july(engine):
    assert kind(engine, DATE, "2024-07-03", "07/03/2024") == "correct"
    assert kind(engine, DATE, "2024-03-07", "07/03/2024") == "wrong_value"


def test_the_benchmarks_date_formats_replace_the_defaults_and_iso_still_comes_first(engine):
    european = {"date_formats": ["%d/%m/%Y"]}
    assert kind(engine, DATE, "2024-03-07", "07/03/2024", options=european) == "correct"
    assert kind(engine, DATE, "2024-03-07", "March 7, 2024", options=european) == "wrong_value"
    assert kind(engine, DATE, "2024-03-07", "2024-03-07T00:00:00", options=european) == "correct"


def test_the_fields_date_formats_win_over_the_benchmarks(engine):
    field = {**DATE, "x-leafscore": {"date_formats": ["%m/%d/%Y"]}}
    assert kind(engine, field, "2024-03-07", "03/07/2024",
                options={"date_formats": ["%d/%m/%Y"]}) == "correct"


def test_dates_are_read_case_insensitively_with_unpadded_numbers(engine):
    for written in ("MARCH 7, 2024", "mar 7, 2024", "3/7/2024", "7.3.2024"):
        assert kind(engine, DATE, "2024-03-07", written) == "correct", written


def test_a_midnight_timestamp_equals_its_date_and_another_time_does_not(engine):
    assert kind(engine, DATE, "2024-03-31", "2024-03-31T00:00:00Z") == "correct"
    assert kind(engine, DATE, "2024-03-31", "2024-03-31 00:00") == "correct"
    assert kind(engine, DATE, "2024-03-31", "2024-03-31T10:00:00") == "wrong_value"


def test_an_iso_offset_is_ignored_and_the_time_taken_as_written(engine):
    stamp = {"type": "string", "format": "date-time"}
    assert kind(engine, stamp, "2024-03-31T10:00:00", "2024-03-31T10:00:00+02:00") == "correct"


def test_an_unreadable_date_is_compared_as_text_and_never_equals_a_readable_one(engine):
    assert kind(engine, DATE, "soon", "SOON!") == "correct"
    assert kind(engine, DATE, "2024-03-07", "7th of March") == "wrong_value"


def test_version_1_0_compares_a_date_field_as_text(engine):
    schema = {"type": "object", "properties": {"f": DATE}}
    assert engine.score({"f": "03/07/2024"}, schema, {"f": "2024-03-07"},
                        version="1.0").value == 0.0


def test_compare_overrides_the_type_and_is_inherited_by_leaves_below(engine):
    assert kind(engine, {"type": "number", "x-leafscore": {"compare": "exact"}}, 1240, "1240") \
        == "wrong_value"
    assert kind(engine, {"type": "string", "x-leafscore": {"compare": "date"}},
                "2024-03-07", "03/07/2024") == "correct"
    parent = {"type": "object", "x-leafscore": {"compare": "exact"},
              "properties": {"f": {"type": "string"}}}
    doc = engine.score({"x": {"f": "ACME"}}, {"type": "object", "properties": {"x": parent}},
                       {"x": {"f": "Acme"}})
    assert doc.value == 0.0


def test_format_date_or_date_time_makes_a_single_string_type_a_date(engine):
    for field in (DATE, {"type": "string", "format": "date-time"},
                  {"type": ["string", "null"], "format": "date"}):
        assert kind(engine, field, "2024-03-07", "03/07/2024") == "correct", field
    assert kind(engine, {"type": "string"}, "2024-03-07", "03/07/2024") == "wrong_value"


def test_format_is_ignored_without_a_single_string_type(engine):
    for field in ({"format": "date"}, {"type": ["string", "number"], "format": "date"}):
        assert kind(engine, field, "2024-03-07", "03/07/2024") == "wrong_value", field


def test_number_and_integer_types_compare_as_numbers(engine):
    assert kind(engine, {"type": "number"}, 1240, "$1,240.00") == "correct"
    assert kind(engine, {"type": "integer"}, 1240, "1,240") == "correct"


def test_a_boolean_type_reads_true_false_in_any_case_and_never_1(engine):
    assert kind(engine, {"type": "boolean"}, True, "TRUE") == "correct"
    assert kind(engine, {"type": "boolean"}, True, 1) == "type_error"


def test_an_untyped_enum_is_text_when_all_strings_else_exact_and_a_type_wins_over_it(engine):
    assert kind(engine, {"enum": ["Paid", "Due"]}, "Paid", "PAID") == "correct"
    assert kind(engine, {"const": "Paid"}, "Paid", "paid") == "correct"
    assert kind(engine, {"enum": ["Paid", 1]}, 1, "1") == "wrong_value"
    assert kind(engine, {"enum": ["Paid", 1]}, 1, 1.0) == "correct"
    assert kind(engine, {"type": "string", "enum": ["Paid", 1]}, "Paid", "PAID") == "correct"


def test_without_a_single_type_the_labels_json_kind_decides(engine):
    for field in ({}, {"type": ["string", "number"]},
                  {"anyOf": [{"type": "string"}, {"type": "number"}]}):
        assert kind(engine, field, 1240, "1,240.00") == "correct", field
        assert kind(engine, field, "Acme Inc", "ACME, INC.") == "correct", field
        assert kind(engine, field, True, "true") == "correct", field
        assert kind(engine, field, "2024-03-07", "03/07/2024") == "wrong_value", field


def test_an_anyof_with_a_date_branch_reads_strings_as_dates(engine):
    field = {"anyOf": [{"type": "string", "format": "date"}, {"type": "number"}]}
    assert kind(engine, field, "2024-03-07", "03/07/2024") == "correct"


def test_an_unknown_type_is_a_scoring_error_naming_its_pointer(engine):
    with pytest.raises(scorer.ScoringError, match="#/properties/f/type"):
        kind(engine, {"type": "weird"}, "x", "x")


def test_a_label_unreadable_as_its_type_is_compared_as_text(engine):
    assert kind(engine, {"type": "number"}, "n/a", "N/A") == "correct"


# ------------------------------------------------------------------------------------
# docs/ci/leafscore.yml
# ------------------------------------------------------------------------------------


def run_steps(path: Path) -> list[str]:
    """The ``run:`` scripts of a workflow, in order (one line, or a ``|`` block)."""
    steps: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^(\s*)(?:- )?run:\s*(.*)$", line)
        if not match:
            continue
        indent, value = len(match.group(1)), match.group(2)
        if value not in ("|", ">"):
            steps.append(value)
            continue
        block = []
        for following in lines[index + 1:]:
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            block.append(following.strip())
        steps.append("\n".join(block).strip() + "\n")
    return steps


def test_the_workflow_runs_on_pull_requests_with_python_3_11_after_checkout():
    text = WORKFLOW.read_text(encoding="utf-8")
    assert re.search(r"^on:\n  pull_request:", text, re.MULTILINE)
    assert "uses: actions/checkout@" in text and "uses: actions/setup-python@" in text
    assert 'python-version: "3.11"' in text


def test_the_workflow_installs_leafscore_from_its_repository_not_an_index():
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "repository: ${{ vars.LEAFSCORE_REPOSITORY }}" in text
    assert "path: .leafscore" in text
    assert "pip install leafscore" not in text


def test_the_workflow_validates_scores_gates_and_posts_the_leaderboard():
    steps = run_steps(WORKFLOW)
    assert steps[0] == "python -m pip install ./.leafscore"
    commands = [s.split()[:2] for s in steps[1:]]
    assert ["leafscore", "validate"] in commands
    assert "leafscore score --format md" in steps
    assert any(s.startswith("leafscore gate --system atlas --min-score ") for s in steps)
    assert any('leafscore leaderboard >> "$GITHUB_STEP_SUMMARY"' in s for s in steps)


def test_the_workflows_shell_steps_run_on_the_sample_and_leave_the_leaderboard_summary(
        tmp_path):
    work = work_copy(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "leafscore"  # this checkout's leafscore, whatever is installed
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -P -m leafscore "$@"\n')
    shim.chmod(0o755)
    summary = tmp_path / "step-summary.md"
    summary.touch()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(REPO), "GITHUB_STEP_SUMMARY": str(summary),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    steps = run_steps(WORKFLOW)
    assert [s for s in steps if "pip install" in s] == ["python -m pip install ./.leafscore"]
    for step in steps:
        if "pip install" in step:
            continue
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step],
                              cwd=work, env=env, capture_output=True, text=True, check=False,
                              timeout=300)
        assert done.returncode == 0, f"`{step}` exited {done.returncode}: {done.stderr}"
    posted = summary.read_text(encoding="utf-8")
    assert "| system " in posted and "| atlas " in posted and "| drift " in posted
    assert re.search(r"^leafscore:2\.0\|", posted, re.MULTILINE)


def readme_install_lines() -> list[str]:
    """The README's two commands: the quick start and the test command, as written."""
    return [command for _, body in fenced(REPO / "README.md", "sh")
            for command in body.splitlines() if "python3 -m venv" in command]


def test_the_readme_has_two_commands_each_making_and_activating_a_venv():
    quick_start, test_command = readme_install_lines()
    for command in (quick_start, test_command):
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert quick_start.endswith("&& python scorer.py")
    assert test_command.endswith("&& python -m pytest")


def test_ci_runs_both_readme_commands_then_every_other_then_the_test_command_again():
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line and not line.startswith("#")]
    quick_start, test_command = readme_install_lines()
    tests = [k for k, line in enumerate(ci) if line == test_command]
    steps = [ci.index(quick_start), tests[0], ci.index("python .ci/readme_commands.py"),
             tests[1]]
    assert len(tests) == 2 and steps == sorted(steps)


def test_ci_runs_every_readme_command_but_the_two_it_runs_as_written():
    import importlib.util
    spec = importlib.util.spec_from_file_location("readme_commands",
                                                  REPO / ".ci" / "readme_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    listed = [part.strip() for command in module.commands(REPO / "README.md")
              for part in command.split("&&")]
    every = [command for _, command in sh_commands(REPO / "README.md")]
    assert "leafscore report" in listed and "leafscore explore --out explorer.html" in listed
    assert not any("venv" in c or "pytest" in c for c in listed)
    assert 'python -m pip install -e ".[plot]"' in listed  # an extra: installed as written
    assert {c for c in every if runs(c)} - {"python scorer.py"} <= set(listed)
