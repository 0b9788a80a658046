"""Our robot's controller settings: the frame names, foot sizes and friction the WBC assumes.

The simulator's friction coefficient is 1.0 (see ``assets/robot.xml``); the controller assumes
0.7 so that the forces it plans stay inside the real cone with a margin.
"""

from __future__ import annotations

from pathlib import Path

from wbc_layer import ContactConfig, ControllerConfig

ASSETS = Path(__file__).resolve().parent / "assets"
ROBOT_XML = ASSETS / "robot.xml"
FLAT_SCENE_XML = ASSETS / "scene_flat.xml"

#: Friction coefficient the controller assumes at feet and hands (simulator: 1.0).
CONTROLLER_FRICTION = 0.7
#: Centre-of-pressure bounds the controller keeps [m]: 85% of the sole box (0.10 x 0.05 half
#: sizes), so a planned CoP never sits on the edge of the soft simulated contact and tips it.
FOOT_HALF_LENGTH = 0.085
FOOT_HALF_WIDTH = 0.0425


def foot_contacts(min_normal_force: float = 0.0) -> tuple[ContactConfig, ...]:
    """The two flat-foot contacts ``left_foot`` and ``right_foot`` at the sole sites."""
    return tuple(
        ContactConfig(
            name=f"{side}_foot",
            frame=f"{side}_sole",
            kind="foot",
            friction_coefficient=CONTROLLER_FRICTION,
            min_normal_force=min_normal_force,
            half_length=FOOT_HALF_LENGTH,
            half_width=FOOT_HALF_WIDTH,
        )
        for side in ("left", "right")
    )


def default_controller_config(**overrides) -> ControllerConfig:
    """Standing controller: both feet supporting, torso held upright."""
    return ControllerConfig(contacts=foot_contacts(), torso_frame="torso").with_overrides(**overrides)
