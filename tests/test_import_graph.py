"""The house's arrows: ``training -> humanoid_env -> wbc_layer``, and no import circles.

Every import in the three packages counts, module-level or inside a function (a function-level
import that closes a circle only moves the circle to run time); imports under
``if TYPE_CHECKING:`` are annotations only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wbc_layer", "humanoid_env", "training")
#: package -> the project packages it may import (DESIGN.md: arrows point one way).
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


def test_no_import_circles():
    graph = import_graph()
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
    assert not cycles, cycles


def test_the_graph_sees_imports():
    # the checker itself: known arrows are found, including a function-level one
    graph = import_graph()
    assert "training.run_folder" in graph["training.evaluate"] and "training.run_folder" in graph["training.train"]
    assert "wbc_layer" in graph["humanoid_env.envs.base"]
    assert "training.plotting" in graph["training.evaluate"]  # imported inside evaluate()
