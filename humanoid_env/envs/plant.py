"""The plant: the simulated robot in its scene, and what happens to it that no controller decides.

[`Plant`][humanoid_env.envs.plant.Plant] holds MuJoCo's model and data, the keyframe reset with its joint
noise, the plant randomiser, the pushes (disturbance events), the contact force sensor, the
MuJoCo <-> pinocchio bridge (built from the robot description), and the measurements every task
reads (CoM, base tilt and height, support centre, contact forces). It holds no reference to an
env, a controller or a task: they are handed what they need.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from humanoid_env.envs.kwargs import keyword_error
from humanoid_env.envs.numerics import add_reduce, clip_scalar, isfinite
from humanoid_env.envs.pushes import PushSchedule
from humanoid_env.envs.randomisation import PlantRandomisation, PlantRandomiser
from humanoid_env.envs.sensing import ContactSensor
from humanoid_env.robots import FEET, RobotDescription
from humanoid_env.sim_bridge import SimBridge

_BAD_STATE_WARNINGS = [int(w) for w in (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL, mujoco.mjtWarning.mjWARN_BADQACC)]
_BAD_QPOS, _BAD_QVEL, _BAD_QACC = _BAD_STATE_WARNINGS
#: The contype / conaffinity bits that make the legs collide with each other (``collide_legs``).
LEG_BITS = {"left": 4, "right": 8}
_DOWN = np.array([0.0, 0.0, -1.0])
_DOWN.flags.writeable = False
_UP = np.array([0.0, 0.0, 1.0])
_UP.flags.writeable = False


class Plant:
    """The simulated robot in ``scene`` (see the module docstring).

    Args:
        description: the robot (MJCF, frames, feet, hands, push body).
        scene: one of ``humanoid_env.robots.SCENES``; its MJCF must hold a keyframe ``home``.
        joint_names: (na,) the actuated joints in the controller's order (the bridge's).
        sensed_contacts: contacts (feet, hands of the description) measured by `sensor`.
        pushes: the push schedule (disturbance events at ``push_body``).
        push_body: the pushed body's name (None: the description's).
        randomisation: the plant randomiser's ranges (None: the nominal model, untouched).
        legs_collide: whether the legs collide with each other (``collide_legs``; default: not,
            the robot's model as written).

    Attributes (read by the other parts): ``model``, ``data``, ``dt_physics`` [s], ``bridge``,
    ``sensor``, ``home_key``, ``root_body``, ``push_body`` (id), ``sole_sites`` (ids, ``FEET``'s
    order), ``q_home`` (na,) [rad] and ``com_nominal`` (3,) [m] of the home keyframe,
    ``torque_max`` (na,) [N m], ``joint_low``/``joint_high`` (na,) [rad], ``randomiser``.
    """

    def __init__(
        self, description: RobotDescription, scene: str, joint_names: tuple[str, ...], sensed_contacts: tuple[str, ...],
        pushes: PushSchedule, push_body: str | None, randomisation: PlantRandomisation | None, legs_collide: bool = False,
    ):  # fmt: skip
        self.description = description
        #: the scene's MJCF (robot + world).
        self.scene_xml: Path = description.scene_path(scene)
        self.model = mujoco.MjModel.from_xml_path(str(self.scene_xml))
        if legs_collide:
            collide_legs(self.model, description)
        self.data = mujoco.MjData(self.model)
        self.dt_physics = float(self.model.opt.timestep)
        self.bridge = SimBridge(self.model, joint_names, root_joint=description.root_joint)
        self.na = len(joint_names)
        limbs = {**description.feet, **description.hands}
        self.sensor = ContactSensor(self.model, {name: limbs[name].geom for name in sensed_contacts})
        self.home_key = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_KEY, "home")
        if self.home_key < 0:
            raise ValueError(f"{self.scene_xml} has no keyframe named 'home'")
        self.root_body = int(self.model.jnt_bodyid[self.joint_id(description.root_joint)])
        push_body = push_body if push_body is not None else description.push_body
        self.push_body = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, push_body)
        if self.push_body < 0:
            allowed = f"None or the name of a body of the scene {self.scene_xml.name}"
            raise keyword_error("push_body", allowed, push_body)
        self.sole_sites = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, description.feet[f].site) for f in FEET]
        self._sole_sites = np.array(self.sole_sites)
        #: draws the simulated robot's physics per episode (None: the nominal model, untouched).
        self.randomiser = PlantRandomiser(self.model, self.root_body, self.bridge.actuator_ids, randomisation) if randomisation else None
        self.pushes = pushes
        self.set_home(None)
        self.torque_max = self.bridge.torque_max.copy()
        self.inverse_torque_max = 1.0 / self.torque_max
        ids = [self.joint_id(n) for n in joint_names]
        self.joint_low = self.model.jnt_range[ids, 0].copy()
        self.joint_high = self.model.jnt_range[ids, 1].copy()
        self._checked_data: mujoco.MjData | None = None  # whose arrays _state_views holds
        self._warning_counts = 0

    def joint_id(self, name: str) -> int:
        """MuJoCo id of the joint ``name`` (``ValueError`` naming the scene and robot if absent)."""
        joint = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if joint < 0:
            raise ValueError(f"{self.scene_xml} has no joint named {name!r} (robot {self.description.name!r})")
        return joint

    def set_home(self, qpos: np.ndarray | None) -> None:
        """Make ``qpos`` (nq,) the ``home`` keyframe (zero velocity; None: keep the scene's) and
        read the nominal posture ``q_home`` and CoM ``com_nominal`` from it; leaves ``data`` there."""
        if qpos is not None:
            self.model.key_qpos[self.home_key] = qpos
            self.model.key_qvel[self.home_key] = 0.0
        mujoco.mj_resetDataKeyframe(self.model, self.data, self.home_key)
        mujoco.mj_forward(self.model, self.data)
        self.q_home = self.data.qpos[self.bridge.joint_qpos].copy()
        self.com_nominal = self.data.subtree_com[self.root_body].copy()

    def home_pinocchio(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q, v)`` of the home keyframe at rest, pinocchio's convention."""
        qpos = self.model.key_qpos[self.home_key].copy()
        return self.bridge.to_pinocchio(qpos, np.zeros(self.model.nv))

    # -- an episode -------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, init_noise_rad: float) -> dict[str, Any] | None:
        """Start an episode: draw the plant (with a randomiser), go to the home keyframe with
        U(-``init_noise_rad``, ``init_noise_rad``) on every joint (clipped to its range) at rest,
        forward; return the randomiser's draws (None without one)."""
        m, d = self.model, self.data
        drawn = self.randomiser.draw(rng, d) if self.randomiser is not None else None
        mujoco.mj_resetDataKeyframe(m, d, self.home_key)
        noise = rng.uniform(-1.0, 1.0, self.na) * init_noise_rad
        d.qpos[self.bridge.joint_qpos] = np.clip(self.q_home + noise, self.joint_low, self.joint_high)
        mujoco.mj_forward(m, d)
        self._warning_counts = self.bad_state_warning_count()
        self.pushes.reset(rng, 0.0)
        return drawn

    def step(self) -> bool:
        """One physics step (``ctrl`` already set); whether the state it made is sound (finite,
        and no new bad-state warning from MuJoCo)."""
        mujoco.mj_step(self.model, self.data)
        return not (self.bad_state_warning_count() > self._warning_counts or not self.state_is_finite())

    # -- soundness ---------------------------------------------------------------------------
    def _state_views(self, d: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(qpos, qvel, act, warning counts)`` of ``d``: views into it, made once per MjData."""
        if self._checked_data is not d:
            self._checked_views = (d.qpos, d.qvel, d.act, d.warning.number)
            self._checked_data = d
        return self._checked_views

    def bad_state_warning_count(self) -> int:
        number = self._state_views(self.data)[3]
        return int(number[_BAD_QPOS] + number[_BAD_QVEL] + number[_BAD_QACC])

    def state_is_finite(self) -> bool:
        qpos, qvel, act, _ = self._state_views(self.data)
        # A sum is NaN or inf as soon as one entry is (or the state is absurdly large): one pass each.
        return isfinite(add_reduce(qpos)) and isfinite(add_reduce(qvel)) and isfinite(add_reduce(act))

    # -- measurements (of ``d``: the simulator's data by default, or an estimate's copy) --------
    def base_rotation(self, d: mujoco.MjData | None = None) -> np.ndarray:
        """(3, 3) world rotation of the base (pelvis)."""
        return self.bridge.base_rotation((self.data if d is None else d).qpos)

    def gravity_in_base(self, d: mujoco.MjData | None = None) -> np.ndarray:
        """(3,) unit gravity direction in base axes ([0, 0, -1] when upright)."""
        return self.base_rotation(d).T @ _DOWN

    def tilt(self, d: mujoco.MjData | None = None) -> float:
        """Angle between the base's z axis and the vertical [rad]."""
        return float(np.arccos(clip_scalar(-self.gravity_in_base(d)[2], -1.0, 1.0)))

    def support_centre(self, d: mujoco.MjData | None = None) -> np.ndarray:
        """(3,) midpoint of the two sole centres, world [m]."""
        # ndarray.mean(axis=0)'s own steps (a sum over the rows, then a division by their count)
        # without its Python wrapper: the same value.
        centre = add_reduce((self.data if d is None else d).site_xpos[self._sole_sites], axis=0)
        centre /= len(self._sole_sites)
        return centre

    def base_height(self, d: mujoco.MjData | None = None) -> float:
        """Base (pelvis) height above the support centre [m]."""
        d = self.data if d is None else d
        return float(d.qpos[self.bridge.root_qpos + 2] - self.support_centre(d)[2])

    def com(self, d: mujoco.MjData | None = None) -> np.ndarray:
        """(3,) robot CoM, world [m] (MuJoCo's subtree CoM of the root body)."""
        return (self.data if d is None else d).subtree_com[self.root_body].copy()

    def com_velocity(self, d: mujoco.MjData | None = None) -> np.ndarray:
        """(3,) robot CoM velocity, world [m/s] (runs ``mj_subtreeVel`` on ``d``)."""
        d = self.data if d is None else d
        mujoco.mj_subtreeVel(self.model, d)
        return d.subtree_linvel[self.root_body].copy()

    def contact_forces(self) -> dict[str, np.ndarray]:
        """Contact name -> (3,) world force [N] on it, measured by MuJoCo now."""
        return self.sensor.measure(self.data)

    def foot_normal_forces(self) -> np.ndarray:
        """(2,) the vertical world forces [N] on the feet (``FEET``' order), measured by MuJoCo now
        (`contact_forces`' z entries to round-off: ``ContactSensor.vertical_forces``)."""
        return self.sensor.vertical_forces(self.data, FEET)

    def sole_tilts(self, normal: np.ndarray, forces: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
        """Foot name -> ``(normal force along normal [N], sole tilt from normal [rad])`` (the
        contact-loss guard's measurements), from ``forces`` (`contact_forces`)."""
        measurements = {}
        for name, site in zip(FEET, self.sole_sites, strict=True):
            sole_z = self.data.site_xmat[site].reshape(3, 3)[:, 2]
            tilt = math.acos(max(-1.0, min(1.0, float(sole_z @ normal))))
            measurements[name] = (float(forces[name] @ normal), tilt)
        return measurements

    #: (3,) unit normal of flat ground, world axes.
    UP = _UP
    DOWN = _DOWN

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_checked_data"] = None  # _state_views makes its views of the copy's data anew
        state.pop("_checked_views", None)
        return state


def collide_legs(model: mujoco.MjModel, description: RobotDescription) -> None:
    """Make ``model``'s two legs collide with each other, in place, and change no other pair.

    Robot geoms other than the feet and hands collide only with the environment (our MJCF
    convention: ``assets/robot.xml``), so legs would pass through each other unseen. Here each
    leg's geoms (``description.legs[side]``: thigh and shank) and its foot get that leg's bit of
    [`LEG_BITS`][humanoid_env.envs.plant.LEG_BITS] in ``contype`` and the other leg's in ``conaffinity``: a left geom
    and a right geom now collide; two geoms of one leg, and a leg geom and anything else, collide
    as before (the bits are new to the model). The bodies' bits, which MuJoCo's broadphase reads,
    are recomputed as the union of their geoms' (as the compiler makes them).

    Raises:
        ValueError: a leg geom the model does not have, or a model that already uses the bits.
    """
    used = int(np.bitwise_or.reduce(model.geom_contype)) | int(np.bitwise_or.reduce(model.geom_conaffinity))
    if used & (LEG_BITS["left"] | LEG_BITS["right"]):
        raise ValueError(f"the model already uses contype/conaffinity bits {LEG_BITS}: cannot make its legs collide")
    geoms = {}
    for side in ("left", "right"):
        for name in (*description.legs[side], description.feet[f"{side}_foot"].geom):
            geoms[name] = (side, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name))
            if geoms[name][1] < 0:
                raise ValueError(f"robot {description.name!r}: its model has no leg geom named {name!r} (RobotDescription.legs)")
    for side, geom in geoms.values():  # (all names checked first: a bad one leaves the model as it was)
        model.geom_contype[geom] |= LEG_BITS[side]
        model.geom_conaffinity[geom] |= LEG_BITS["right" if side == "left" else "left"]
    for body in range(model.nbody):
        first, count = int(model.body_geomadr[body]), int(model.body_geomnum[body])
        own = slice(first, first + count) if first >= 0 else slice(0, 0)  # the body's geoms
        model.body_contype[body] = int(np.bitwise_or.reduce(model.geom_contype[own], initial=0))
        model.body_conaffinity[body] = int(np.bitwise_or.reduce(model.geom_conaffinity[own], initial=0))
