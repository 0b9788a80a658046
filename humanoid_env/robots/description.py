"""A robot as data: what the environments and the controller need to know about one humanoid.

A [`RobotDescription`][humanoid_env.robots.description.RobotDescription] names the robot's model file, the scenes it stands in, its frames
(root joint, soles, hands, torso, push body), its home posture, joint groups, and the controller
settings tuned for it. Sizes the controller assumes (the sole rectangle, the hand radius) are read
from the model's collision geoms, not typed. Everything robot-specific in ``humanoid_env`` comes
from here, so adding a robot is one new description module (see ``docs/robots.md``).

Contact names are conventions shared by every robot: ``left_foot`` / ``right_foot`` (flat feet,
sites at the sole centres, box collision geoms) and ``left_hand`` / ``right_hand`` (point
contacts, sphere collision geoms); they key ``info["contact_forces"]`` and the controller's
contacts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from wbc_layer import ContactConfig, ControllerConfig
from wbc_layer.step_limits import StepLimits, derive_step_limits

#: The scenes an environment may ask for: flat ground, a wall on the robot's right, a seesaw.
SCENES = ("flat", "wall", "seesaw")
#: The two feet's contact names, left then right.
FEET = ("left_foot", "right_foot")
#: The hands' contact names, left then right.
HANDS = ("left_hand", "right_hand")

#: A path, or a function returning one (a model generated and cached at first use).
PathSource = Path | Callable[[], Path]


@dataclass(frozen=True)
class Limb:
    """An end effector in the MuJoCo model: its frame (``site``) and its collision ``geom``.

    Feet: the site sits at the centre of the sole (the bottom face of a box geom). Hands: the site
    sits at the centre of a sphere geom.
    """

    site: str
    geom: str


#: Feet whose sites are ``<side>_sole`` and whose box geoms are ``<side>_foot``.
CONVENTIONAL_FEET = {f"{side}_foot": Limb(site=f"{side}_sole", geom=f"{side}_foot") for side in ("left", "right")}
#: Hands whose sites and sphere geoms are both ``<side>_hand``.
CONVENTIONAL_HANDS = {f"{side}_hand": Limb(site=f"{side}_hand", geom=f"{side}_hand") for side in ("left", "right")}
#: Legs whose collision geoms above the foot are ``<side>_thigh`` and ``<side>_shank``.
CONVENTIONAL_LEGS = {side: (f"{side}_thigh", f"{side}_shank") for side in ("left", "right")}


@dataclass(frozen=True)
class RobotDescription:
    """One humanoid: model, scenes, frames, home posture, joint groups, controller settings.

    Attributes:
        name: the key users pass (``gym.make(..., robot=name)``).
        mjcf: the robot-only MJCF (free joint, bodies with explicit inertials, motors, sites), from
            which both MuJoCo's and pinocchio's models are built; a path or a function returning one.
        scenes: scene name (one of [`SCENES`][humanoid_env.robots.description.SCENES]) -> MJCF of that scene holding the robot and a
            keyframe ``home``; a robot may lack some scenes.
        feet, hands: contact name ([`FEET`][humanoid_env.robots.description.FEET], [`HANDS`][humanoid_env.robots.description.HANDS]) -> [`Limb`][humanoid_env.robots.description.Limb]; default
            [`CONVENTIONAL_FEET`][humanoid_env.robots.description.CONVENTIONAL_FEET], [`CONVENTIONAL_HANDS`][humanoid_env.robots.description.CONVENTIONAL_HANDS] (sites and geoms named like the
            contacts' sides: ``left_sole`` / ``left_foot``, ``left_hand`` / ``left_hand``, ...).
        legs: side (``left``, ``right``) -> the leg's collision geoms above the foot (default
            [`CONVENTIONAL_LEGS`][humanoid_env.robots.description.CONVENTIONAL_LEGS]): what a scene whose legs collide with each other makes
            collide (``humanoid_env.envs.plant.collide_legs``).
        root_joint: the free joint of the floating base.
        torso_frame: frame of the torso-orientation task (a site).
        push_body: body the envs' pushes act on.
        home_joints: joint name -> angle [rad] of the standing posture (every actuated joint); the
            scenes' ``home`` keyframes hold it, changed by `scene_postures`.
        joint_groups: group name (``legs``, ``waist``, ``left_arm``, ``right_arm``) -> joint names.
        controller_friction: friction coefficient the controller assumes at feet and hands [-]
            (below the simulator's, so planned forces keep a margin inside the real cone).
        cop_margin: share of the sole box's half sizes the controller's CoP may use [-] (a
            planned CoP on the edge of a soft simulated contact tips the foot).
        controller_overrides: [`wbc_layer.ControllerConfig`][wbc_layer.config.ControllerConfig] fields tuned for this robot.
        scene_postures: scene -> joint name -> angle [rad] replacing `home_joints` in that
            scene's ``home`` keyframe (the wall scene raises the right hand beside the wall).
    """

    name: str
    mjcf: PathSource
    scenes: Mapping[str, PathSource]
    home_joints: Mapping[str, float]
    joint_groups: Mapping[str, tuple[str, ...]]
    feet: Mapping[str, Limb] = field(default_factory=lambda: dict(CONVENTIONAL_FEET))
    hands: Mapping[str, Limb] = field(default_factory=lambda: dict(CONVENTIONAL_HANDS))
    legs: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(CONVENTIONAL_LEGS))
    root_joint: str = "root"
    torso_frame: str = "torso"
    push_body: str = "torso"
    controller_friction: float = 0.7
    cop_margin: float = 0.85
    controller_overrides: Mapping[str, Any] = field(default_factory=dict)
    scene_postures: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted((set(self.scenes) | set(self.scene_postures)) - set(SCENES))
        if unknown:
            raise ValueError(f"robot {self.name!r}: unknown scene(s) {unknown}; scenes are {SCENES}")
        if tuple(self.feet) != FEET:
            raise ValueError(f"robot {self.name!r}: feet must be {FEET} (in that order), got {tuple(self.feet)}")
        if tuple(self.hands) != HANDS:
            raise ValueError(f"robot {self.name!r}: hands must be {HANDS} (in that order), got {tuple(self.hands)}")
        if sorted(self.legs) != ["left", "right"]:
            raise ValueError(f"robot {self.name!r}: legs must name the geoms of the 'left' and 'right' legs, got {sorted(self.legs)}")
        if not 0.0 < self.cop_margin <= 1.0:
            raise ValueError(f"robot {self.name!r}: cop_margin must be in (0, 1], got {self.cop_margin}")

    # -- files --------------------------------------------------------------------------
    def mjcf_path(self) -> Path:
        """The robot-only MJCF file (generated first if the description builds it)."""
        return _resolve(self.mjcf)

    def scene_path(self, scene: str) -> Path:
        """The MJCF of ``scene`` (one of [`SCENES`][humanoid_env.robots.description.SCENES]) with this robot in it."""
        if scene not in self.scenes:
            raise ValueError(f"robot {self.name!r} has no {scene!r} scene; it has {sorted(self.scenes)}")
        return _resolve(self.scenes[scene])

    # -- sizes read from the model's geoms -------------------------------------------------
    def sole_half_sizes(self) -> tuple[float, float]:
        """``(half length, half width)`` [m] of the sole boxes (both feet must agree)."""
        sizes = {tuple(_geom(self.mjcf_path(), limb.geom, "box")[:2]) for limb in self.feet.values()}
        if len(sizes) != 1:
            raise ValueError(f"robot {self.name!r}: the two sole boxes differ ({sorted(sizes)}); one size is assumed")
        half_length, half_width = sizes.pop()
        return half_length, half_width

    def cop_half_sizes(self) -> tuple[float, float]:
        """``(half length, half width)`` [m] of the rectangle the controller keeps each CoP in:
        [`sole_half_sizes`][humanoid_env.robots.description.RobotDescription.sole_half_sizes] times `cop_margin`."""
        half_length, half_width = self.sole_half_sizes()
        return self.cop_margin * half_length, self.cop_margin * half_width

    def hand_radius(self, hand: str = "right_hand") -> float:
        """Radius [m] of ``hand``'s collision sphere."""
        return float(_geom(self.mjcf_path(), self.hands[hand].geom, "sphere")[0])

    # -- the controller ------------------------------------------------------------------
    def foot_contacts(self, min_normal_force: float = 0.0) -> tuple[ContactConfig, ...]:
        """The two flat-foot contacts ([`FEET`][humanoid_env.robots.description.FEET]) at the sole sites, CoP in [`cop_half_sizes`][humanoid_env.robots.description.RobotDescription.cop_half_sizes]."""
        half_length, half_width = self.cop_half_sizes()
        return tuple(
            ContactConfig(
                name=name, frame=limb.site, kind="foot", friction_coefficient=self.controller_friction,
                min_normal_force=min_normal_force, half_length=half_length, half_width=half_width,
            )  # fmt: skip
            for name, limb in self.feet.items()
        )

    def hand_contact(
        self,
        hand: str = "right_hand",
        normal: tuple[float, float, float] = (0.0, 1.0, 0.0),
        max_normal_force: float = 60.0,
        active: bool = True,
        frame: str | None = None,
    ) -> ContactConfig:
        """``hand``'s *controlled* point contact (3D force in world axes [N]).

        Its normal force tracks a target (``WholeBodyController.set_force_target``) in
        ``[0, max_normal_force]`` (the hand cannot pull); friction `controller_friction`.
        ``normal``: the surface's normal into the robot, world axes. ``frame``: the contact
        point's frame (default: the hand's site, the sphere's centre).
        """
        return ContactConfig(
            name=hand, frame=frame or self.hands[hand].site, kind="point", friction_coefficient=self.controller_friction,
            min_normal_force=0.0, max_normal_force=max_normal_force, normal=tuple(float(x) for x in normal),
            mode="controlled", active=active,
        )  # fmt: skip

    def controller_config(self, **overrides: Any) -> ControllerConfig:
        """Standing controller: both feet supporting, torso held upright, this robot's settings,
        then ``overrides`` ([`wbc_layer.ControllerConfig`][wbc_layer.config.ControllerConfig] fields)."""
        config = ControllerConfig(contacts=self.foot_contacts(), torso_frame=self.torso_frame)
        return config.with_overrides(**{**self.controller_overrides, **overrides})

    # -- the legs' kinematics, read from the model at home --------------------------------
    def leg_geometry(self) -> dict[str, float]:
        """The legs measured in the flat scene's ``home`` keyframe [m], both sides averaged.

        - ``hip_height_m``: the hip pitch joint's anchor above the sole site at home (the standing
          posture, whose CoM height the stepping law keeps);
        - ``leg_length_m``: the hip pitch anchor to the sole site with the sagittal chain (the
          ``hip_pitch``, ``knee`` and ``ankle_pitch`` joints of `joint_groups`' ``legs``)
          straightened to 0, the other joints at home: the distance itself (hip to the sole centre,
          which may sit ahead of the ankle), not the sum of the segments' lengths;
        - ``nominal_width_m``: the lateral distance between the two sole sites at home.

        Raises:
            ValueError: the ``legs`` group lacks a side's ``hip_pitch``, ``knee`` or
                ``ankle_pitch`` joint, or the model lacks the flat scene's ``home`` keyframe.
        """
        chains = []
        for side in ("left", "right"):
            names = [n for n in self.joint_groups.get("legs", ()) if n.startswith(f"{side}_")]
            chain = tuple(next((n for n in names if part in n), "") for part in ("hip_pitch", "knee", "ankle_pitch"))
            if not all(chain):
                raise ValueError(f"robot {self.name!r}: joint_groups['legs'] needs {side} hip_pitch, knee and ankle_pitch joints, got {names}")
            chains.append(chain)
        soles = tuple(limb.site for limb in self.feet.values())
        return dict(_leg_geometry(self.scene_path("flat"), tuple(chains), soles))

    def step_limits(self) -> StepLimits:
        """Where and how fast a swing foot may step (a ``wbc_layer.step_limits.StepLimits``):
        ``derive_step_limits`` of [`leg_geometry`][humanoid_env.robots.description.RobotDescription.leg_geometry]
        and the sole's half width, with that function's defaults. Read from the model once and cached."""
        geometry = self.leg_geometry()
        return derive_step_limits(geometry["leg_length_m"], geometry["hip_height_m"], geometry["nominal_width_m"], self.sole_half_sizes()[1])

    def home_posture(self, scene: str | None = None) -> dict[str, float]:
        """Joint name -> home angle [rad] in ``scene`` (`home_joints` with that scene's
        `scene_postures`; None: the plain home posture)."""
        return {**self.home_joints, **self.scene_postures.get(scene, {})}

    def home_joint_vector(self, joint_names: tuple[str, ...], scene: str | None = None) -> np.ndarray:
        """(len(joint_names),) home angles [rad] in ``joint_names``' order (see [`home_posture`][humanoid_env.robots.description.RobotDescription.home_posture])."""
        posture = self.home_posture(scene)
        missing = [n for n in joint_names if n not in posture]
        if missing:
            raise ValueError(f"robot {self.name!r}: home_joints lacks {missing}")
        return np.array([posture[n] for n in joint_names], dtype=float)


def _resolve(source: PathSource) -> Path:
    return Path(source() if callable(source) else source)


@functools.cache
def _leg_geometry(path: Path, chains: tuple[tuple[str, str, str], ...], soles: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """[`RobotDescription.leg_geometry`][humanoid_env.robots.description.RobotDescription.leg_geometry] of the scene at ``path``:
    ``chains`` per side (hip pitch, knee, ankle pitch joints), ``soles`` the sole sites, left then right."""
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    key = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, "home")
    if key < 0:
        raise ValueError(f"{path} has no keyframe 'home'")

    def joint(name: str) -> int:
        index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if index < 0:
            raise ValueError(f"{path} has no joint named {name!r}")
        return index

    def site(name: str) -> int:
        index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
        if index < 0:
            raise ValueError(f"{path} has no site named {name!r}")
        return index

    def hips_and_soles(straight: bool) -> list[tuple[np.ndarray, np.ndarray]]:
        mujoco.mj_resetDataKeyframe(model, data, key)
        if straight:
            for chain in chains:
                for name in chain:
                    data.qpos[model.jnt_qposadr[joint(name)]] = 0.0
        mujoco.mj_kinematics(model, data)
        return [(data.xanchor[joint(chain[0])].copy(), data.site_xpos[site(sole)].copy()) for chain, sole in zip(chains, soles, strict=True)]

    home = hips_and_soles(straight=False)
    straight = hips_and_soles(straight=True)
    hip_height = float(np.mean([hip[2] - sole[2] for hip, sole in home]))
    leg_length = float(np.mean([np.linalg.norm(hip - sole) for hip, sole in straight]))
    width = float(abs(home[0][1][1] - home[1][1][1]))
    return (("hip_height_m", hip_height), ("leg_length_m", leg_length), ("nominal_width_m", width))


@functools.cache
def _geom_sizes(path: Path) -> dict[str, tuple[int, np.ndarray]]:
    model = mujoco.MjModel.from_xml_path(str(path))
    return {model.geom(i).name: (int(model.geom_type[i]), model.geom_size[i].copy()) for i in range(model.ngeom)}


def _geom(path: Path, name: str, kind: str) -> np.ndarray:
    """Size (3,) of the geom ``name`` of the model at ``path``, which must be of type ``kind``."""
    geoms = _geom_sizes(path)
    if name not in geoms:
        raise ValueError(f"{path} has no geom named {name!r}")
    geom_type, size = geoms[name]
    expected = getattr(mujoco.mjtGeom, f"mjGEOM_{kind.upper()}")
    if geom_type != int(expected):
        raise ValueError(f"{path}: geom {name!r} must be a {kind}, got {mujoco.mjtGeom(geom_type).name}")
    return size.copy()
