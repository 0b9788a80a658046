"""The compiled tick against the oracle QP on recorded closed-loop states of every env's contact set.

Each case rolls out an env (its references moving every env step); at every controller tick the
oracle QP (``tests/oracles.py``: the formulation in numpy, from the same task and contact objects
at the same state) is solved with DAQP, exactly, and compared with the compiled tick: the same
torques, the same active inequality rows. A tick the core solved relaxed is compared with the
oracle's relaxed QP. Both robots; feet, a lifted foot, a hand on the wall, feet on the seesaw.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests import oracles
from training.evaluate import evaluate
from wbc_layer import QPSolveError
from wbc_layer.qp import DaqpSolver

#: Torques [N m]. Both solves are exact (eiquadprog's and DAQP's active sets): what is left is the
#: QP data's rounding (numpy against the core's kernels, 1e-16 per operation) amplified by the
#: QP's condition number (force regularisation 1e-6 against weights of 1e3): ~2e-9 N m seen on the
#: seesaw. proxsuite stops at primal and dual residuals of eps_abs = 1e-9, which the conditioning
#: turns into a distance from the exact optimum: 2.3e-6 N m seen; 1e-5 N m is 1e-4 of the 0.1 N m a
#: torque moves by when a reference moves 1 mm. A relaxed tick (contact rows weighted 1e5 in the
#: cost: worse conditioned) 1e-7 N m (1.7e-8 seen on a hand pushing 500 N).
TAU_TOL = {"eiquadprog": 1e-8, "daqp": 1e-8, "proxsuite": 1e-5}
RELAXED_TAU_TOL = 1e-7
#: The relaxed tick's contact slack [m/s^2, rad/s^2]: as its torques, to the conditioning's rounding.
RELAXED_SLACK_TOL = 1e-6
#: A row counts as active with slack below ACTIVE [N, N m, m/s^2]; the other solution must then
#: have slack below ACTIVE_OTHER (rows within rounding of the boundary may be on either side).
ACTIVE, ACTIVE_OTHER = 1e-9, 1e-6


def _random_policy(seed: int, scale: float):
    rng = np.random.default_rng(seed)

    def act(obs, env):
        return scale * rng.uniform(-1.0, 1.0, env.action_space.shape)

    act.__name__ = f"uniform_{scale}"
    return act


CASES = {
    # env, policy, env keywords, env steps. The envs' default solver is eiquadprog; one case each
    # runs DAQP and proxsuite.
    "balance, pushes, moving references": (
        "HumanoidWBC-v0", _random_policy(1, 0.5), {"push_interval_s": (0.5, 1.0), "push_magnitude_n": (20.0, 80.0)}, 150,
    ),
    "balance, foot lift (ramp)": ("HumanoidWBC-v0", "scripted", {}, 200),
    "wall lean (daqp)": ("HumanoidWBCWall-v0", "scripted", {"qp_solver": "daqp"}, 150),
    "wall, moving references": ("HumanoidWBCWall-v0", _random_policy(2, 0.5), {}, 100),
    "seesaw push": ("HumanoidWBCSeesaw-v0", "scripted", {}, 150),
    "seesaw, moving references (proxsuite)": ("HumanoidWBCSeesaw-v0", _random_policy(3, 0.5), {"qp_solver": "proxsuite"}, 100),
    "g1 balance, moving references": ("HumanoidWBC-v0", _random_policy(4, 0.5), {"robot": "g1"}, 60),
    "g1 seesaw, moving references": ("HumanoidWBCSeesaw-v0", _random_policy(5, 0.5), {"robot": "g1"}, 60),
}


@pytest.mark.parametrize("case", list(CASES))
def test_compiled_tick_matches_the_oracle(case):
    env_id, policy, env_kwargs, steps = CASES[case]
    ticks, worst = [], 0.0
    solver = DaqpSolver()

    def shadow(env, episode_seed):
        controller = env.unwrapped.controller
        compiled_compute = controller.compute

        def checked(q, v, body_states=None):
            nonlocal worst
            result = compiled_compute(q, v, body_states)  # a QPSolveError fails the test: none expected
            problem, where = oracles.oracle_qp(controller)  # the robot and bodies are at this tick's state
            if result.relaxed:
                problem = oracles.oracle_relaxed(problem, where, controller.config.contact_slack_weight)
            try:
                x = solver.solve(problem).x
            except QPSolveError as err:
                raise AssertionError(f"tick {len(ticks)}: the oracle QP has no solution ({err.status}), the core's had") from err
            tau_error = np.abs(result.tau - oracles.oracle_torques(controller, x)).max()
            worst = max(worst, tau_error)
            tolerance = RELAXED_TAU_TOL if result.relaxed else TAU_TOL[controller.config.qp_solver]
            assert tau_error <= tolerance, f"tick {len(ticks)}: torques differ from the oracle's by {tau_error:.2e} N m"
            x_core = np.concatenate([result.qdd, *result.body_accelerations.values(), *result.contact_forces.values()])
            slack_core, slack_oracle = problem.h - problem.G @ x_core, problem.h - problem.G @ x
            assert np.all(slack_oracle[slack_core < ACTIVE] < ACTIVE_OTHER), f"active sets differ at tick {len(ticks)}"
            assert np.all(slack_core[slack_oracle < ACTIVE] < ACTIVE_OTHER), f"active sets differ at tick {len(ticks)}"
            ticks.append(int(np.sum(slack_oracle < ACTIVE)))
            return result

        controller.compute = checked

    evaluate(env_id, policy, episodes=1, seed=7, max_steps=steps, env_kwargs=env_kwargs, on_reset=shadow)
    print(f"{case}: {len(ticks)} ticks, worst {worst:.2e} N m")
    assert len(ticks) >= 5 * steps  # the shadow saw the rollout (10 ticks per env step)
    if case != "seesaw push":
        assert max(ticks) > 0  # some inequality rows were active: the comparison covers active sets


@pytest.mark.parametrize("joint_limit_horizon_s", [0.0, 0.05])
def test_a_relaxed_tick_matches_the_oracles_relaxed_qp(robot, bridge, mj_data, joint_limit_horizon_s):
    """The hand that must push a wall with 500 N through 25 N m arm joints (no rigid-contact
    solution: tests/test_relaxed_qp.py), with and without joint-limit rows: the core's relaxed
    tick equals the oracle's relaxed QP solved by DAQP, torques and contact slack."""
    from tests.test_relaxed_qp import _impossible_controller

    controller, (q, v) = _impossible_controller(
        robot, bridge, mj_data, "compiled", "eiquadprog", joint_limit_horizon_s=joint_limit_horizon_s
    )
    result = controller.compute(q, v)
    assert result.relaxed
    problem, where = oracles.oracle_qp(controller)
    x = DaqpSolver().solve(oracles.oracle_relaxed(problem, where, controller.config.contact_slack_weight)).x
    assert np.abs(result.tau - oracles.oracle_torques(controller, x)).max() < RELAXED_TAU_TOL
    for name, slack in result.contact_slack.items():
        rows = where[f"eq:{name}"]
        assert np.abs(slack - (problem.A[rows] @ x - problem.b[rows])).max() < RELAXED_SLACK_TOL, name
