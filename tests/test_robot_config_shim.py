"""``humanoid_env.robot_config`` is a deprecation shim kept one release: importing it warns once,
naming what replaces it, and every name it had keeps its value; no project code imports it.

The imports run in fresh interpreters: a module warns only when first imported, and the test
session has imported the envs (which still import it) long before.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = "humanoid_env.robot_config"
#: What the warning names as the replacements.
REPLACEMENTS = (
    "HUBO_LITE.controller_config(...)", "HUBO_LITE.foot_contacts()", "HUBO_LITE.hand_contact(...)",
    "HUBO_LITE.mjcf_path()", 'HUBO_LITE.scene_path("flat")', "HUBO_LITE.controller_friction",
    "HUBO_LITE.cop_half_sizes()", "HUBO_LITE.hand_radius()", "humanoid_env.robots.scene_constants",
)  # fmt: skip
#: The folders whose Python files may not import the shim.
SCANNED = ("humanoid_env", "training", "benchmarks", "examples", "tests")
#: Files allowed to import it: the shim itself and this test.
ALLOWED = ("humanoid_env/robot_config.py", "tests/test_robot_config_shim.py")

VALUES_SCRIPT = """
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import humanoid_env.robot_config as rc
    import humanoid_env.robot_config  # a second import: no second warning

from humanoid_env.robots import robot_description, scene_constants
from humanoid_env.robots.hubo_lite import HUBO_LITE

ours = [w for w in caught if "robot_config" in str(w.message)]
assert len(ours) == 1 and ours[0].category is DeprecationWarning, [(w.category, str(w.message)) for w in caught]
assert ours[0].filename == "<string>", ours[0].filename  # stacklevel=2: reported at the importer

assert robot_description("hubo_lite") is HUBO_LITE
assert rc.HUBO_LITE is HUBO_LITE and rc.ASSETS == HUBO_LITE.mjcf_path().parent
assert rc.ROBOT_XML == HUBO_LITE.mjcf_path()
assert rc.FLAT_SCENE_XML == HUBO_LITE.scene_path("flat")
assert rc.CONTROLLER_FRICTION == HUBO_LITE.controller_friction == 0.7
assert (rc.FOOT_HALF_LENGTH, rc.FOOT_HALF_WIDTH) == HUBO_LITE.cop_half_sizes()
assert rc.HAND_RADIUS == HUBO_LITE.hand_radius()
assert rc.foot_contacts() == HUBO_LITE.foot_contacts()
assert rc.foot_contacts(5.0) == HUBO_LITE.foot_contacts(5.0)
assert rc.default_controller_config() == HUBO_LITE.controller_config()
assert rc.default_controller_config(com_kp=20.0, qp_solver="daqp") == HUBO_LITE.controller_config(com_kp=20.0, qp_solver="daqp")
assert rc.hand_contact() == HUBO_LITE.hand_contact("right_hand", (0.0, 1.0, 0.0))
assert rc.hand_contact("left", (0.0, -1.0, 0.0), 30.0, False, "left_hand") == HUBO_LITE.hand_contact(
    "left_hand", (0.0, -1.0, 0.0), 30.0, False, "left_hand"
)
# the scenes' names: the new module's objects, with the values they had before the move
before = {
    "WALL_SCENE_XML": rc.ASSETS / "scene_wall.xml", "WALL_SURFACE_Y": -0.355, "WALL_NORMAL": (0.0, 1.0, 0.0),
    "SEESAW_SCENE_XML": rc.ASSETS / "scene_seesaw.xml", "SEESAW_BODY": "seesaw", "SEESAW_TILT_JOINT": "seesaw_tilt",
    "SEESAW_SLIDE_JOINT": "seesaw_y", "SEESAW_ROLLING_EQUALITY": "seesaw_rolling", "SEESAW_BOARD_GEOM": "seesaw_board",
}
assert sorted(before) == sorted(scene_constants.__all__)
for name, value in before.items():
    assert getattr(rc, name) is getattr(scene_constants, name), name
    assert getattr(scene_constants, name) == value, name
print("ok")
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_importing_the_shim_with_deprecation_warnings_as_errors_fails_with_the_message():
    run = _python("-W", "error::DeprecationWarning", "-c", f"import {SHIM}")
    assert run.returncode != 0
    assert f"DeprecationWarning: {SHIM} is deprecated" in run.stderr, run.stderr[-2000:]
    message = run.stderr.strip().splitlines()[-1]
    missing = [name for name in REPLACEMENTS if name not in message]
    assert not missing, (missing, message)


def test_the_shim_warns_once_and_keeps_every_value():
    run = _python("-c", VALUES_SCRIPT)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout[-2000:] + run.stderr[-2000:]


def _imports_the_shim(tree: ast.AST, module: str) -> list[int]:
    """Lines of ``tree`` (the module ``module``) that import the shim, also inside code held in
    string constants (scripts run in a subprocess)."""
    package = module.rsplit(".", 1)[0]
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value == SHIM:  # importlib.import_module("humanoid_env.robot_config")
                lines.append(node.lineno)
            elif "robot_config" in node.value:
                try:
                    inner = ast.parse(textwrap.dedent(node.value))
                except SyntaxError:
                    continue
                lines += [node.lineno] if _imports_the_shim(inner, module) else []
            continue
        else:
            continue
        if any(target == SHIM or target.startswith(SHIM + ".") for target in targets):
            lines.append(node.lineno)
    return lines


def test_no_project_code_imports_the_shim():
    found, scanned = [], 0
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(ALLOWED):
                continue
            scanned += 1
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found += [f"{relative}:{line}" for line in _imports_the_shim(ast.parse(path.read_text()), module)]
    assert scanned > 50, scanned  # the walk found the project's files
    assert not found, f"import HUBO_LITE (humanoid_env.robots.hubo_lite) and humanoid_env.robots.scene_constants instead: {found}"


def test_the_scan_sees_every_way_of_importing_the_shim():
    # the checker itself
    samples = {
        "import humanoid_env.robot_config": True,
        "from humanoid_env.robot_config import ROBOT_XML": True,
        "from humanoid_env import robot_config": True,
        "from .. import robot_config": True,  # in humanoid_env.envs.x
        "from ..robot_config import WALL_NORMAL": True,
        "def f():\n    from humanoid_env.robot_config import hand_contact": True,
        'SCRIPT = """\nimport numpy\nfrom humanoid_env.robot_config import ROBOT_XML\n"""': True,
        'importlib.import_module("humanoid_env.robot_config")': True,
        "from humanoid_env.robots.hubo_lite import HUBO_LITE": False,
        "from humanoid_env.robots import scene_constants": False,
        '"""Formerly humanoid_env.robot_config: see the docs."""': False,
    }
    for source, imports in samples.items():
        assert bool(_imports_the_shim(ast.parse(source), "humanoid_env.envs.x")) == imports, source
