"""Every entry point gives the same document score and verdict counts (issue 8, item 5).

For every result file of four benchmarks -- a temporary one of hostile files, a seeded
generated one, DocuBench (``../shared/docubench``) and the sample in this repository --
under both scoring versions, these agree bit for bit:

* the Python API, ``scorer.score_file`` (the reference every other number is held to);
* ``python scorer.py RESULT SCHEMA LABEL``: ``scorer.main`` in process for every file, and
  a real subprocess for a sample of files;
* ``python scorer.py ROOT --format json``: one subprocess per benchmark and version;
* ``leafscore score ROOT --format json``: click's runner, once per benchmark and version;
* JSONL mode, ``leafscore score --gold --pred --schema``: once per benchmark, schema and
  version; each readable result file whose top level is an object becomes the line
  ``{"id": ..., <its members>}`` (its text spliced, so numbers keep their written form).

Verdict counts are compared where an entry point prints them (the API and one-document
mode); the ``status`` of ``leafscore score`` (scored, parse failure, missing) is compared
with the outcome of ``scorer.read_outcome``. Unreadable files cannot be JSONL lines; every
other entry point scores them too.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import json
import random
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import shared_dir
from strategies import SCALARS, mutate, strip_pools, values, with_refs
from test_hostile_files import ACCEPTED, LABELS, PARSE_FAILURES, SCHEMA, envelope

import scorer
from leafscore.cli import main as leafscore_main

REPO = Path(__file__).resolve().parent.parent
VERSIONS = ("1.0", "2.0")
Files = dict[str, bytes | str | None]  # relative path -> bytes, "DIR", "BIG" or None (absent)

# --- the hostile benchmark -------------------------------------------------------------------

BETA = LABELS["d2"]  # {"total":7,"name":"Beta"}
N_SCHEMA = b'{"type":"object","properties":{"n":{"type":"number"}}}'
# A schema whose root declares `data`: a `data` member is then the result's own field.
DATA_SCHEMA = b'{"type":"object","properties":{"data":{"type":"string"},"total":{"type":"number"}}}'
FENCED = json.dumps({"status": "ok",
                     "data": '```json\r\n{"total": 7, "name": "Beta"}\r\n```'}).encode()
# The brief's inputs, beyond test_hostile_files' catalog: name -> (result, schema, label).
EXTRA: dict[str, tuple[bytes | None, bytes, bytes]] = {
    "bare result": (b'{"total": 5}', SCHEMA, BETA),
    "bare result, perfect": (b'{"name": "Beta", "total": 7}', SCHEMA, BETA),
    "bare empty object": (b"{}", SCHEMA, BETA),
    "NaN in a member the schema does not score": (
        b'{"status":"ok","data":{"total":7,"name":"Beta","note":NaN}}', SCHEMA, BETA),
    "NaN beside data": (b'{"status":"ok","debug":NaN,"data":{"total":7,"name":"Beta"}}',
                        SCHEMA, BETA),
    "1e999 outside data": (b'{"status":"ok","cost":1e999,"data":{"total":7,"name":"Beta"}}',
                           SCHEMA, BETA),
    "lone surrogate": (b'{"status":"ok","data":{"total":7,"name":"Be\\ud800ta"}}', SCHEMA, BETA),
    "lone surrogate, bare": (b'{"total":7,"name":"Be\\udfffta"}', SCHEMA, BETA),
    "number in its written form": (b'{"n": 1.00000050000000000001}', N_SCHEMA,
                                   b'{"n": 1.000001}'),
    "number in its written form, enveloped": (
        b'{"status":"ok","data":{"n":1.00000050000000000001}}', N_SCHEMA, b'{"n": 1.000001}'),
    "fence with CRLF in data": (FENCED, SCHEMA, BETA),
    "CRLF line ends": (b'{\r\n  "status": "ok",\r\n  "data": {\r\n    "total": 7,\r\n'
                       b'    "name": "Beta"\r\n  }\r\n}\r\n', SCHEMA, BETA),
    "envelope without status": (b'{"data":{"total":7,"name":"Beta"},"cost":null}', SCHEMA, BETA),
    "data declared by the schema": (b'{"data":"x","total":7}', DATA_SCHEMA,
                                    b'{"data":"x","total":7}'),
    "data null": (b'{"status":"ok","data":null}', SCHEMA, BETA),
    "data a number": (b'{"status":"ok","data":7}', SCHEMA, BETA),
    "not JSON": (b"this is not JSON", SCHEMA, BETA),
    "raw line separator in a string": (
        '{"status":"ok","data":{"total":7,"name":"Be\u2028ta"}}'.encode(), SCHEMA, BETA),
    "absent": (None, SCHEMA, BETA),
}


def slug(name: str) -> str:
    return "h-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def hostile_files() -> Files:
    """sysA holds each hostile file as its own document; sysB a perfect envelope of each;
    results/.ipynb_checkpoints/ copies sysA (a hidden folder is nobody's system)."""
    catalog = {name: (content, SCHEMA, BETA)
               for name, (content, _) in {**PARSE_FAILURES, **ACCEPTED}.items()}
    files: Files = {}
    for name, (result, schema, label) in {**catalog, **EXTRA}.items():
        doc = slug(name)
        files[f"schemas/{doc}.json"] = schema
        files[f"labels/{doc}.json"] = label
        files[f"results/sysA/{doc}.json"] = result
        files[f"results/sysB/{doc}.json"] = envelope(label)
        files[f"results/.ipynb_checkpoints/{doc}.json"] = b'{"status":"ok","data":{}}'
    return files


# --- the generated benchmark -----------------------------------------------------------------

def _leaf(kind: str) -> dict[str, Any]:
    schema, pool = SCALARS[kind]
    return {**copy.deepcopy(schema), "x-pool": pool}


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _arr(items: dict[str, Any], ordered: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    return {**out, "x-leafscore": {"ordered": True}} if ordered else out


# Three schemas with nested arrays, numbers, dates; values from tests/strategies.py's pools.
TEMPLATES = (
    _obj(number=_leaf("text"), issued=_leaf("date"), total=_leaf("number"),
         tax=_leaf("tolerant"), paid=_leaf("boolean"),
         lines=_arr(_obj(desc=_leaf("text"), qty=_leaf("integer"), price=_leaf("number"),
                         dates=_arr(_leaf("date"))))),
    _obj(account=_leaf("text"), period=_obj(start=_leaf("date"), end=_leaf("date")),
         txns=_arr(_obj(date=_leaf("date"), amount=_leaf("nullable_number"),
                        memo=_leaf("fuzzy")), ordered=True)),
    _obj(kind=_leaf("enum"), code=_leaf("exact_enum"), choice=_leaf("any_of"),
         mixed=_leaf("mix"), matrix=_arr(_arr(_leaf("number"))),
         boxes=_arr(_obj(items=_arr(_obj(sku=_leaf("text"), n=_leaf("integer")))))),
)
GENERATED_SYSTEMS = ("ant", "bee", "cat")


def _result_bytes(rng: random.Random, data: Any) -> bytes | None:
    """A result file as systems write them: mostly envelopes, some bare, failed, as text,
    fenced, missing; indented or not, CRLF, a BOM, numbers in a long written form."""
    roll = rng.random()
    if roll < 0.04:
        return None
    if roll < 0.08:
        value: Any = {"status": "failed", "cost": None, "data": None}
    elif roll < 0.2:
        value = data
    elif roll < 0.26:
        value = {"status": "ok", "data": json.dumps(data)}
    elif roll < 0.3:
        value = {"status": "ok", "data": "```json\n" + json.dumps(data, indent=1) + "\n```"}
    elif roll < 0.4:
        value = {"data": data, "cost": 0.01, "time_sec": 2.5}
    else:
        value = {"status": "ok", "cost": None, "time_sec": 1.25, "data": data}
    text = json.dumps(value, indent=rng.choice([None, 1, 2]), ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.3:
        text = text.replace("98.2", "98.20000000000000000001")
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
    raw = text.encode("utf-8")
    return b"\xef\xbb\xbf" + raw if rng.random() < 0.05 else raw


@functools.cache
def generated_files(docs: int = 30, seed: int = 20240817) -> Files:
    rng = random.Random(seed)
    schemas = [json.dumps(with_refs(strip_pools(t), random.Random(n))).encode()
               for n, t in enumerate(TEMPLATES)]
    files: Files = {}
    for index in range(docs):
        doc, kind = f"g-{index:03d}", index % len(TEMPLATES)
        label = values(TEMPLATES[kind], rng)
        files[f"schemas/{doc}.json"] = schemas[kind]
        files[f"labels/{doc}.json"] = json.dumps(label, indent=1).encode()
        for system in GENERATED_SYSTEMS:
            files[f"results/{system}/{doc}.json"] = _result_bytes(
                rng, mutate(TEMPLATES[kind], label, rng))
    return files


# --- benchmarks and cases --------------------------------------------------------------------

TMP_BENCHMARKS = {"hostile": hostile_files, "generated": generated_files}


def folder_root(bench: str) -> Path:
    return REPO if bench == "sample" else shared_dir() / "docubench"


def hidden(name: str) -> bool:
    return name.startswith(".")


def layout(bench: str) -> tuple[list[str], list[str], set[tuple[str, str]]]:
    """(document ids, systems, (system, id) pairs with a result path) read without the
    code under test: hidden names are nobody's documents or systems."""
    if bench in TMP_BENCHMARKS:
        files = TMP_BENCHMARKS[bench]()
        docs = sorted(p[7:-5] for p in files if p.startswith("labels/"))
        present = {tuple(p[8:-5].split("/")) for p, c in files.items()
                   if p.startswith("results/") and c is not None}
    else:
        root = folder_root(bench)
        docs = sorted(p.stem for p in (root / "labels").glob("*.json") if not hidden(p.name))
        present = {(p.parent.name, p.stem) for p in (root / "results").glob("*/*.json")}
    systems = sorted({s for s, _ in present} - {s for s, _ in present if hidden(s)})
    return docs, systems, {pair for pair in present if not hidden(pair[0])}


@dataclass(frozen=True)
class Case:
    bench: str
    system: str
    doc: str
    version: str

    @property
    def id(self) -> str:
        return f"{self.bench}/{self.system}/{self.doc}/v{self.version}"


class JSONLDisagreement(AssertionError):
    """JSONL mode alone disagrees: a known case fails with this, and only with this."""


# Disagreements this test found were fixed at their source (a raw U+2028 inside a JSON
# string used to cut a JSONL line in two): none is expected now.
KNOWN: dict[str, str] = {}


def all_cases() -> list[Any]:
    cases = []
    for bench in ("hostile", "generated", "sample", "docubench"):
        if bench == "docubench" and not (folder_root(bench) / "labels").is_dir():
            cases += [Case(bench, "-", "-", v) for v in VERSIONS]  # the shared fixture skips
            continue
        docs, systems, _ = layout(bench)
        cases += [Case(bench, s, d, v) for v in VERSIONS for s in systems for d in docs]
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(
        strict=True, raises=JSONLDisagreement, reason=KNOWN[c.id])]
                         if c.id in KNOWN else []) for c in cases]


