"""The Unitree G1 as a ``mujoco.MjSpec``, built from example-robot-data's URDF.

[`build_g1_spec`][humanoid_env.robots.g1_mjcf.build_g1_spec] turns ``g1_description/urdf/g1_29dof_rev_1_0.urdf`` into the robot-only
model and [`mjcf_text`][humanoid_env.robots.g1_mjcf.mjcf_text] writes it; [`.g1_model`][humanoid_env.robots.g1_model] caches the file that MuJoCo and
pinocchio (``wbc_layer.RobotModel.from_mjcf``) both read. What the builder decides:

- Bodies: each moving URDF link, with the fixed links fused into it ([`.urdf_tree`][humanoid_env.robots.urdf_tree]); the
  fused links stay as sites of their own name (``head_link``, ``imu_in_torso``, ``d435_link``,
  ``left_rubber_hand``, ...). Names as in the URDF (``pelvis``, ``torso_link``, joints
  ``left_hip_pitch_joint``, ...). Free joint ``root`` on the pelvis, placed so that at qpos0
  (all joints 0, straight legs) the soles touch z = 0.
- Inertia: an explicit ``<inertial>`` per body from the URDF (principal axes), none from geoms.
  Total mass 33.34 kg (the URDF's links).
- Actuators: one ``motor`` per joint, named like it, gear 1, ctrlrange = the URDF effort limit
  [N m], so the torque limits the controller reads (gear x ctrlrange) are the URDF's.
- Joints: ranges from the URDF; armature = the reflected rotor inertia of each joint's Unitree
  motor (`G1_ARMATURE`), damping [`G1_DAMPING`][humanoid_env.robots.g1_mjcf.G1_DAMPING] on every joint.
- Contacts: only the feet and the hands collide, as in our ``assets/robot.xml`` (contype =
  conaffinity = 1, friction 1.0, condim 3, MuJoCo's default solref/solimp): a flat box per foot
  ([`G1_FOOT_BOX`][humanoid_env.robots.g1_mjcf.G1_FOOT_BOX]) instead of the URDF's four sole spheres, and a sphere per hand.
  Each leg also has a thigh and a shank capsule (``<side>_thigh``, ``<side>_shank``) that
  collide with nothing unless a scene makes the legs collide with each other.
- Sites: ``left_sole``/``right_sole`` at the centre of each box's bottom face (axes of the ankle
  roll link: flat foot = site axes level), ``left_hand``/``right_hand`` at the hands' sphere
  centres, ``torso`` on the torso link (where the real robot's torso IMU sits).
- Visual meshes (``visual_meshes=True``, the default): the URDF's STL files from the package,
  by absolute path, group 2, contype = conaffinity = 0, no mass.
- Physics options as in ``assets/robot.xml``: 2 ms step, implicitfast, Newton.
- No keyframe (see [`.g1_model`][humanoid_env.robots.g1_model]).

NOTE: MuJoCo's XML writer keeps 6 significant digits of every number, so the file's masses,
inertias, positions and joint ranges differ from the URDF's by up to 5e-6 relative (the mass
matrix by about 5e-8, tests/test_g1_model.py). Both simulator and controller read the file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np

from humanoid_env.robots.urdf_tree import Placement, RigidBody, read_urdf_bodies

#: Bump when the builder's output changes: cached files' names depend on it.
BUILDER_VERSION = "2"
PACKAGE = "example-robot-data"
#: The URDF's path inside the package's ``share/example-robot-data`` folder.
G1_URDF = "robots/g1_description/urdf/g1_29dof_rev_1_0.urdf"
ROOT_JOINT = "root"

#: Reflected rotor inertia [kg m^2] of the G1's motors (rotor inertia x gear ratio^2), as used
#: by the G1 models of BeyondMimic / mjlab: 7520-14 (hip pitch, hip yaw, waist yaw), 7520-22
#: (hip roll, knee), 5020 (shoulders, elbows, wrist roll), 4010 (wrist pitch and yaw). The
#: ankles and the waist's roll and pitch are each driven by two 5020 motors through a linkage:
#: 2 x 5020. (MuJoCo Menagerie's earlier g1.xml uses 0.01 on every joint: the same order.)
_ARMATURE_5020 = 0.003609725
_ARMATURE_7520_14 = 0.010177520
_ARMATURE_7520_22 = 0.025101925
_ARMATURE_4010 = 0.00425
G1_ARMATURE = {
    "hip_pitch": _ARMATURE_7520_14,
    "hip_yaw": _ARMATURE_7520_14,
    "waist_yaw": _ARMATURE_7520_14,
    "hip_roll": _ARMATURE_7520_22,
    "knee": _ARMATURE_7520_22,
    "ankle_pitch": 2 * _ARMATURE_5020,
    "ankle_roll": 2 * _ARMATURE_5020,
    "waist_roll": 2 * _ARMATURE_5020,
    "waist_pitch": 2 * _ARMATURE_5020,
    "shoulder_pitch": _ARMATURE_5020,
    "shoulder_roll": _ARMATURE_5020,
    "shoulder_yaw": _ARMATURE_5020,
    "elbow": _ARMATURE_5020,
    "wrist_roll": _ARMATURE_5020,
    "wrist_pitch": _ARMATURE_4010,
    "wrist_yaw": _ARMATURE_4010,
}
#: Viscous joint damping [N m s/rad] on every joint: MuJoCo Menagerie's g1.xml value (0.5, also
#: our robot.xml's default). The controller pays for it (``RobotModel.h`` includes it). No dry
#: friction (Menagerie's frictionloss 0.1): the controller's model has no term for it.
G1_DAMPING = 0.5

#: Foot collision box in the ankle roll link's frame [m]: its x-y extent is the bounding box of
#: that link's mesh (x from -0.0658 to 0.1424, y +-0.0378), its bottom face at the mesh's lowest
#: point, z = -0.0354 (the URDF's four sole spheres, radius 5 mm at z = -0.03, touch z = -0.035);
#: 1 cm thick. The URDF's sole points span x -0.05..0.12, y +-0.025..0.03: about 85 % of this box.
G1_FOOT_BOX = {
    "centre_x": 0.0383,
    "half_length": 0.1041,
    "half_width": 0.0378,
    "sole_z": -0.0354,
    "half_height": 0.01,
}
#: Radius [m] of the hands' collision spheres, centred on the rubber hand's centre of mass (the
#: hand's mesh spans 0.132 x 0.067 x 0.107 m: the sphere is about the closed hand's thickness).
G1_HAND_RADIUS = 0.04
#: The legs' collision capsules [m]: the thigh's (hip yaw link to the knee) and the shank's radii,
#: and the share of the knee to ankle distance the shank's capsule covers (it stops short of the
#: foot's box).
G1_THIGH_RADIUS = 0.055
G1_SHANK_RADIUS = 0.045
G1_SHANK_LENGTH_SHARE = 0.8
#: Friction of feet and hands in MuJoCo (sliding, torsional, rolling), as in assets/robot.xml.
CONTACT_FRICTION = (1.0, 0.005, 0.0001)


def share_dir(urdf: Path) -> Path:
    """The package's ``share/example-robot-data`` folder, from the G1 URDF's path in it."""
    return urdf.parents[len(Path(G1_URDF).parts) - 1]


def _mesh_file(share: Path, filename: str) -> Path:
    """``package://example-robot-data/robots/...`` -> the file in the installed package."""
    prefix = f"package://{PACKAGE}/"
    if not filename.startswith(prefix):
        raise ValueError(f"unexpected mesh reference {filename!r}")
    return share / filename[len(prefix) :]


