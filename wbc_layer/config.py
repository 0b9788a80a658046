"""Controller configuration: everything robot-specific comes from here, nothing is hard-coded.

Defaults live in code (frozen dataclasses); [`controller_config_from_dict`][wbc_layer.config.controller_config_from_dict] builds one from
plain data (a YAML file's content) and rejects unknown keys with the list of valid ones.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields, replace
from typing import Any

from wbc_layer.errors import ConfigError

CONTACT_KINDS = ("foot", "point")
QP_SOLVERS = ("proxsuite", "daqp", "eiquadprog")
#: ``ControllerConfig.backend``: the compiled core is the one assembler and solver of the QP.
BACKENDS = ("compiled",)
#: Why ``backend="python"`` is refused (it was the Python reference tick until issue 36).
PYTHON_BACKEND_RETIRED = (
    "backend='python' (the Python reference tick) was retired: the compiled core is the only controller, and "
    "tests/oracles.py states its formulation in numpy; use backend='compiled' (the default)"
)
#: Allowed ``friction_facets`` (a pyramid needs 3; 64 is far past any accuracy the QP needs).
FRICTION_FACETS_RANGE = (3, 64)


def _is_real(value) -> bool:
    """A real number (int, float, numpy scalar), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class ContactConfig:
    """One contact. ``kind="foot"``: 6D wrench on a rectangle; ``"point"``: 3D force.

    Units: forces [N], lengths [m]; ``normal`` (point contacts) in world axes, into the robot.
    ``on_body``: the environment body (e.g. a seesaw) the contact stands on; None: fixed ground.
    """

    name: str
    frame: str
    kind: str = "foot"
    friction_coefficient: float = 0.7
    min_normal_force: float = 0.0
    max_normal_force: float = 2000.0
    half_length: float = 0.1
    half_width: float = 0.05
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    mode: str = "supporting"
    active: bool = True
    on_body: str | None = None

    def __post_init__(self) -> None:
        for label in ("name", "frame"):
            value = getattr(self, label)
            if not isinstance(value, str) or not value:
                raise ConfigError(f"contact setting {label} must be a non-empty string, got {value!r}")
        if not isinstance(self.kind, str) or self.kind not in CONTACT_KINDS:
            raise ConfigError(f"contact {self.name!r}: kind must be one of {CONTACT_KINDS}, got {self.kind!r}")
        # The numbers, the mode and the normal are checked by the contact built from this
        # (wbc_layer.contacts), with messages naming the contact.


