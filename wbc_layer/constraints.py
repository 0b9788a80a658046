"""Constraint pieces a user adds to the controller, beside the built-in rows (dynamics, contacts,
joint and torque limits): each is a small checked object; the compiled core holds its rows
(``core/constraints.hpp``), and ``tests/test_qp_oracles.py`` states its formula in numpy.

    clearance = LegClearance("clearance", swing_frame="left_sole", stance_frame="right_sole")
    controller.add_constraint(clearance)      # WholeBodyController.add_constraint
    clearance.active = False                  # no row until switched on again
"""

from __future__ import annotations

from dataclasses import dataclass

from wbc_layer import checks
from wbc_layer.errors import ConfigError
from wbc_layer.observed import Observed


def _label(piece) -> str:
    return f"constraint {piece.__dict__.get('name', '?')!r}"


def _check_side(piece, value):
    number = checks.real_number(value, f"side of {_label(piece)}")
    if number not in (1.0, -1.0):
        raise ConfigError(f"side of {_label(piece)} must be +1 or -1, got {value!r}")
    return number


@dataclass
class LegClearance(Observed):
    """Keeps a swing foot clear of the stance leg: the swing sole's origin at least
    ``min_distance_m`` [m] from the stance sole's along the stance sole's lateral axis ``n`` (its
    y axis levelled, times ``side``: +1 when the swing foot belongs on the stance foot's +y side,
    a left foot over a right stance), predicted ``horizon_s`` [s] ahead with the tick's
    acceleration (one inequality row, as the joint limits are):

        d + T d_dot + T^2/2 (n^T (J_s - J_t) qdd + n^T (a_s - a_t)) >= min_distance_m,

    ``d = n^T (p_s - p_t)``, ``J`` the soles' world-aligned linear Jacobians and ``a`` their
    classical drifts. A crossover step of legs that cannot pass through each other needs it: the
    swing foot then goes around, not through. Active: the row is in every solve; not: no row.
    """

    name: str
    swing_frame: str
    stance_frame: str
    side: float = 1.0
    min_distance_m: float = 0.1
    horizon_s: float = 0.1
    active: bool = True

    _checks = {
        "name": checks.set_once("name", lambda piece, value: checks.name(value, "the name of a constraint")),
        "swing_frame": lambda piece, value: checks.frame_name(piece, value, f"swing_frame of {_label(piece)}"),
        "stance_frame": lambda piece, value: checks.frame_name(piece, value, f"stance_frame of {_label(piece)}"),
        "side": _check_side,
        "min_distance_m": lambda piece, value: checks.finite_number(value, f"min_distance_m of {_label(piece)}"),
        "horizon_s": lambda piece, value: checks.positive(value, f"horizon_s of {_label(piece)}"),
        "active": lambda piece, value: checks.boolean(value, f"active of {_label(piece)}"),
    }

    def __post_init__(self) -> None:
        if self.swing_frame == self.stance_frame:
            raise ConfigError(f"{_label(self)}: the swing and stance frames must differ, got {self.swing_frame!r} twice")