CASES = all_cases()
# One-document mode as a real subprocess (0.5 s each, so a sample): the brief's inputs.
SUBPROCESS_SAMPLE = {Case("hostile", "sysA", slug(name), "2.0").id for name in (
    "bare result", "NaN in a member the schema does not score", "1e999 outside data",
    "lone surrogate", "number in its written form", "fence with CRLF in data", "not JSON",
    "status failed")} | {Case("hostile", "sysA", slug(name), "1.0").id
                         for name in ("lone surrogate", "not JSON")} | {
    Case("generated", "ant", "g-001", v).id for v in VERSIONS}


# --- running the entry points ----------------------------------------------------------------

def write_tree(root: Path, files: Files) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == "DIR":
            path.mkdir()
        elif content == "BIG":  # sparse: 200 MB made instantly
            with open(path, "wb") as handle:
                handle.truncate(200_000_000)
        elif isinstance(content, bytes):
            path.write_bytes(content)
    return root


def leafscore_json(*args: str | Path) -> dict[str, Any]:
    outcome = CliRunner().invoke(leafscore_main, [str(a) for a in args], catch_exceptions=False)
    assert outcome.exit_code == 0, outcome.stderr
    return json.loads(outcome.stdout)


def one_line(text: str) -> str:
    # Raw CR and LF can only stand between tokens in JSON text, never inside a string.
    return text.replace("\r", " ").replace("\n", " ").strip()


