"""Plant mismatch: the simulated robot's physics drawn per episode, the controller's model nominal.

Every figure of the nominal controller is otherwise for a perfect model: its pinocchio model
and the simulated robot come from the same MJCF. [`PlantRandomisation`][humanoid_env.envs.randomisation.PlantRandomisation] draws, at each
reset, the simulated robot's link masses and CoM positions, joint damping and armature, the
contact friction and the actuators' strength from documented ranges, while the controller keeps
the nominal model. Off by default (the env keyword ``randomise=None``): the model is then never
touched and no random number is drawn, so default trajectories are unchanged.

Presets (``randomise="moderate"`` / ``"hard"``), after what published sim-to-real work draws:

- *Sim-to-Real: Learning Agile Locomotion For Quadruped Robots* (Tan et al., RSS 2018) draws
  link masses and motor strength within +-20 % of nominal, inertias within +-50 % and the contact
  friction between 0.5 and 1.25: ``"hard"`` takes +-20 % for masses and strength, +-50 % for
  joint damping and armature (the terms closest to their motor friction and inertia), and
  friction from 0.4 (below their lower end: our controller assumes 0.7, see
  the robot description's ``controller_friction``) to 1.0 (the scene's).
- *Learning to Walk in Minutes Using Massively Parallel Deep Reinforcement Learning* (Rudin et al.,
  CoRL 2021) trains with friction in [0.5, 1.25] and a base mass changed by up to 1 kg (about 3 %
  of our 37.4 kg): ``"moderate"`` keeps half of ``"hard"``'s spreads (+-10 % masses and strength,
  +-20 % damping and armature, friction 0.6-1.0) and moves link CoMs by up to 1 cm (``"hard"``:
  2 cm), errors of the size a CAD model makes.

Limits: every scale's ``hi`` is at most 10 (10x nominal), the friction's at most 3, the CoM
offset at most 0.1 m ([`RANGE_LIMITS`][humanoid_env.envs.randomisation.RANGE_LIMITS]); a larger value raises ``ValueError`` at
construction, naming ``randomise`` and the range.

Links are the robot's bodies (the subtree of its free joint); the scene's bodies (floor, wall,
board) keep their values, except the friction: MuJoCo combines two geoms' friction by their
maximum, so the drawn friction is written to every geom and applies to every contact.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import mujoco
import numpy as np

from humanoid_env.envs.kwargs import check_range, check_scalar, resolve_preset

#: The largest ``hi`` accepted for each range of [`PlantRandomisation`][humanoid_env.envs.randomisation.PlantRandomisation] (its unit): scales up
#: to 10x nominal and a friction coefficient up to 3, far past the ``"hard"`` preset's (1.2, 1.5,
#: 1.0) and the plants published work draws. A larger value raises ``ValueError`` at construction.
RANGE_LIMITS: dict[str, float] = {
    "link_mass_scale": 10.0, "joint_damping_scale": 10.0, "joint_armature_scale": 10.0,
    "actuator_strength_scale": 10.0, "contact_friction": 3.0,
}  # fmt: skip
#: The largest ``link_com_offset_m`` accepted [m].
MAX_LINK_COM_OFFSET_M = 0.1


@dataclass(frozen=True)
class PlantRandomisation:
    """Ranges of the per-episode draws; each ``(lo, hi)`` is sampled uniformly, ``(1, 1)`` = off.

    Limits ([`RANGE_LIMITS`][humanoid_env.envs.randomisation.RANGE_LIMITS]): every scale in ``(0, 10]`` (damping ``[0, 10]``), the friction
    in ``[0, 3]``, the CoM offset in ``[0, 0.1]`` m; anything else raises ``ValueError``.

    Attributes:
        link_mass_scale: multiplies each robot link's mass and inertia (one factor per link) [-].
        link_com_offset_m: each link's CoM moves by U(-d, d) per axis, in the link's frame [m].
        joint_damping_scale: multiplies each joint's damping [-].
        joint_armature_scale: multiplies each joint's armature (reflected rotor inertia) [-].
        contact_friction: sliding friction of every contact, or None to keep the model's [-].
        actuator_strength_scale: multiplies each actuator's gear, so the torque a joint gets is
            this factor times the torque the controller commands [-].
    """

    link_mass_scale: tuple[float, float] = (1.0, 1.0)
    link_com_offset_m: float = 0.0
    joint_damping_scale: tuple[float, float] = (1.0, 1.0)
    joint_armature_scale: tuple[float, float] = (1.0, 1.0)
    contact_friction: tuple[float, float] | None = None
    actuator_strength_scale: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        for name in ("link_mass_scale", "joint_damping_scale", "joint_armature_scale", "actuator_strength_scale"):
            object.__setattr__(self, name, check_range(name, getattr(self, name), 0.0, RANGE_LIMITS[name]))
            if getattr(self, name)[0] <= 0.0 and name != "joint_damping_scale":
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        check_scalar("link_com_offset_m", self.link_com_offset_m, 0.0, MAX_LINK_COM_OFFSET_M)
        if self.contact_friction is not None:
            friction = check_range("contact_friction", self.contact_friction, 0.0, RANGE_LIMITS["contact_friction"])
            object.__setattr__(self, "contact_friction", friction)


#: Named presets of the ``randomise`` keyword (see the module docstring for the sources).
PRESETS: dict[str, PlantRandomisation] = {
    "moderate": PlantRandomisation(
        link_mass_scale=(0.9, 1.1), link_com_offset_m=0.01, joint_damping_scale=(0.8, 1.2),
        joint_armature_scale=(0.8, 1.2), contact_friction=(0.6, 1.0), actuator_strength_scale=(0.9, 1.1),
    ),
    "hard": PlantRandomisation(
        link_mass_scale=(0.8, 1.2), link_com_offset_m=0.02, joint_damping_scale=(0.5, 1.5),
        joint_armature_scale=(0.5, 1.5), contact_friction=(0.4, 1.0), actuator_strength_scale=(0.8, 1.2),
    ),
}


def plant_randomisation(value: Any) -> PlantRandomisation | None:
    """The ``randomise`` keyword: None (off), a preset name, a dict of
    [`PlantRandomisation`][humanoid_env.envs.randomisation.PlantRandomisation] fields, or a [`PlantRandomisation`][humanoid_env.envs.randomisation.PlantRandomisation]."""
    return resolve_preset("randomise", value, PlantRandomisation, PRESETS, "range")


class PlantRandomiser:
    """Draws a [`PlantRandomisation`][humanoid_env.envs.randomisation.PlantRandomisation] into a MuJoCo model at each [`draw`][humanoid_env.envs.randomisation.PlantRandomiser.draw].

    Args:
        model: the scene; its values at construction are the nominal ones, restored before
            each draw (draws never compound).
        root_body: the robot's root body id (its subtree are the links).
        actuators: (na,) ids of the robot's actuators.
        ranges: what to draw.
    """

    def __init__(self, model: mujoco.MjModel, root_body: int, actuators: np.ndarray, ranges: PlantRandomisation):
        self.model, self.ranges = model, ranges
        self.links = np.flatnonzero(model.body_rootid == root_body)
        self.dofs = np.flatnonzero(np.isin(model.dof_bodyid, self.links))
        self.actuators = np.asarray(actuators)
        self._nominal = {
            "body_mass": model.body_mass.copy(), "body_inertia": model.body_inertia.copy(),
            "body_ipos": model.body_ipos.copy(), "dof_damping": model.dof_damping.copy(),
            "dof_armature": model.dof_armature.copy(), "geom_friction": model.geom_friction.copy(),
            "actuator_gear": model.actuator_gear.copy(),
        }

    def draw(self, rng: np.random.Generator, data: mujoco.MjData) -> dict[str, Any]:
        """Restore the nominal model, draw new values, recompute MuJoCo's derived constants.

        Returns what was drawn (per link, joint and actuator, in the order of `links`,
        `dofs`, `actuators`): the episode's ``info["randomisation"]``.
        """
        m, r = self.model, self.ranges
        for name, value in self._nominal.items():
            getattr(m, name)[:] = value
        mass_scale = rng.uniform(*r.link_mass_scale, self.links.size)
        m.body_mass[self.links] *= mass_scale
        m.body_inertia[self.links] *= mass_scale[:, None]
        com_offset = rng.uniform(-r.link_com_offset_m, r.link_com_offset_m, (self.links.size, 3))
        m.body_ipos[self.links] += com_offset
        damping_scale = rng.uniform(*r.joint_damping_scale, self.dofs.size)
        m.dof_damping[self.dofs] *= damping_scale
        armature_scale = rng.uniform(*r.joint_armature_scale, self.dofs.size)
        m.dof_armature[self.dofs] *= armature_scale
        friction = None
        if r.contact_friction is not None:
            friction = float(rng.uniform(*r.contact_friction))
            m.geom_friction[:, 0] = friction
        strength = rng.uniform(*r.actuator_strength_scale, self.actuators.size)
        m.actuator_gear[self.actuators, 0] *= strength
        mujoco.mj_setConst(m, data)  # subtree masses and the like follow the new masses
        drawn = {
            "link_mass_scale": mass_scale, "link_com_offset_m": com_offset, "joint_damping_scale": damping_scale,
            "joint_armature_scale": armature_scale, "contact_friction": friction, "actuator_strength_scale": strength,
        }
        return {"ranges": asdict(r), **drawn}
