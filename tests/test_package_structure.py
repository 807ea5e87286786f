"""The package's shape (issue 20, item 5), read from its code with ``ast``, never run.

* No import circle: the graph of module-level imports of ``leafscore/**/*.py`` is acyclic.
  An edge A -> B for each module B of the package that A's module-level code imports
  (``from leafscore import x`` imports the module ``leafscore.x`` when there is one, else
  ``leafscore`` itself), and for each package above B, whose ``__init__`` runs first,
  unless it is one of A's own packages (already running when A is imported). Imports
  inside functions run only when called (``make_executor`` loads Dask so, and the
  package's face its lazy names), yet they close no circle either.
* No module imports the package's face (``leafscore/__init__.py``'s names, such as
  ``__version__``): each imports the module that defines what it uses.
* The Dask executor imports only the executors' base; nothing imports it at module level.
* After the door (``leafscore/versions.py``), no module looks a scoring version up by its
  name: the record is passed on.
* Every package of the tree is listed in ``pyproject.toml``, so the wheel holds it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "leafscore"
#: The one module that turns a version's name into its record.
DOOR = "leafscore.versions"
#: Modules that are an engine's table of records.
TABLES = ("leafscore._fast",)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def module_level_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``path`` that run when it is imported (none inside a
    function or a lambda)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def every_import(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``path``, function bodies included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def base_of(node: ast.ImportFrom, importer: str) -> str:
    """The absolute module a ``from ... import`` names (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    package = importer if is_package(importer) else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def targets(node: ast.Import | ast.ImportFrom, importer: str) -> set[str]:
    """The package's modules an import statement names (outside ones left out)."""
    if isinstance(node, ast.Import):
        named = {alias.name for alias in node.names}
    else:
        base = base_of(node, importer)
        named = {f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                 for alias in node.names}
    return {name for name in named if name in MODULES}


def with_parents(name: str) -> set[str]:
    """``name`` and every package above it (their ``__init__`` runs first)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def graph(*, lazy: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules its module-level code imports (with ``lazy``,
    its functions' imports too), with the packages above them that are not the
    module's own."""
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        found: set[str] = set()
        for node in (every_import if lazy else module_level_imports)(path):
            for target in targets(node, name):
                found |= with_parents(target)
        edges[name] = found - with_parents(name)
    return edges


def a_circle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``edges`` (its modules in order, the first repeated), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_graph_is_read_from_every_module_of_the_package():
    edges = graph()
    assert {"leafscore", "leafscore.cli", "leafscore.executors",
            "leafscore.executors.dask", "leafscore._fast"} <= set(edges)
    assert "leafscore.runner" in edges["leafscore.api"]
    assert "leafscore.executors" in edges["leafscore.runner"]
    assert edges["leafscore.executors.dask"] == {"leafscore.executors.base"}


def test_the_package_has_no_import_circle():
    assert a_circle(graph()) is None


def test_not_even_the_imports_made_inside_functions_close_a_circle():
    assert a_circle(graph(lazy=True)) is None


def test_a_circle_is_found_when_there_is_one():
    assert a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert a_circle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("name", sorted(MODULES), ids=str)
def test_no_module_imports_the_packages_face(name):
    for node in every_import(MODULES[name]):
        if isinstance(node, ast.Import):
            assert "leafscore" not in {alias.name for alias in node.names}, name
        elif base_of(node, name) == "leafscore":
            faces = [alias.name for alias in node.names
                     if f"leafscore.{alias.name}" not in MODULES]
            assert faces == [], f"{name} imports {faces} from leafscore/__init__.py"


def test_the_dask_executor_imports_only_the_executors_base():
    imported = set().union(*(targets(node, "leafscore.executors.dask")
                             for node in every_import(MODULES["leafscore.executors.dask"])))
    assert imported == {"leafscore.executors.base"}
    for name, path in MODULES.items():
        for node in module_level_imports(path):
            assert "leafscore.executors.dask" not in targets(node, name), name


def looked_up_by_name(path: Path) -> list[str]:
    """Where ``path`` turns a version's name into its record itself:
    ``scorer.scoring_version`` or ``scorer.VERSIONS``, by attribute or by import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "scorer" and node.attr in ("scoring_version", "VERSIONS"):
            found.append(f"line {node.lineno}: scorer.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "scorer":
            found += [f"line {node.lineno}: from scorer import {alias.name}"
                      for alias in node.names if alias.name in ("scoring_version", "VERSIONS")]
    return found


@pytest.mark.parametrize("name", sorted(set(MODULES) - {DOOR, *TABLES}), ids=str)
def test_after_the_door_no_module_looks_a_version_up_by_its_name(name):
    assert looked_up_by_name(MODULES[name]) == []


def test_the_door_is_where_records_are_taken_from_the_tables():
    assert looked_up_by_name(MODULES[DOOR])


def test_every_package_of_the_tree_is_listed_for_the_wheel():
    import tomllib

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    assert listed == {name for name in MODULES if is_package(name)}
