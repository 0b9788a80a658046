// The reference stages an env step's physics steps share between its Python loop and its compiled
// loop, written once here: the CoM target's glide towards its goal (humanoid_env.envs.task.Task.
// glide_target) and the standing decoder's filters (humanoid_env.envs.decoding.StandingDecoder).
// Each runs k physics steps in one call (the compiled loop's env step) or one (the Python loop's
// physics step), on state the Python objects own (their numpy arrays, updated in place). The
// arithmetic is the Python forms' own, operation for operation (compiled without fused
// multiply-adds): the two loops give the same bits.
#pragma once

namespace wbc {

/// k physics steps of dt [s]: the target (position (3) [m], velocity (3) [m/s], updated in place)
/// moves towards goal row i ((k, 3) [m]) by at most max_step [m] per step: step = goal - position,
/// scaled down to max_step if longer; position += step; velocity = step / dt. Rows i of
/// position_rows and velocity_rows ((k, 3), may be null) receive the target after step i.
void glide_rows(int k, const double* goal, double* position, double* velocity, double max_step, double dt,
                double* position_rows, double* velocity_rows);

/// The standing decoder's state: the CoM offset (3) [m], its rate (3) [m/s], the left foot's force
/// share [-]; updated in place.
struct StandingState {
  double* offset;
  double* offset_velocity;
  double* share;
};

/// k physics steps of dt [s] of the standing decoder towards the decoded offset (3) [m] and share:
/// the offset's step (decoded - offset), times gain when gain != 1 (a low-pass), scaled down to
/// max_offset_step [m]; the share's step clipped to +-max_share_step. Row i of com_position and
/// com_velocity ((k, 3)) is base row i + offset and base velocity row i + offset velocity (bases
/// (k, 3) each, or one row when base_rows is 1); share_rows (k) the share after step i.
void standing_rows(int k, const double* decoded_offset, double decoded_share, StandingState state, double gain,
                   double max_offset_step, double max_share_step, double dt, int base_rows, const double* base_position,
                   const double* base_velocity, double* com_position, double* com_velocity, double* share_rows);

/// PD torques of na joints (humanoid_env.envs.actuation.PDActuation): tau = kp (target - q) - kd qd,
/// clipped to +-torque_max [N m].
void pd_torques(int na, const double* target, const double* q, const double* qd, const double* kp, const double* kd,
                const double* torque_max, double* tau);

}  // namespace wbc
