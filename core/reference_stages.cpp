// See reference_stages.hpp. Compiled with -ffp-contract=off (CMakeLists.txt).
#include "reference_stages.hpp"

#include <algorithm>
#include <cmath>

namespace wbc {

namespace {

/// humanoid_env.envs.numerics.limit_length: `step` scaled down in place to max_length if longer
/// (its length as numpy's dot of three entries sums them, in order).
void limit_length(double* step, double max_length) {
  const double length = std::sqrt(step[0] * step[0] + step[1] * step[1] + step[2] * step[2]);
  if (length > max_length) {
    const double scale = max_length / length;
    for (int j = 0; j < 3; ++j) step[j] *= scale;
  }
}

}  // namespace

void glide_rows(int k, const double* goal, double* position, double* velocity, double max_step, double dt,
                double* position_rows, double* velocity_rows) {
  for (int i = 0; i < k; ++i) {
    double step[3];
    for (int j = 0; j < 3; ++j) step[j] = goal[3 * i + j] - position[j];
    limit_length(step, max_step);
    for (int j = 0; j < 3; ++j) {
      position[j] = position[j] + step[j];
      velocity[j] = step[j] / dt;
    }
    if (position_rows != nullptr)
      for (int j = 0; j < 3; ++j) position_rows[3 * i + j] = position[j];
    if (velocity_rows != nullptr)
      for (int j = 0; j < 3; ++j) velocity_rows[3 * i + j] = velocity[j];
  }
}

void standing_rows(int k, const double* decoded_offset, double decoded_share, StandingState state, double gain,
                   double max_offset_step, double max_share_step, double dt, int base_rows, const double* base_position,
                   const double* base_velocity, double* com_position, double* com_velocity, double* share_rows) {
  for (int i = 0; i < k; ++i) {
    double step[3];
    for (int j = 0; j < 3; ++j) step[j] = decoded_offset[j] - state.offset[j];
    if (gain != 1.0)
      for (int j = 0; j < 3; ++j) step[j] *= gain;
    limit_length(step, max_offset_step);
    for (int j = 0; j < 3; ++j) {
      state.offset[j] = state.offset[j] + step[j];
      state.offset_velocity[j] = step[j] / dt;
    }
    // clip_scalar: min(max(x, low), high), the value itself on a tie (and a NaN passes through)
    const double change = decoded_share - *state.share;
    *state.share += change != change ? change : std::min(std::max(change, -max_share_step), max_share_step);
    const int b = base_rows == 1 ? 0 : i;
    for (int j = 0; j < 3; ++j) {
      com_position[3 * i + j] = base_position[3 * b + j] + state.offset[j];
      com_velocity[3 * i + j] = base_velocity[3 * b + j] + state.offset_velocity[j];
    }
    share_rows[i] = *state.share;
  }
}

void pd_torques(int na, const double* target, const double* q, const double* qd, const double* kp, const double* kd,
                const double* torque_max, double* tau) {
  for (int j = 0; j < na; ++j) {
    const double t = kp[j] * (target[j] - q[j]) - kd[j] * qd[j];
    tau[j] = std::min(std::max(t, -torque_max[j]), torque_max[j]);  // np.clip (finite values)
  }
}

}  // namespace wbc
