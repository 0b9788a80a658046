"""Torque limits read from an MJCF file's ``<motor>`` actuators, without MuJoCo.

The controller must respect the same torque limits as the simulator. MuJoCo applies
``torque = gear * ctrl`` with ``ctrl`` clipped to ``ctrlrange``, so the joint torque limit is
``gear * ctrlrange``. Reading the XML here keeps [`wbc_layer`][wbc_layer] free of a MuJoCo import.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from wbc_layer.errors import RobotModelError


def read_motor_torque_limits(mjcf_path: str | Path) -> dict[str, tuple[float, float]]:
    """Joint name -> (lower, upper) torque limit [N m] of each ``<motor>`` in the file.

    Follows ``<include file=...>`` relative to the including file. Only plain ``motor``
    actuators driving one joint are read; their ``gear`` (first component, default 1) scales
    ``ctrlrange`` (required).
    """
    path = Path(mjcf_path)
    limits: dict[str, tuple[float, float]] = {}
    for motor in _iter_motors(path):
        joint = motor.get("joint")
        ctrlrange = motor.get("ctrlrange")
        if joint is None or ctrlrange is None:
            raise RobotModelError(
                f"{path}: motor {motor.get('name')!r} needs a 'joint' and a 'ctrlrange' "
                "(the controller takes torque limits from gear x ctrlrange)"
            )
        gear = float(motor.get("gear", "1").split()[0])
        lo, hi = (float(s) * gear for s in ctrlrange.split())
        limits[joint] = (min(lo, hi), max(lo, hi))
    return limits


def _iter_motors(path: Path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise RobotModelError(f"cannot read MJCF file {path}: {err}") from err
    for element in root.iter():
        if element.tag == "include":
            yield from _iter_motors(path.parent / element.get("file", ""))
        elif element.tag == "motor" and element.get("joint") is not None:
            yield element
