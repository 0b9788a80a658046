"""The whole-body controller alone standing the robot in MuJoCo (no Gymnasium).

After ``--shift-at`` seconds the CoM reference moves 2 cm to the left (minimum-jerk, 1 s); the
script saves a PNG of the CoM (MuJoCo's, against the reference) and of the measured foot normal
forces, and prints a JSON summary (also written to ``OUT/stand_alone.json``)::

    python examples/stand_alone.py --seconds 4 --out out/stand_alone
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from humanoid_env.envs.sensing import ContactSensor  # noqa: E402
from humanoid_env.scenarios import min_jerk  # noqa: E402
from humanoid_env.wbc_sim import WBCSimulation  # noqa: E402
from training.jsonio import dumps  # noqa: E402  (strict JSON: NaN written as null)

SHIFT_M = np.array([0.0, 0.02, 0.0])  # CoM reference move [m], to the left (+y)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="simulated time [s]")
    parser.add_argument("--shift-at", type=float, default=1.0, help="start of the CoM move [s]")
    parser.add_argument("--out", type=Path, default=Path("out/stand_alone"), help="output folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    sim = WBCSimulation()  # flat scene, home keyframe, the default two-feet controller
    sensor = ContactSensor(sim.model, {"left_foot": "left_foot", "right_foot": "right_foot"})
    pelvis = sim.model.body("pelvis").id
    com_start = sim.robot.com.copy()
    dt = sim.model.opt.timestep
    log: dict[str, list] = {"t": [], "com": [], "com_ref": [], "left_n": [], "right_n": [], "base_z": []}
    for _ in range(int(round(args.seconds / dt))):
        t = float(sim.data.time)
        s, s_dot = min_jerk(t, args.shift_at, args.shift_at + 1.0)
        sim.controller.com_task.set_reference(com_start + s * SHIFT_M, s_dot * SHIFT_M)
        sim.step()
        forces = sensor.measure(sim.data)
        log["t"].append(t + dt)
        log["com"].append(sim.data.subtree_com[pelvis].copy())  # the robot's CoM, measured by MuJoCo
        log["com_ref"].append(sim.controller.com_task.position.copy())
        log["left_n"].append(forces["left_foot"][2])
        log["right_n"].append(forces["right_foot"][2])
        log["base_z"].append(float(sim.data.qpos[2]))

    t, com, ref = np.array(log["t"]), np.array(log["com"]), np.array(log["com_ref"])
    fig, (ax_com, ax_force) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    ax_com.plot(t, 1000 * com[:, 1], label="CoM y (MuJoCo)")
    ax_com.plot(t, 1000 * ref[:, 1], "--", label="reference")
    ax_com.set_ylabel("[mm]")
    ax_com.legend()
    ax_force.plot(t, log["left_n"], label="left foot")
    ax_force.plot(t, log["right_n"], label="right foot")
    ax_force.set_ylabel("normal force [N]")
    ax_force.set_xlabel("time [s]")
    ax_force.legend()
    fig.tight_layout()
    fig.savefig(args.out / "stand_alone.png", dpi=80)
    summary = {
        "seconds": float(t[-1]),
        "base_height_min_m": float(min(log["base_z"])),
        "com_final_m": com[-1].tolist(),
        "com_error_final_m": float(np.linalg.norm(com[-1] - ref[-1])),
        "left_foot_final_n": float(log["left_n"][-1]),
        "right_foot_final_n": float(log["right_n"][-1]),
        "fallbacks": sim.fallbacks,
    }
    (args.out / "stand_alone.json").write_text(dumps(summary, indent=2))
    print(dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