def mjcf_text(spec: mujoco.MjSpec, source: str) -> str:
    """``spec.to_xml()`` with each plain ``<general>`` actuator written as the ``<motor>`` it is.

    NOTE: MuJoCo writes every actuator as ``<general>``; one with only a joint, gear and
    ctrlrange (gain 1, no bias, no dynamics) is a motor, and the controller's torque-limit reader
    (``wbc_layer.mjcf_actuators``) reads ``<motor>`` elements. Also adds a comment on the source.
    """
    root = ET.fromstring(spec.to_xml())
    for actuator in root.iter("actuator"):
        for element in actuator:
            extra = set(element.attrib) - _PLAIN_MOTOR_ATTRIBUTES
            if element.tag != "general" or extra:
                raise ValueError(
                    f"actuator {element.get('name')!r} is not a plain motor: <{element.tag}> {sorted(extra)}"
                )
            element.tag = "motor"
    root.insert(
        0, ET.Comment(f" Built by humanoid_env.robots.g1_mjcf (builder {BUILDER_VERSION}) from {source}. ")
    )
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


_PLAIN_MOTOR_ATTRIBUTES = {"name", "joint", "gear", "ctrlrange", "ctrllimited"}


def _quat(rotation: np.ndarray) -> np.ndarray:
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rotation).ravel())
    return _clean(quat)


