"""Hubo-lite, the project's own 1.24 m, 37.4 kg, 23-joint biped (``assets/robot.xml``).

Its scenes are hand-written files in ``humanoid_env/assets`` that include ``robot.xml``.
"""

from __future__ import annotations

from pathlib import Path

from humanoid_env.robots.description import RobotDescription

ASSETS = Path(__file__).resolve().parents[1] / "assets"

_LEG = ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch", "ankle_roll")
_ARM = ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow")

HUBO_LITE = RobotDescription(
    name="hubo_lite",
    mjcf=ASSETS / "robot.xml",
    scenes={"flat": ASSETS / "scene_flat.xml", "wall": ASSETS / "scene_wall.xml", "seesaw": ASSETS / "scene_seesaw.xml"},
    # knees bent (hip -0.3, knee 0.6, ankle -0.3: the soles flat), arms forward and abducted
    home_joints={
        **{f"{side}_{j}": a for side in ("left", "right") for j, a in zip(_LEG, (0.0, 0.0, -0.3, 0.6, -0.3, 0.0), strict=True)},
        "waist_yaw": 0.0, "waist_roll": 0.0, "waist_pitch": 0.0,
        **{f"left_{j}": a for j, a in zip(_ARM, (0.2, 0.15, 0.0, -0.4), strict=True)},
        **{f"right_{j}": a for j, a in zip(_ARM, (0.2, -0.15, 0.0, -0.4), strict=True)},
    },  # fmt: skip
    joint_groups={
        "legs": tuple(f"{side}_{j}" for side in ("left", "right") for j in _LEG),
        "waist": ("waist_yaw", "waist_roll", "waist_pitch"),
        "left_arm": tuple(f"left_{j}" for j in _ARM),
        "right_arm": tuple(f"right_{j}" for j in _ARM),
    },
    root_joint="root",
    torso_frame="torso",
    push_body="torso",
    controller_friction=0.7,  # the simulator's is 1.0
    cop_margin=0.85,  # of the 0.10 x 0.05 m sole half sizes: 0.085 x 0.0425 m
    # the right arm bent and abducted: the hand 1.2 cm from the wall (assets/scene_wall.xml)
    scene_postures={"wall": {"right_shoulder_roll": -0.5, "right_elbow": -1.0}},
)