def file_text(path: Path) -> str | None:
    """The text of a readable JSON file whose top level is an object, else None."""
    try:
        value = scorer.read_json_file(path).value
    except scorer.InputError:
        return None
    if not isinstance(value, dict) or {"id", "prediction", "output"} & set(value):
        return None  # not a file a JSONL line can stand for as is
    return scorer.decode_bytes(path.read_bytes(), str(path), []).removeprefix("\ufeff")


def jsonl_line(doc_id: str, text: str) -> str:
    body = one_line(text)[1:].lstrip()
    return "{" + f'"id": {json.dumps(doc_id)}' + ("" if body.startswith("}") else ", ") + body


class Runs:
    """Each entry point run once per benchmark and version, its output kept."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.cache: dict[tuple[str, ...], Any] = {}

    def _once(self, key: tuple[str, ...], make: Any) -> Any:
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def root(self, bench: str) -> Path:
        if bench in TMP_BENCHMARKS:
            return self._once(("root", bench), lambda: write_tree(
                self.tmp / bench, TMP_BENCHMARKS[bench]()))
        return folder_root(bench)

    def options(self, bench: str) -> scorer.Options:
        return self._once(("options", bench),
                          lambda: scorer.read_config(self.root(bench))["options"])

    def scorer_folder(self, bench: str, version: str) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            done = subprocess.run(
                [sys.executable, str(REPO / "scorer.py"), str(self.root(bench)), "--version",
                 version, "--format", "json"], capture_output=True, text=True, timeout=300,
                check=False)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)
        return self._once(("scorer", bench, version), run)

    def leafscore_folder(self, bench: str, version: str) -> dict[str, Any]:
        return self._once(("leafscore", bench, version), lambda: leafscore_json(
            "score", self.root(bench), "--format", "json", "--no-cache", "--version", version))

    def jsonl(self, bench: str, version: str) -> dict[tuple[str, str], tuple[Any, str]]:
        """(system, id) -> (score, status) from JSONL mode, for every pair a line can
        stand for (a readable object file, or no file at all: a gold line without one)."""
        return self._once(("jsonl", bench, version), lambda: self._run_jsonl(bench, version))

    def _run_jsonl(self, bench: str, version: str) -> dict[tuple[str, str], tuple[Any, str]]:
        root = self.root(bench)
        docs, systems, present = layout(bench)
        groups: dict[str, list[tuple[str, str]]] = {}  # one schema per JSONL set
        for doc in docs:
            digest = hashlib.sha256((root / "schemas" / f"{doc}.json").read_bytes()).hexdigest()
            groups.setdefault(digest, []).extend((s, doc) for s in systems)
        out: dict[tuple[str, str], tuple[Any, str]] = {}
        for n, pairs in enumerate(groups.values()):
            folder = self.tmp / f"jsonl-{bench}-{version}-{n}"
            folder.mkdir()
            gold, pred, ids = [], [], {}
            for system, doc in pairs:
                line_id = f"{system}|{doc}"
                label = file_text(root / "labels" / f"{doc}.json")
                assert label is not None
                gold.append("{" + f'"id": {json.dumps(line_id)}, "label": {one_line(label)}' + "}")
                if (system, doc) in present:
                    text = file_text(root / "results" / system / f"{doc}.json")
                    if text is None:
                        continue  # unreadable, or not an object: no line stands for it
                    pred.append(jsonl_line(line_id, text))
                ids[line_id] = (system, doc)
            (folder / "schema.json").write_bytes((root / "schemas" / f"{pairs[0][1]}.json")
                                                 .read_bytes())
            (folder / "gold.jsonl").write_text("\n".join(gold) + "\n", encoding="utf-8")
            (folder / "pred.jsonl").write_text("\n".join(pred) + "\n", encoding="utf-8",
                                               errors="surrogatepass")
            system = leafscore_json(
                "score", "--gold", folder / "gold.jsonl", "--pred", folder / "pred.jsonl",
                "--schema", folder / "schema.json", "--system", "jsonl", "--format", "json",
                "--no-cache", "--version", version)["systems"]["jsonl"]
            for line_id, pair in ids.items():
                out[pair] = (system["documents"][line_id], system["status"][line_id])
        return out

    def one_document_subprocesses(self, bench: str, version: str) -> dict[str, tuple[int, str]]:
        """Case id -> (exit code, stdout) of ``python scorer.py RESULT SCHEMA LABEL`` for
        the sampled cases of a benchmark, run in parallel."""
        def run() -> dict[str, tuple[int, str]]:
            root, started = self.root(bench), {}
            for case in (p.values[0] for p in CASES):
                if case.id in SUBPROCESS_SAMPLE and (case.bench, case.version) == (bench, version):
                    started[case.id] = subprocess.Popen(
                        [sys.executable, str(REPO / "scorer.py"), *paths(root, case),
                         "--version", version], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
            outputs = {k: p.communicate(timeout=300)[0] for k, p in started.items()}
            return {k: (started[k].returncode, out) for k, out in outputs.items()}
        return self._once(("one", bench, version), run)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Runs:
    return Runs(tmp_path_factory.mktemp("agreement"))


def paths(root: Path, case: Case) -> list[str]:
    return [str(root / "results" / case.system / f"{case.doc}.json"),
            str(root / "schemas" / f"{case.doc}.json"), str(root / "labels" / f"{case.doc}.json")]


def one_document_in_process(args: list[str], version: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = scorer.main([*args, "--version", version])
    return code, out.getvalue()


def bits(value: Any) -> str | None:
    """A score as its exact bits (None stays None): `==` that also tells -0.0 from 0.0."""
    return None if value is None else float(value).hex()


def value_of(doc: Any) -> float | None:
    return None if doc is None else doc.value


def printed(doc: Any) -> dict[str, Any]:
    """What one-document mode must print for a document score."""
    return json.loads(json.dumps(doc.to_dict(), ensure_ascii=False))


# --- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_every_entry_point_gives_the_same_document_score_and_verdict_counts(
    case, runs, request
):
    if case.bench == "docubench":
        request.getfixturevalue("shared")  # skips, or fails under LEAFSCORE_REQUIRE_SHARED=1
    root = runs.root(case.bench)
    result, schema, label = paths(root, case)
    record = scorer.scoring_version(case.version)
    api = scorer.score_file(result, schema, label, version=case.version)
    # Folder modes read the benchmark's options (benchmark.toml); the other entry points
    # have no way to take them, so they are held to the API with the default options.
    options = runs.options(case.bench)
    in_folder = api if options == scorer.Options() else scorer.score_file(
        result, schema, label, version=case.version, options=options)
    status = scorer.read_outcome(Path(result), scorer.read_json_file(schema).value, record,
                                 root).status
    expected, folder_expected = bits(value_of(api)), bits(value_of(in_folder))
    where = f"{case.id}: API {expected}"

    theirs = runs.scorer_folder(case.bench, case.version)["systems"][case.system]
    assert bits(theirs["documents"][case.doc]) == folder_expected, f"{where}; python scorer.py ROOT"
    ours = runs.leafscore_folder(case.bench, case.version)["systems"][case.system]
    assert bits(ours["documents"][case.doc]) == folder_expected, f"{where}; leafscore score"
    assert ours["status"][case.doc] == status, f"{where}; leafscore score status"

    # One-document mode refuses an absent result file (exit 2); it scores any other.
    runs_of_one = [one_document_in_process([result, schema, label], case.version)]
    if case.id in SUBPROCESS_SAMPLE:
        runs_of_one.append(runs.one_document_subprocesses(case.bench, case.version)[case.id])
    for code, stdout in runs_of_one:
        if status == "missing":
            assert code == 2 and stdout == "", where
            continue
        assert code == 0, where
        shown = json.loads(stdout)
        assert bits(shown["accuracy" if record.has_verdicts else "final"]) == expected, where
        assert shown == printed(api), f"{where}; python scorer.py RESULT SCHEMA LABEL"

    jsonl = runs.jsonl(case.bench, case.version)
    if (case.system, case.doc) in jsonl:
        value, jsonl_status = jsonl[(case.system, case.doc)]
        if (bits(value), jsonl_status) != (expected, status):
            raise JSONLDisagreement(f"{where} {status}; JSONL mode {bits(value)} {jsonl_status}")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("bench", ["hostile", "generated", "sample", "docubench"])
def test_both_folder_modes_see_the_same_systems_and_system_scores(bench, version, runs, request):
    if bench == "docubench":
        request.getfixturevalue("shared")
    docs, systems, _ = layout(bench)
    theirs = runs.scorer_folder(bench, version)
    ours = runs.leafscore_folder(bench, version)
    # A hidden folder such as results/.ipynb_checkpoints/ is a system of neither.
    assert list(theirs["systems"]) == list(ours["systems"]) == systems
    # Each document score is held to the API by the test above; the means must follow.
    record = scorer.scoring_version(version)
    for system in systems:
        documents = ours["systems"][system]["documents"]
        assert list(documents) == list(theirs["systems"][system]["documents"]) == docs
        scored = [value for value in documents.values() if value is not None]
        mean = record.mean(scored) if scored else None
        assert bits(theirs["systems"][system]["score"]) == bits(mean), system
        assert bits(ours["systems"][system]["score"]) == bits(mean), system


def test_a_number_is_read_from_its_written_form_by_every_entry_point(engine, runs):
    schema = json.loads(N_SCHEMA)
    exact = engine.score({"n": Decimal("1.00000050000000000001")}, schema, {"n": 1.000001})
    assert exact.counts["correct"] == 1
    for name in ("number in its written form", "number in its written form, enveloped"):
        case = Case("hostile", "sysA", slug(name), "2.0")
        doc = engine.score_file(*paths(runs.root("hostile"), case), version="2.0")
        assert (doc.value, doc.counts) == (exact.value, exact.counts)
        assert runs.jsonl("hostile", "2.0")[("sysA", case.doc)] == (exact.value, "scored")


def test_the_agreement_covers_at_least_400_result_files(shared, runs):
    covered = {(c.bench, c.system, c.doc) for c in (p.values[0] for p in CASES)
               if c.system != "-" and (c.system, c.doc) in layout(c.bench)[2]}
    print(f"\n{len(covered)} result files, each under both versions "
          f"({len(CASES)} cases)")
    assert len(covered) >= 400
    hostile = {doc for bench, _, doc in covered if bench == "hostile"}
    assert {slug(name) for name, (content, *_) in EXTRA.items() if content} <= hostile
    assert SUBPROCESS_SAMPLE.issubset(c.id for c in (p.values[0] for p in CASES))
