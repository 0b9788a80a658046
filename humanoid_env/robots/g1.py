"""The Unitree G1 (29 actuated joints, 33.3 kg), from example-robot-data's URDF.

Its model is generated ([`humanoid_env.robots.g1_model`][humanoid_env.robots.g1_model]) and its scenes derived from
Hubo-lite's ([`humanoid_env.robots.scenes`][humanoid_env.robots.scenes]); both are cached. Needs
from a clone, ``pip install -e ".[g1]"``.
"""

from __future__ import annotations

from humanoid_env.robots.description import RobotDescription
from humanoid_env.robots.g1_model import G1_HOME_JOINTS, g1_mjcf_path
from humanoid_env.robots.scenes import derived_scene

_LEG = ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")
_ARM = ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_roll", "wrist_pitch", "wrist_yaw")


def _scene(name: str):
    return lambda: derived_scene(G1, name)


G1 = RobotDescription(
    name="g1",
    mjcf=g1_mjcf_path,
    scenes={name: _scene(name) for name in ("flat", "wall", "seesaw")},
    home_joints=G1_HOME_JOINTS,
    joint_groups={
        "legs": tuple(f"{side}_{j}_joint" for side in ("left", "right") for j in _LEG),
        "waist": ("waist_yaw_joint", "waist_roll_joint", "waist_pitch_joint"),
        "left_arm": tuple(f"left_{j}_joint" for j in _ARM),
        "right_arm": tuple(f"right_{j}_joint" for j in _ARM),
    },
    root_joint="root",
    torso_frame="torso",
    push_body="torso_link",
    controller_friction=0.7,  # the simulator's is 1.0
    cop_margin=0.85,  # of the sole boxes' half sizes (0.1041 x 0.0378 m): 0.0885 x 0.0321 m
    # the right arm abducted, elbow bent: the hand 0.42 m out at about pelvis height, 1.2 cm from the wall
    scene_postures={"wall": {"right_shoulder_roll_joint": -0.7, "right_elbow_joint": 1.0}},
)