def _clean(values: np.ndarray) -> np.ndarray:
    """Rounding residue (|x| < 1e-12, e.g. 4e-16 m from composing a transform and its inverse) -> 0."""
    values = np.array(values, dtype=float)
    values[np.abs(values) < 1e-12] = 0.0
    return values


def _joint_kind(joint_name: str) -> str:
    """``left_hip_pitch_joint`` -> ``hip_pitch``."""
    return joint_name.removeprefix("left_").removeprefix("right_").removesuffix("_joint")


def build_g1_spec(urdf: Path, visual_meshes: bool = True) -> mujoco.MjSpec:
    """The G1 as an ``MjSpec`` (see the module docstring); compiled once to place the root."""
    share = share_dir(urdf)
    spec = mujoco.MjSpec()
    spec.modelname = "unitree_g1_29dof"
    spec.compiler.degree = False
    spec.compiler.autolimits = True
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.solver = mujoco.mjtSolver.mjSOL_NEWTON
    spec.option.iterations = 50
    spec.option.tolerance = 1e-10
    meshes: dict[Path, str] = {}
    bodies: dict[str, mujoco.MjsBody] = {}
    rigid_bodies = {rigid.name: rigid for rigid in read_urdf_bodies(urdf)}
    for rigid in rigid_bodies.values():
        parent = spec.worldbody if rigid.parent is None else bodies[rigid.parent]
        body = bodies[rigid.name] = _add_body(parent, rigid)
        if visual_meshes:
            for filename, placement in rigid.visuals:
                _add_visual(spec, body, meshes, _mesh_file(share, filename), placement)
    for side in ("left", "right"):
        _add_foot(bodies[f"{side}_ankle_roll_link"], side)
        _add_leg(bodies, rigid_bodies, side)
        wrist = rigid_bodies[f"{side}_wrist_yaw_link"]
        _add_hand(bodies[wrist.name], side, wrist.link_inertials[f"{side}_rubber_hand"].com)
    for rigid in rigid_bodies.values():
        if rigid.joint is not None:
            _add_motor(spec, rigid.joint.name, rigid.joint.effort)
    imu = rigid_bodies["torso_link"].frames["imu_in_torso"]
    bodies["torso_link"].add_site(name="torso", pos=_clean(imu.translation), quat=_quat(imu.rotation))
    _place_root_on_ground(spec)
    return spec


def _add_body(parent: mujoco.MjsBody, rigid: RigidBody) -> mujoco.MjsBody:
    body = parent.add_body(
        name=rigid.name, pos=_clean(rigid.placement.translation), quat=_quat(rigid.placement.rotation)
    )
    if rigid.joint is None:
        body.add_freejoint(name=ROOT_JOINT)
    else:
        joint = rigid.joint
        if joint.type not in ("revolute", "continuous"):
            raise ValueError(
                f"joint {joint.name!r}: only hinge joints are expected in the G1, got {joint.type!r}"
            )
        body.add_joint(
            name=joint.name,
            type=mujoco.mjtJoint.mjJNT_HINGE,
            axis=joint.axis,
            range=[joint.lower, joint.upper],
            limited=mujoco.mjtLimited.mjLIMITED_TRUE,
            armature=G1_ARMATURE[_joint_kind(joint.name)],
            damping=G1_DAMPING,
        )
    # NOTE: explicit inertia in principal axes (MuJoCo's form; pinocchio's MJCF parser reads it too).
    moments, axes = np.linalg.eigh(rigid.inertial.inertia)
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    body.explicitinertial = True
    body.mass = rigid.inertial.mass
    body.ipos = _clean(rigid.inertial.com)
    body.iquat = _quat(axes)
    body.inertia = moments
    for name, placement in rigid.frames.items():
        body.add_site(name=name, pos=_clean(placement.translation), quat=_quat(placement.rotation))
    return body


