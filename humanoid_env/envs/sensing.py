"""Contact forces measured by MuJoCo, per named contact (a geom), in world axes [N]."""

from __future__ import annotations

import mujoco
import numpy as np

from humanoid_env import _physics


class ContactSensor:
    """Sums ``mj_contactForce`` over the contacts that touch each named geom.

    Args:
        model: the MuJoCo model.
        geoms: contact name -> geom name (e.g. ``{"left_foot": "left_foot"}``).

    `measure` returns contact name -> (3,) force [N] in world axes, the force that the
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
        self._force_in_frame = self._wrench[:3]
        self._geom_lists: dict[tuple[str, ...], list[int]] = {}

    def __setstate__(self, state: dict) -> None:
        """Restore a copy (``copy.deepcopy``, ``pickle``): ``_force_in_frame`` views ``_wrench``,
        which a copy of the arrays would not (``mj_contactForce`` writes one, the sum reads the other)."""
        self.__dict__.update(state)
        self._force_in_frame = self._wrench[:3]
        self._geom_lists = {}

    def measure(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        return self._sum(data, self.geom_ids)

    def vertical_forces(self, data: mujoco.MjData, names: tuple[str, ...]) -> np.ndarray:
        """(len(names),) the vertical forces [N] on the contacts ``names``, summed in compiled code
        (the compiled physics loop's module, the landing watch's sum: no Python per contact): `measure`'s vertical entries to round-off (numpy's matrix product here fuses
        the multiply-adds, the compiled sum does not: about 1 read in 4,000 differs in the last bit)."""
        geoms = self._geom_lists.get(names)
        if geoms is None:
            geoms = self._geom_lists[names] = [self.geom_ids[name] for name in names]
        return _physics.vertical_contact_forces(self.model, data, geoms)

    def force(self, data: mujoco.MjData, name: str) -> np.ndarray:
        """(3,) world force [N] on the contact ``name``: `measure`'s entry, for one contact."""
        return self._sum(data, {name: self.geom_ids[name]})[name]

    def _sum(self, data: mujoco.MjData, geom_ids: dict[str, int]) -> dict[str, np.ndarray]:
        """Contact name -> (3,) world force [N] on its geom, for the names of ``geom_ids``."""
        forces = {name: np.zeros(3) for name in geom_ids}
        ncon = data.ncon
        if not ncon:
            return forces
        contacts = data.contact  # arrays over the contacts (views): one read each, not one struct per contact
        geom1, geom2 = contacts.geom1.tolist(), contacts.geom2.tolist()
        frames = None
        for i in range(ncon):
            g1, g2 = geom1[i], geom2[i]
            world = None
            for name, gid in geom_ids.items():
                if gid != g1 and gid != g2:
                    continue
                if world is None:  # this contact's force (the same for every name it touches)
                    if frames is None:
                        frames = contacts.frame.reshape(ncon, 3, 3)
                    world = self._world_force(data, i, frames)
                # the force in the contact frame acts on geom2 (geom1 receives the opposite).
                forces[name] += world if gid == g2 else -world
        return forces

    def _world_force(self, data: mujoco.MjData, i: int, frames: np.ndarray) -> np.ndarray:
        """(3,) force of contact ``i`` in world axes, as it acts on its geom2 [N]; ``frames``:
        (ncon, 3, 3) the contacts' frames (rows: normal, from geom1 to geom2, then two tangents)."""
        mujoco.mj_contactForce(self.model, data, i, self._wrench)
        return frames[i].T @ self._force_in_frame
