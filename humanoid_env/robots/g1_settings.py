"""The controller's settings for the Unitree G1 (:mod:`humanoid_env.robots.g1_model`).

As for our own robot (``humanoid_env.robot_config``): the simulator's friction coefficient is
1.0, the controller assumes 0.7; the centre of pressure stays inside 85 % of each sole box, so a
planned CoP never sits on the edge of the soft simulated contact. The gains are the
:class:`~wbc_layer.ControllerConfig` defaults: they hold the G1 standing to the targets (CoM
within 2 mm, ground force = m g within 1 %) without tuning (tests/test_g1_model.py).
"""

from __future__ import annotations

from humanoid_env.robots.g1_model import G1_FOOT_BOX
from wbc_layer import ContactConfig, ControllerConfig

#: Friction coefficient the controller assumes at the feet (simulator: 1.0).
G1_CONTROLLER_FRICTION = 0.7
#: Share of the sole box the controller's centre of pressure may use.
COP_MARGIN = 0.85
#: Centre-of-pressure bounds [m] about the sole sites: 85 % of the box's half sizes.
G1_FOOT_HALF_LENGTH = COP_MARGIN * G1_FOOT_BOX["half_length"]
G1_FOOT_HALF_WIDTH = COP_MARGIN * G1_FOOT_BOX["half_width"]


def g1_foot_contacts(min_normal_force: float = 0.0) -> tuple[ContactConfig, ...]:
    """The two flat-foot contacts ``left_foot`` and ``right_foot`` at the G1's sole sites."""
    return tuple(
        ContactConfig(
            name=f"{side}_foot",
            frame=f"{side}_sole",
            kind="foot",
            friction_coefficient=G1_CONTROLLER_FRICTION,
            min_normal_force=min_normal_force,
            half_length=G1_FOOT_HALF_LENGTH,
            half_width=G1_FOOT_HALF_WIDTH,
        )
        for side in ("left", "right")
    )


def g1_controller_config(**overrides) -> ControllerConfig:
    """Standing controller for the G1: both feet supporting, torso (site ``torso``) held upright."""
    return ControllerConfig(contacts=g1_foot_contacts(), torso_frame="torso").with_overrides(**overrides)