def _add_motor(spec: mujoco.MjSpec, joint: str, effort: float) -> None:
    """A torque motor on ``joint``: gear 1, ctrl = torque [N m] within the URDF's effort limit."""
    motor = spec.add_actuator(name=joint, target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT)
    motor.set_to_motor()
    motor.gear = [1.0, 0, 0, 0, 0, 0]
    motor.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    motor.ctrlrange = [-effort, effort]


def _add_visual(
    spec: mujoco.MjSpec, body: mujoco.MjsBody, meshes: dict[Path, str], file: Path, placement: Placement
):
    if file not in meshes:
        meshes[file] = file.stem
        spec.add_mesh(name=file.stem, file=str(file))
    body.add_geom(
        type=mujoco.mjtGeom.mjGEOM_MESH,
        meshname=meshes[file],
        pos=_clean(placement.translation),
        quat=_quat(placement.rotation),
        group=2,
        contype=0,
        conaffinity=0,
        density=0,
        rgba=[0.7, 0.7, 0.7, 1.0],
    )


def _add_contact_geom(body: mujoco.MjsBody, **kwargs) -> None:
    body.add_geom(
        contype=1,
        conaffinity=1,
        condim=3,
        friction=CONTACT_FRICTION,
        group=3,
        rgba=[0.2, 0.2, 0.25, 0.5],
        **kwargs,
    )


def _add_foot(body: mujoco.MjsBody, side: str) -> None:
    box = G1_FOOT_BOX
    centre = [box["centre_x"], 0.0, box["sole_z"] + box["half_height"]]
    size = [box["half_length"], box["half_width"], box["half_height"]]
    _add_contact_geom(body, name=f"{side}_foot", type=mujoco.mjtGeom.mjGEOM_BOX, pos=centre, size=size)
    body.add_site(name=f"{side}_sole", pos=[box["centre_x"], 0.0, box["sole_z"]])


def _add_leg(bodies: dict[str, mujoco.MjsBody], rigid_bodies: dict[str, RigidBody], side: str) -> None:
    """The leg's capsules above the foot, ``<side>_thigh`` (hip yaw link to the knee) and
    ``<side>_shank`` (knee to ``G1_SHANK_LENGTH_SHARE`` of the way to the ankle): no contact and no
    mass by default (contype = conaffinity = 0); a scene whose legs collide sets their bits
    (``humanoid_env.envs.plant.collide_legs``)."""
    for name, body, child, radius, share in (
        ("thigh", f"{side}_hip_yaw_link", f"{side}_knee_link", G1_THIGH_RADIUS, 1.0),
        ("shank", f"{side}_knee_link", f"{side}_ankle_pitch_link", G1_SHANK_RADIUS, G1_SHANK_LENGTH_SHARE),
    ):
        end = share * np.asarray(rigid_bodies[child].placement.translation, dtype=float)
        bodies[body].add_geom(
            name=f"{side}_{name}", type=mujoco.mjtGeom.mjGEOM_CAPSULE, fromto=[0.0, 0.0, 0.0, *_clean(end)],
            size=[radius, 0, 0], contype=0, conaffinity=0, density=0, group=3, rgba=[0.2, 0.2, 0.25, 0.3],
        )  # fmt: skip


def _add_hand(body: mujoco.MjsBody, side: str, centre: np.ndarray) -> None:
    """Sphere and site at ``centre`` (the rubber hand's centre of mass, in the wrist yaw link's frame)."""
    _add_contact_geom(
        body,
        name=f"{side}_hand",
        type=mujoco.mjtGeom.mjGEOM_SPHERE,
        pos=_clean(centre),
        size=[G1_HAND_RADIUS, 0, 0],
    )
    body.add_site(name=f"{side}_hand", pos=_clean(centre))


def _place_root_on_ground(spec: mujoco.MjSpec) -> None:
    """Raise the pelvis so that the soles touch z = 0 at qpos0 (all joints 0)."""
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    sole_z = min(data.site(f"{side}_sole").xpos[2] for side in ("left", "right"))
    pelvis = spec.body("pelvis")
    pelvis.pos = [0.0, 0.0, pelvis.pos[2] - sole_z]
