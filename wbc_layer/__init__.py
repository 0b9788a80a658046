"""wbc_layer: a whole-body QP controller for floating-base robots in contact.

It depends on pinocchio, proxsuite, qpsolvers and numpy only: no simulator, no RL framework.
Each tick runs in its compiled C++ extension, built from ``core/``
([`wbc_layer.compiled`][wbc_layer.compiled]); ``tests/oracles.py`` states the formulation in numpy.
"""

from wbc_layer.config import ContactConfig, ControllerConfig, controller_config_from_dict
from wbc_layer.constraints import LegClearance
from wbc_layer.contact_guard import ContactGuard, ContactGuardSettings
from wbc_layer.contacts import Contact, FootContact, PointContact
from wbc_layer.controller import WholeBodyController
from wbc_layer.environment_body import EnvironmentBody, SeesawBody
from wbc_layer.errors import ConfigError, InvalidStateError, QPSolveError, RobotModelError, WBCError
from wbc_layer.gravity_compensation import StaticSolution, gravity_compensation
from wbc_layer.layout import QPLayout
from wbc_layer.qp import ProxsuiteSolver, QPProblem, solve_with_qpsolvers
from wbc_layer.references import (
    ContactReference,
    LinearRamp,
    MinJerkSegment,
    PointReference,
    References,
    Segment,
    TaskReference,
)
from wbc_layer.result import WBCResult
from wbc_layer.robot_model import RobotModel
from wbc_layer.seesaw_law import BoardTiltLaw
from wbc_layer.step_limits import StepLimits, derive_step_limits, reachable_region
from wbc_layer.stepping import SteppingLaw, SteppingSettings, SwingFoot, SwingSettings
from wbc_layer.tasks import (
    AngularMomentumTask,
    BodyRestTask,
    ComTask,
    ContactForceTask,
    FramePositionTask,
    OrientationTask,
    PostureTask,
    RegularisationTask,
    Task,
)

__all__ = [
    "AngularMomentumTask",
    "BoardTiltLaw",
    "BodyRestTask",
    "ComTask",
    "ContactForceTask",
    "FramePositionTask",
    "OrientationTask",
    "PostureTask",
    "RegularisationTask",
    "Task",
    "ConfigError",
    "Contact",
    "ContactConfig",
    "ContactGuard",
    "ContactGuardSettings",
    "ControllerConfig",
    "EnvironmentBody",
    "SeesawBody",
    "FootContact",
    "InvalidStateError",
    "LegClearance",
    "PointContact",
    "ProxsuiteSolver",
    "QPLayout",
    "QPProblem",
    "QPSolveError",
    "ContactReference",
    "LinearRamp",
    "MinJerkSegment",
    "PointReference",
    "References",
    "Segment",
    "TaskReference",
    "RobotModel",
    "RobotModelError",
    "StaticSolution",
    "WBCError",
    "WBCResult",
    "WholeBodyController",
    "StepLimits",
    "SteppingLaw",
    "SteppingSettings",
    "SwingFoot",
    "SwingSettings",
    "controller_config_from_dict",
    "derive_step_limits",
    "reachable_region",
    "gravity_compensation",
    "solve_with_qpsolvers",
]
