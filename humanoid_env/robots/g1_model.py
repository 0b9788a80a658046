"""The Unitree G1 (29 actuated joints) for the simulator and the controller: one cached MJCF file.

[`g1_mjcf_path`][humanoid_env.robots.g1_model.g1_mjcf_path] builds the robot-only MJCF ([`.g1_mjcf`][humanoid_env.robots.g1_mjcf], with ``mujoco.MjSpec``) from
``g1_description/urdf/g1_29dof_rev_1_0.urdf`` of the ``example-robot-data`` package
(from a clone: ``pip install -e ".[g1]"``) and caches it; MuJoCo and pinocchio
(``wbc_layer.RobotModel.from_mjcf``) read that one file, as for our own robot. Total mass
33.34 kg; feet: boxes with sites ``left_sole``/``right_sole``; hands: spheres with sites
``left_hand``/``right_hand``; site ``torso`` on the torso link; free joint ``root``.

The robot file has no keyframe (a scene with more joints, a seesaw, could not keep it): its
scenes ([`humanoid_env.robots.scenes`][humanoid_env.robots.scenes]) put the standing posture [`G1_HOME_JOINTS`][humanoid_env.robots.g1_model.G1_HOME_JOINTS] in
their ``home`` keyframe, with the soles on z = 0.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import mujoco

from humanoid_env.robots.cache import cache_dir, cached_file, content_key, write_cached_file
from humanoid_env.robots.g1_mjcf import (
    BUILDER_VERSION,
    G1_ARMATURE,
    G1_DAMPING,
    G1_FOOT_BOX,
    G1_HAND_RADIUS,
    G1_URDF,
    PACKAGE,
    build_g1_spec,
    mjcf_text,
    share_dir,
)

__all__ = [
    "G1_ARMATURE",
    "G1_DAMPING",
    "G1_FOOT_BOX",
    "G1_HAND_RADIUS",
    "G1_HOME_JOINTS",
    "G1ModelUnavailable",
    "g1_mjcf_path",
    "g1_urdf_path",
]

_SHARE = "cmeel.prefix/share/example-robot-data"
INSTALL_HINT = 'from a clone, pip install -e ".[g1]" (or pip install "example-robot-data==6.0.0")'


class G1ModelUnavailable(ImportError):
    """example-robot-data, which holds the G1's URDF, is not installed."""


def g1_urdf_path() -> Path:
    """The G1 URDF inside the installed ``example-robot-data`` package."""
    try:
        distribution = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError as err:
        raise G1ModelUnavailable(f"the Unitree G1 model needs the {PACKAGE} package: {INSTALL_HINT}") from err
    path = Path(distribution.locate_file(f"{_SHARE}/{G1_URDF}"))
    if not path.is_file():
        raise G1ModelUnavailable(f"{PACKAGE} is installed but has no {G1_URDF} (at {path}): {INSTALL_HINT}")
    return path


def g1_mjcf_path(visual_meshes: bool = True) -> Path:
    """The G1's robot-only MJCF file, built on first use and cached.

    The file's name holds a hash of the URDF's contents, the package location (meshes are
    referenced by absolute path), [`BUILDER_VERSION`][humanoid_env.robots.g1_mjcf.BUILDER_VERSION] and MuJoCo's version (its XML
    writer); it is written atomically, so parallel processes may call this at once. A cached file
    that is damaged is rebuilt with a warning naming it; an unwritable cache folder raises
    [`ModelCacheError`][humanoid_env.robots.cache.ModelCacheError] (see [`humanoid_env.robots.cache`][humanoid_env.robots.cache]).
    """
    urdf = g1_urdf_path()
    key = content_key((urdf.read_bytes(), str(share_dir(urdf)), BUILDER_VERSION, mujoco.__version__, bytes([visual_meshes])))
    suffix = "" if visual_meshes else "_nomesh"
    path = cache_dir() / f"g1_29dof{suffix}_{key}.xml"
    if cached_file(path) is None:
        write_cached_file(path, mjcf_text(build_g1_spec(urdf, visual_meshes), f"{PACKAGE} {metadata.version(PACKAGE)}: {G1_URDF}"))
    return path


def _leg(side: str, hip_pitch: float, knee: float) -> dict[str, float]:
    """A leg in the sagittal plane with its sole level: ankle pitch = -(hip pitch + knee) [rad].

    (The URDF tilts the hip roll joint by -0.1749 rad about y and the knee back by +0.1749: the
    pitch axes stay parallel, so the three pitch angles add up.)
    """
    return {
        f"{side}_hip_pitch_joint": hip_pitch,
        f"{side}_hip_roll_joint": 0.0,
        f"{side}_hip_yaw_joint": 0.0,
        f"{side}_knee_joint": knee,
        f"{side}_ankle_pitch_joint": -(hip_pitch + knee),
        f"{side}_ankle_roll_joint": 0.0,
    }


def _arm(side: str, sign: float) -> dict[str, float]:
    """An arm hanging relaxed: a little back, out to the side, elbow half bent [rad]."""
    return {
        f"{side}_shoulder_pitch_joint": 0.2,
        f"{side}_shoulder_roll_joint": sign * 0.25,
        f"{side}_shoulder_yaw_joint": 0.0,
        f"{side}_elbow_joint": 0.9,
        f"{side}_wrist_roll_joint": 0.0,
        f"{side}_wrist_pitch_joint": 0.0,
        f"{side}_wrist_yaw_joint": 0.0,
    }


#: The G1's standing posture [rad]: knees bent 0.669 rad with level soles (the CoM then sits
#: about 1 cm behind the soles' centre), torso upright, arms out to the side by 0.25 rad with
#: the elbows bent 0.9 rad (the hands 0.26 m from the midline, clear of the thighs).
G1_HOME_JOINTS: dict[str, float] = {
    **_leg("left", -0.312, 0.669),
    **_leg("right", -0.312, 0.669),
    "waist_yaw_joint": 0.0,
    "waist_roll_joint": 0.0,
    "waist_pitch_joint": 0.0,
    **_arm("left", 1.0),
    **_arm("right", -1.0),
}
