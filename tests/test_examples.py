"""The scripts in ``examples/`` and the README's snippets run, at a tiny size, and do what they say.

Each runs in a subprocess as a user would run it (``python examples/<name>.py ...``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: Generous per-script limit [s]; each takes 1-8 s here.
TIMEOUT_S = 180

#: Standing: the pelvis starts at 0.685 m in the home keyframe; a fall or a collapsed knee takes
#: it well below 0.6 m.
MIN_STANDING_BASE_HEIGHT_M = 0.6
#: The CoM follows its 2 cm move to within 2 mm once the move is over (measured: 0.5 mm).
STAND_COM_TOLERANCE_M = 0.002
#: Robot weight 37.4 kg x 9.81 m/s^2; the feet carry it to within 2 % when standing still.
ROBOT_WEIGHT_N = 37.4 * 9.81
#: Wall: the paper reports about 0.01 N; the 3 s short form gives 0.005 N and the 6 s timeline
#: 0.002 N. 0.05 N (0.25 % of the 20 N target) fails if the force loop breaks or the hand slips.
WALL_FORCE_RMSE_BOUND_N = 0.05
#: Seesaw: after the 100 N push the board swings up to about 0.09 rad and is level again in
#: 0.76 s; 0.2 rad would mean the recovery is failing.
SEESAW_MAX_ANGLE_AFTER_PUSH_RAD = 0.2


def run(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def png_written(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 1000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_controller_alone_stands_the_robot_and_moves_its_com(tmp_path):
    run(str(EXAMPLES / "stand_alone.py"), "--seconds", "2.5", "--shift-at", "0.5", "--out", str(tmp_path))
    summary = json.loads((tmp_path / "stand_alone.json").read_text())
    assert summary["base_height_min_m"] > MIN_STANDING_BASE_HEIGHT_M
    assert summary["com_error_final_m"] < STAND_COM_TOLERANCE_M
    assert summary["left_foot_final_n"] + summary["right_foot_final_n"] == pytest.approx(ROBOT_WEIGHT_N, rel=0.02)
    assert summary["fallbacks"] == 0
    assert png_written(tmp_path / "stand_alone.png")


def test_a_task_written_in_python_gives_the_built_in_tasks_torques(tmp_path):
    """The user's hand-position task (rows computed in Python each tick) against the built-in
    FramePositionTask on the same states: the torques agree to 1e-9 N m (the same formula through
    other kernels: 1.2e-10 N m seen over 1 s), and the task does move the hand (at least 5 of the
    10 cm in 1 s; the posture and CoM tasks hold it back)."""
    run(str(EXAMPLES / "custom_task.py"), "--seconds", "1.0", "--out", str(tmp_path))
    summary = json.loads((tmp_path / "custom_task.json").read_text())
    assert summary["max_torque_difference_to_built_in_n_m"] < 1e-9
    assert summary["hand_moved_m"][0] > 0.05


def test_the_wall_example_regulates_the_hand_force(tmp_path):
    run(str(EXAMPLES / "wall_force.py"), "--seconds", "3", "--out", str(tmp_path))
    result = json.loads((tmp_path / "wall_force.json").read_text())
    assert not result["fell"]
    assert result["hand_force_rmse_n"] < WALL_FORCE_RMSE_BOUND_N
    assert result["hand_force_min_n"] > 15.0  # the hand never left the wall
    assert result["lean_achieved_m"] > 0.025  # the CoM moved (most of) its 3 cm towards the wall
    assert png_written(tmp_path / "wall_force.png")


def test_the_seesaw_example_recovers_from_the_push(tmp_path):
    run(str(EXAMPLES / "seesaw_push.py"), "--stand", "1.5", "--recover", "1.5", "--out", str(tmp_path))
    result = json.loads((tmp_path / "seesaw_push.json").read_text())
    assert not result["fell"]
    assert 0.0 < result["board_angle_max_after_push_rad"] < SEESAW_MAX_ANGLE_AFTER_PUSH_RAD
    assert result["time_to_level_s"] is not None  # null: never level again
    assert 0.0 < result["time_to_level_s"] < 1.5  # level again before the end
    assert png_written(tmp_path / "seesaw_push.png")


def test_the_seesaw_example_with_the_rigid_model_stands_but_never_levels_and_writes_strict_json(tmp_path):
    """``--model rigid`` (the board as fixed ground): the docstring says the robot does not fall
    but the board is not level again; its ``time_to_level_s`` (NaN) is written as ``null``, not
    as a bare ``NaN`` (measured: max 0.20 rad after the push, against 0.09 with the coupled model)."""

    def refuse(constant: str):
        raise ValueError(f"bare {constant} in seesaw_push.json")

    run(str(EXAMPLES / "seesaw_push.py"), "--stand", "1.5", "--recover", "1.5", "--model", "rigid", "--out", str(tmp_path))
    result = json.loads((tmp_path / "seesaw_push.json").read_text(), parse_constant=refuse)
    assert result["model"] == "rigid" and not result["fell"]
    assert result["time_to_level_s"] is None
    assert result["board_angle_max_after_push_rad"] > 0.15  # rocks far more than the coupled model's 0.09


def test_the_training_example_trains_saves_and_evaluates(tmp_path):
    from stable_baselines3 import PPO

    run(str(EXAMPLES / "train_ppo.py"), "--timesteps", "128", "--eval-steps", "50", "--out", str(tmp_path))
    result = json.loads((tmp_path / "evaluation.json").read_text())
    assert result["timesteps"] == 128
    assert result["length"] == 50 and not result["fell"]  # 128 steps leave the nominal controller standing
    model = PPO.load(tmp_path / "model.zip")
    assert model.observation_space.shape == (75,) and model.action_space.shape == (4,)  # wbc mode


def code_lines(path: Path) -> int:
    """Lines of ``path`` that are code: not blank, not a comment, not the module docstring."""
    import ast

    source = path.read_text()
    docstring_end = ast.parse(source).body[0].end_lineno
    lines = source.splitlines()[docstring_end:]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def test_the_training_example_is_as_long_as_the_readme_says():
    stated = re.search(r"training in (\d+) lines of code", (ROOT / "README.md").read_text())
    assert stated, "the README states the training example's length"
    assert int(stated[1]) == code_lines(EXAMPLES / "train_ppo.py")


def test_documented_commands_write_only_where_git_ignores():
    """The README's commands and the examples' documented ones write their files into ignored
    folders (out/, runs/), not into the repository's root or over a tracked file (the README's
    picture, docs/images/tasks.png, is replaced only by a deliberate ``--out docs/images``)."""
    texts = [block for block in re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)]
    texts += [re.match(r'"""(.*?)"""', path.read_text(), re.S)[1] for path in sorted(EXAMPLES.glob("*.py"))]
    commands = [line for text in texts for line in text.splitlines() if re.search(r"python (-m |examples/)", line)]
    outputs = [path for line in commands for path in re.findall(r"--(?:out|json|plot|video) (\S+)", line)]
    assert len(outputs) >= 5, commands  # the evaluate command and the examples' --out folders
    for output in outputs:
        ignored = subprocess.run(["git", "check-ignore", "-q", f"{output}/x"], cwd=ROOT).returncode == 0
        ignored = ignored or subprocess.run(["git", "check-ignore", "-q", output], cwd=ROOT).returncode == 0
        assert ignored, f"a documented command writes {output}, which git does not ignore"


def test_the_readme_snippets_run(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 2, "the README's env and controller quick starts"
    outputs = []
    for i, block in enumerate(blocks):
        (tmp_path / f"snippet_{i}.py").write_text(block)
        outputs.append(run(str(tmp_path / f"snippet_{i}.py"), cwd=tmp_path))
    # the controller quick start moves the CoM reference 2 cm left; the printed CoM followed
    com_y = float(re.search(r"\[\s*\S+\s+(\S+)", outputs[1])[1])
    assert com_y == pytest.approx(0.02, abs=0.003)


def test_the_task_picture_shows_three_rendered_scenes(tmp_path):
    """``render_tasks.py`` (the README's picture) renders offscreen with EGL, as on this machine
    kind. Each of the three panels must hold a rendered scene, not a blank frame: the pixel
    values of a panel spread by more than 10 of 255 (a blank or black frame spreads by 0)."""
    import os

    import matplotlib.image

    env = {**os.environ, "MUJOCO_GL": "egl"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "render_tasks.py"), "--seconds", "0.1", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert png_written(tmp_path / "tasks.png")
    image = matplotlib.image.imread(tmp_path / "tasks.png")
    for panel in np.array_split(image[..., :3], 3, axis=1):
        assert 255 * panel.std() > 10
