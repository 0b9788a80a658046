"""The house's arrows: ``training -> humanoid_env -> wbc_layer``, and no import circles.

Every import in the three packages counts, module-level or inside a function (a function-level
import that closes a circle only moves the circle to run time); imports under
``if TYPE_CHECKING:`` are annotations only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wbc_layer", "humanoid_env", "training")
#: package -> the project packages it may import (docs/architecture.md: arrows point one way).
ALLOWED = {"wbc_layer": set(), "humanoid_env": {"wbc_layer"}, "training": {"humanoid_env", "wbc_layer"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(child) for child in ast.walk(node)}
    return skipped


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports (``from a.b import c`` counts ``a.b.c`` if a module)."""
    tree = ast.parse(path.read_text())
    skipped = _type_checking_blocks(tree)
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found


def import_graph() -> dict[str, set[str]]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    modules = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, modules) - {module_name(p)} for p in files}


def test_arrows_point_one_way():
    wrong = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] != module.split(".")[0] and target.split(".")[0] not in ALLOWED[module.split(".")[0]]
    ]
    assert not wrong, wrong


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (module -> modules it imports), each as a closed path."""
    # a package's __init__ re-exporting its modules is not a circle through them
    graph = {m: {t for t in ts if not (m.startswith(t + ".") and "." not in t)} for m, ts in graph.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target] if target in path else [module, target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return cycles


def test_no_import_circles():
    assert not import_cycles(import_graph())


@pytest.mark.parametrize("package", ["humanoid_env", "training"])
def test_no_import_circles_inside_each_package(package):
    # the package's own modules alone (module-level and function-level imports)
    graph = {m: {t for t in ts if t.split(".")[0] == package} for m, ts in import_graph().items() if m.split(".")[0] == package}
    assert len(graph) > 5, sorted(graph)  # the walk found the package's modules
    assert not import_cycles(graph)


def test_the_cycle_finder_finds_circles(tmp_path, monkeypatch):
    # the checker itself: a circle through three modules, and one closed by a function-level import
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    monkeypatch.setitem(globals(), "ROOT", tmp_path)  # module_name() reads paths relative to ROOT
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.py").write_text("from p.y import f\n")
    (tmp_path / "p" / "y.py").write_text("def g():\n    from p.x import h\n")
    modules = {"p.x", "p.y"}
    scratch = {m: imports_of(tmp_path / "p" / f"{m[2:]}.py", modules) - {m} for m in modules}
    assert import_cycles(scratch) == [["p.x", "p.y", "p.x"]]


def test_the_scenario_base_is_a_leaf_and_no_scenario_imports_the_registry():
    graph = import_graph()
    # runtime imports of the base: none of humanoid_env (the env's import of it is for annotations);
    # only wbc_layer.references (its min_jerk profile, since issue 35), itself a leaf of the project
    assert graph["humanoid_env.scenarios.base"] == {"wbc_layer.references"}
    assert graph["wbc_layer.references"] == set()
    experiments = [m for m in graph if m.startswith("humanoid_env.scenarios.")]
    assert len(experiments) >= 4, experiments
    assert [m for m in experiments if "humanoid_env.scenarios" in graph[m]] == []
    # the registry sees every experiment module
    assert set(experiments) <= graph["humanoid_env.scenarios"]
    # the run-folder format has one owner: train, evaluate and shipped all read it from there
    for program in ("training.train", "training.evaluate", "training.shipped"):
        assert "training.run_folder" in graph[program], program
    assert not {m for m in graph["training.run_folder"] if m.startswith("training.")}


def test_the_graph_sees_imports():
    # the checker itself: known arrows are found, including a function-level one
    graph = import_graph()
    assert "training.run_folder" in graph["training.evaluate"] and "training.run_folder" in graph["training.train"]
    assert "wbc_layer" in graph["humanoid_env.envs.base"]
    assert "training.plotting" in graph["training.evaluate"]  # imported inside evaluate()
