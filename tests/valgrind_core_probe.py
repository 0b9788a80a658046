"""A probe for valgrind (not a test): the force-task writes that read past the compiled core's
buffers at bb00e72, and the private core calls that took wrong sizes, then a few ticks.

Run it after changing core/*.cpp::

    apt-get install -y valgrind
    PYTHONMALLOC=malloc valgrind --num-callers=30 .venv/bin/python tests/valgrind_core_probe.py 2> vg.err

and look for "Invalid read" / "Invalid write" blocks whose stack holds wbc::, Eigen::, pinocchio::,
eiquadprog or proxsuite frames: there must be none (CPython's "uninitialised value" reports and
ld.so's strncmp reads while loading libraries are valgrind noise). It prints how many of the bad
writes were rejected (all of them).
"""

from __future__ import annotations

import numpy as np

from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import ConfigError, RobotModel, WBCError, WholeBodyController


def main() -> None:
    robot = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    q, v = robot.q.copy(), np.zeros(robot.nv)
    q[2] = 0.8
    robot.update(q, v)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(backend="compiled"))
    core, index = controller.compiled.core, controller.compiled.task_index
    task = controller.task("force_left_foot")
    controller.set_force_target("left_foot", 100.0)
    force = index["force_left_foot"]
    writes = [
        lambda: setattr(task, "normal_only", False),  # 6 rows on a 1-entry target at bb00e72
        lambda: setattr(task, "target", np.zeros(0)),
        lambda: core.set_contact_force(force, 0, np.eye(6), np.zeros(1)),
        lambda: core.set_contact_force(force, 0, np.zeros((1, 6)), np.zeros(0)),
        lambda: core.set_contact_force(force, 7, np.zeros((1, 6)), np.zeros(1)),
        lambda: core.torques(np.zeros(3)),
        lambda: core.within_limits(np.zeros(2), np.zeros(2)),
        lambda: core.set_gains(index["posture"], np.ones(2), np.ones(2)),
        lambda: WholeBodyController(robot, controller.config).compiled.core.problem(True),
    ]
    rejected = 0
    for write in writes:
        try:
            write()
        except (ConfigError, ValueError, IndexError, TypeError):
            rejected += 1
    for _ in range(3):
        try:
            controller.compute(q, v)
        except WBCError:
            pass  # any controller error is fine here; a read past a buffer is not
    task.set_target(np.arange(6.0), normal_only=False)  # the one way to the full force vector
    try:
        controller.compute(q, v)
    except WBCError:
        pass
    print(f"rejected {rejected} of {len(writes)} bad writes")


if __name__ == "__main__":
    main()