@dataclass(frozen=True)
class ControllerConfig:
    """Gains [1/s^2, 1/s], weights [-], and the QP's settings.

    Attributes:
        contacts: the robot's contacts (all of them; switch them with ``active``).
        torso_frame: frame whose orientation the torso task holds upright.
        com_*, posture_*, torso_*: PD gains and weights of the CoM, posture and torso tasks.
        force_weight: weight of each contact-force tracking task when it is on.
        angular_momentum_weight, angular_momentum_damping: the [`AngularMomentumTask`][wbc_layer.tasks.AngularMomentumTask]
            ``"angular_momentum"`` (``dL/dt = -damping L`` through the contact wrenches): its
            weight [1 / (N m)^2] (0, the default: off) and damping [1/s].
        body_rest_*: PD gains and weight of the task holding each environment body at rest
            (a seesaw level), ``"rest_<body>"``.
        qdd_regularisation, force_regularisation: weights of ``|qdd|^2`` and ``|f|^2``. The
            force weight alone fixes the internal forces (feet squeezing each other, a hand's
            friction): at 1e-6 they drifted to the friction limits in a wall lean and the feet
            slipped, and the QP was so ill-conditioned that reordering a sum moved the torques
            by 3e-9 N m; 1e-4 keeps them near the least-norm split.
        friction_facets: facets of each friction pyramid.
        contact_damping: [1/s] each active contact's rows ask ``J qdd + Jdot v = -contact_damping
            J v`` (velocity relative to the body it stands on) instead of ``0``: a foot that has
            started to tip or slip is braked rather than kept at its velocity. The rigid-contact
            QP assumes that velocity is 0; on MuJoCo's compliant ground a foot asked for its
            centre of pressure near a sole corner tilts a little, and without this term the
            tilt grew unchecked until the foot flew up (a 9 N s forward-left push, 40 % of the
            capture bound, toppled the robot). 20: a 50 ms time constant, 10x the physics step.
        joint_limit_horizon_s: [s] the actuated joints' position (and velocity) limits become
            acceleration bounds ([`wbc_layer.joint_limits`][wbc_layer.joint_limits]): a joint pushed against a range
            end approaches it at most like a critically damped PD with time constant T [s]
            (default 0.05 s = 25 physics steps). Hard rows in the rigid-contact QP, dropped in
            the relaxed one. 0: none (the seesaw env's choice: there the ankles' roll range,
            +-0.4 rad, is close to the board's tilt, up to 0.35 rad, and the bound brakes an
            ankle while the board still turns under the foot; see the seesaw env's
            [`JOINT_LIMIT_HORIZON_S`][humanoid_env.envs.seesaw.JOINT_LIMIT_HORIZON_S]).
        contact_slack_weight: weight [1 / (m/s^2)^2, 1 / (rad/s^2)^2] of the active contacts'
            acceleration residual in the *relaxed* QP, solved only when the rigid-contact QP has
            no solution (torque limits that cannot hold every contact still): the contacts then
            give way the least this weight allows, and the result says so (``relaxed``,
            ``contact_slack``). 1e5 is 100x the CoM task's weight, so a contact yields only
            where nothing else can. 0 turns the relaxation off (an infeasible QP then raises
            ``QPSolveError``, as before).
        eps_abs: QP residual tolerance (proxsuite).
        qp_solver: ``"eiquadprog"`` (default: Goldfarb and Idnani's dual active set, an exact
            solve from scratch each tick, the same bits for the same problem, on the QP reduced
            to the equalities' null space, in the compiled core), ``"proxsuite"`` (iterative,
            warm-started from the last tick, solutions to ``eps_abs``) or ``"daqp"`` (another
            exact dual active set, through DAQP's Python API). Measured side by side in the
            balance env (``benchmarks.controller_step``, docs/speed.md): the whole compiled tick
            1.1x faster with eiquadprog than with proxsuite at rest, 1.8x under the shipped
            policy's moving references.
        backend: ``"compiled"``, the only value (the tick in C++, [`wbc_layer.compiled`][wbc_layer.compiled]);
            ``"python"``, the Python reference tick until issue 36, is refused with a message
            saying so.
    """

    contacts: tuple[ContactConfig, ...] = ()
    torso_frame: str = "torso"
    com_kp: float = 30.0
    com_kd: float = 11.0
    com_weight: float = 1000.0
    posture_kp: float = 50.0
    posture_kd: float = 14.0
    posture_weight: float = 1.0
    torso_kp: float = 100.0
    torso_kd: float = 20.0
    torso_weight: float = 10.0
    force_weight: float = 1e-2
    angular_momentum_weight: float = 0.0
    angular_momentum_damping: float = 10.0
    body_rest_kp: float = 10.0
    body_rest_kd: float = 5.0
    body_rest_weight: float = 10.0
    qdd_regularisation: float = 1e-4
    force_regularisation: float = 1e-4
    friction_facets: int = 4
    contact_damping: float = 20.0
    joint_limit_horizon_s: float = 0.05
    contact_slack_weight: float = 1e5
    eps_abs: float = 1e-9
    qp_solver: str = "eiquadprog"
    backend: str = "compiled"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float" and not (_is_real(value) and math.isfinite(value) and value >= 0):
                shown = " ".join(repr(value).split())
                raise ConfigError(f"controller setting {f.name} must be >= 0 and finite (a number), got {shown}")
        if not self.eps_abs > 0:
            raise ConfigError(f"controller setting eps_abs must be > 0, got {self.eps_abs!r}")
        if not isinstance(self.qp_solver, str) or self.qp_solver not in QP_SOLVERS:
            raise ConfigError(f"qp_solver must be one of {QP_SOLVERS}, got {self.qp_solver!r}")
        if self.backend == "python":
            raise ConfigError(PYTHON_BACKEND_RETIRED)
        if not isinstance(self.backend, str) or self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        low, high = FRICTION_FACETS_RANGE
        facets = self.friction_facets
        if not (isinstance(facets, numbers.Integral) and not isinstance(facets, bool) and low <= facets <= high):
            raise ConfigError(f"friction_facets must be an integer in [{low}, {high}], got {facets!r}")
        if not isinstance(self.torso_frame, str) or not self.torso_frame:
            raise ConfigError(f"torso_frame must be a frame name (a non-empty string), got {self.torso_frame!r}")
        if not isinstance(self.contacts, (tuple, list)) or not all(isinstance(c, ContactConfig) for c in self.contacts):
            raise ConfigError(f"contacts must be a tuple of ContactConfig, got {self.contacts!r}")
        names = [c.name for c in self.contacts]
        if len(set(names)) != len(names):
            raise ConfigError(f"contact names must be unique, got {names}")

    def with_overrides(self, **overrides: Any) -> ControllerConfig:
        """A copy with some fields replaced; unknown names raise [`ConfigError`][wbc_layer.errors.ConfigError]."""
        _check_keys("controller setting", overrides, ControllerConfig)
        return replace(self, **overrides)


def controller_config_from_dict(data: dict[str, Any]) -> ControllerConfig:
    """Build a [`ControllerConfig`][wbc_layer.config.ControllerConfig] from plain data; unknown keys are errors."""
    if not isinstance(data, dict):
        raise ConfigError(f"a controller config must be a mapping of controller settings, got {data!r}")
    data = dict(data)
    _check_keys("controller setting", data, ControllerConfig)
    contacts = []
    for item in data.pop("contacts", ()):
        if not isinstance(item, dict):
            raise ConfigError(f"each contact must be a mapping of contact settings, got {item!r}")
        _check_keys("contact setting", item, ContactConfig)
        if "normal" in item:
            item = {**item, "normal": tuple(item["normal"])}
        contacts.append(ContactConfig(**item))
    return ControllerConfig(contacts=tuple(contacts), **data)


def _check_keys(kind: str, data: dict[str, Any], cls: type) -> None:
    valid = [f.name for f in fields(cls)]
    unknown = sorted(set(data) - set(valid))
    if unknown:
        raise ConfigError(f"unknown {kind}(s) {unknown}; valid ones are: {', '.join(valid)}")


