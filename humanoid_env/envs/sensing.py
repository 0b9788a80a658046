"""Contact forces measured by MuJoCo, per named contact (a geom), in world axes [N]."""

from __future__ import annotations

import mujoco
import numpy as np


class ContactSensor:
    """Sums ``mj_contactForce`` over the contacts that touch each named geom.

    Args:
        model: the MuJoCo model.
        geoms: contact name -> geom name (e.g. ``{"left_foot": "left_foot"}``).

    :meth:`measure` returns contact name -> (3,) force [N] in world axes, the force that the
    environment exerts **on** the robot's geom (the normal component is positive when pushing).
    """

    def __init__(self, model: mujoco.MjModel, geoms: dict[str, str]):
        self.model = model
        self.geom_ids: dict[str, int] = {}
        for name, geom in geoms.items():
            gid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, geom)
            if gid < 0:
                raise ValueError(f"contact {name!r}: geom {geom!r} not in the MuJoCo model")
            self.geom_ids[name] = gid
        self._wrench = np.zeros(6)

    def measure(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        forces = {name: np.zeros(3) for name in self.geom_ids}
        for i in range(data.ncon):
            contact = data.contact[i]
            for name, gid in self.geom_ids.items():
                if gid not in (contact.geom1, contact.geom2):
                    continue
                mujoco.mj_contactForce(self.model, data, i, self._wrench)
                # contact.frame rows: normal (from geom1 to geom2), then two tangents.
                world = contact.frame.reshape(3, 3).T @ self._wrench[:3]
                # the force in the contact frame acts on geom2 (geom1 receives the opposite).
                forces[name] += world if gid == contact.geom2 else -world
        return forces
