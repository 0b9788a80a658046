"""A URDF robot as a tree of rigid bodies: each moving joint's child link, with its fixed links fused.

MuJoCo and pinocchio both weld a body that has no joint to its parent, but they do it in their
own ways (pinocchio's MJCF parser appends such a body's inertia to the parent joint; MuJoCo keeps
a body). Fusing the fixed links here, once, gives both libraries the same bodies with one
explicit inertial each, and the fused links survive as named frames (their placements in the body
that carries them).

Only what a rigid-body model needs is read: links' inertials and visual meshes, and joints'
type, origin, axis and limits. Lengths [m], angles [rad], masses [kg], inertias [kg m^2].
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MOVING_JOINT_TYPES = ("revolute", "continuous", "prismatic")


class UrdfError(ValueError):
    """The URDF cannot be read as a tree of rigid bodies."""


@dataclass(frozen=True)
class Placement:
    """A rigid transform: ``x_parent = rotation @ x_child + translation``."""

    rotation: np.ndarray  # (3, 3)
    translation: np.ndarray  # (3,) [m]

    @staticmethod
    def identity() -> Placement:
        return Placement(np.eye(3), np.zeros(3))

    def __mul__(self, other: Placement) -> Placement:
        return Placement(self.rotation @ other.rotation, self.rotation @ other.translation + self.translation)


@dataclass(frozen=True)
class Inertial:
    """Mass [kg], centre of mass (3,) [m] and inertia (3, 3) about it [kg m^2], in a body's axes."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class Joint:
    """A moving URDF joint (the joint frame is its child link's frame)."""

    name: str
    type: str
    axis: np.ndarray  # (3,) unit vector in the child link's axes
    lower: float
    upper: float
    effort: float  # [N m] or [N]
    velocity: float  # [rad/s] or [m/s]


@dataclass
class RigidBody:
    """A moving link with the fixed links fused into it.

    ``placement``: this body's frame in its parent body's frame at zero joint position.
    ``frames``: each fused link's placement in this body's frame (the body's own link excluded).
    ``link_inertials``: each of its links' own inertial (fused ones included), in this body's frame.
    ``visuals``: (mesh file, placement in this body's frame) of every fused link's visual meshes.
    """

    name: str
    parent: str | None
    placement: Placement
    joint: Joint | None
    inertial: Inertial
    frames: dict[str, Placement] = field(default_factory=dict)
    link_inertials: dict[str, Inertial] = field(default_factory=dict)
    visuals: list[tuple[str, Placement]] = field(default_factory=list)


def rpy_matrix(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw (fixed axes x, y, z) -> (3, 3) rotation ``Rz(yaw) Ry(pitch) Rx(roll)``."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _vector(element: ET.Element | None, attribute: str, default: str) -> np.ndarray:
    text = default if element is None else element.get(attribute, default)
    return np.array([float(x) for x in text.split()])


def _origin(element: ET.Element) -> Placement:
    origin = element.find("origin")
    return Placement(rpy_matrix(_vector(origin, "rpy", "0 0 0")), _vector(origin, "xyz", "0 0 0"))


def _inertial(link: ET.Element) -> Inertial | None:
    element = link.find("inertial")
    if element is None:
        return None
    frame = _origin(element)
    mass = float(element.find("mass").get("value"))
    i = {k: float(v) for k, v in element.find("inertia").attrib.items()}
    inertia = np.array(
        [[i["ixx"], i["ixy"], i["ixz"]], [i["ixy"], i["iyy"], i["iyz"]], [i["ixz"], i["iyz"], i["izz"]]]
    )
    return Inertial(mass, frame.translation, frame.rotation @ inertia @ frame.rotation.T)


def combine(parts: list[tuple[Inertial, Placement]]) -> Inertial:
    """The inertial of rigidly joined parts, each given in its own frame placed in a common one."""
    mass = sum(part.mass for part, _ in parts)
    if mass <= 0:
        raise UrdfError("a moving body has no mass")
    coms = [placement.rotation @ part.com + placement.translation for part, placement in parts]
    com = sum(part.mass * c for (part, _), c in zip(parts, coms, strict=True)) / mass
    inertia = np.zeros((3, 3))
    for (part, placement), c in zip(parts, coms, strict=True):
        d = c - com  # parallel-axis theorem
        inertia += placement.rotation @ part.inertia @ placement.rotation.T
        inertia += part.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return Inertial(mass, com, inertia)


def read_urdf_bodies(path: str | Path) -> list[RigidBody]:
    """The moving bodies of a URDF, root first, then depth-first in the file's joint order.

    The root link becomes the first body (``parent`` None, no joint): a floating base is added by
    the caller. Every other body is the child of a moving joint; fixed joints are fused.
    """
    root_element = ET.parse(path).getroot()
    links = {link.get("name"): link for link in root_element.findall("link")}
    joints = root_element.findall("joint")
    children: dict[str, list[ET.Element]] = {}
    for joint in joints:
        children.setdefault(joint.find("parent").get("link"), []).append(joint)
    child_links = {joint.find("child").get("link") for joint in joints}
    roots = [name for name in links if name not in child_links]
    if len(roots) != 1:
        raise UrdfError(f"{path}: expected one root link, found {roots}")

    bodies: list[RigidBody] = []

    def visit(link_name: str, parent: str | None, placement: Placement, joint: Joint | None) -> None:
        body = RigidBody(link_name, parent, placement, joint, Inertial(0.0, np.zeros(3), np.zeros((3, 3))))
        bodies.append(body)
        parts: list[tuple[Inertial, Placement]] = []
        moving: list[tuple[str, Placement, Joint]] = []

        def fuse(name: str, in_body: Placement) -> None:
            link = links[name]
            inertial = _inertial(link)
            if inertial is not None:
                parts.append((inertial, in_body))
                body.link_inertials[name] = combine([(inertial, in_body)])
            for visual in link.findall("visual"):
                mesh = visual.find("geometry/mesh")
                if mesh is not None:
                    body.visuals.append((mesh.get("filename"), in_body * _origin(visual)))
            for element in children.get(name, []):
                child = element.find("child").get("link")
                child_placement = in_body * _origin(element)
                kind = element.get("type")
                if kind == "fixed":
                    body.frames[child] = child_placement
                    fuse(child, child_placement)
                elif kind in MOVING_JOINT_TYPES:
                    moving.append((child, child_placement, _joint(element)))
                else:
                    raise UrdfError(
                        f"{path}: joint {element.get('name')!r} of type {kind!r} is not supported"
                    )

        fuse(link_name, Placement.identity())
        body.inertial = combine(parts)
        for child, child_placement, child_joint in moving:
            visit(child, link_name, child_placement, child_joint)

    visit(roots[0], None, Placement.identity(), None)
    return bodies


def _joint(element: ET.Element) -> Joint:
    axis = _vector(element.find("axis"), "xyz", "1 0 0")
    limit = element.find("limit")
    kind = element.get("type")
    lower, upper = (
        (-np.inf, np.inf) if kind == "continuous" else (float(limit.get("lower")), float(limit.get("upper")))
    )
    return Joint(
        name=element.get("name"),
        type=kind,
        axis=axis / np.linalg.norm(axis),
        lower=lower,
        upper=upper,
        effort=float(limit.get("effort")),
        velocity=float(limit.get("velocity")),
    )
