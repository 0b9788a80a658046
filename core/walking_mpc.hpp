// The walking generator's MPC (wbc_layer.walking.CoMPlanner) assembled and solved in one call: the
// QP over the CoM jerk of each sample (and the variable footholds, and with a free initial
// acceleration its change) from the prediction matrices the Python planner derives, the CoP's
// error from its reference, the velocity term, the support constraints (a box around the reference
// in single support or on a moving sole, the hull of two fixed soles in double support, the CoP
// now's support grown by a margin) and the footholds' reach, solved by the core's eiquadprog.
// A re-plan (every 20 ms) took 519 us as numpy assembly and solve, 50 us here (medians over the
// re-plans of a walk: benchmarks/walking_mpc.py). The arithmetic is the planner's, in another summation order: not the same
// bits as the numpy assembly it replaced (results/walking/README.md, the seventh revision).
#pragma once

#include <string>

#include <Eigen/Dense>

namespace wbc {

using Eigen::MatrixXd;
using Eigen::VectorXd;

/// The MPC's fixed parts: the horizon's prediction matrices and the weights.
struct WalkingMpcSettings {
  MatrixXd Pzs, Pzu;  // (N, 3), (N, N): the CoP at samples 1..N from the state and the jerks
  MatrixXd Pvs, Pvu;  // (N, 3), (N, N): the CoM velocity at samples 1..N
  double zeta = 0.0;  // h / g [s^2]
  double jerk_weight = 0.0;             // > 0
  double footstep_weight = 0.0;         // > 0: a variable foothold's pull to its reference
  double velocity_weight = 0.0;         // 0: no velocity term
  double free_acceleration_weight = -1.0;  // > 0; < 0: the initial acceleration is the state's (not a decision)
  double initial_cop_margin = -1.0;     // [m] the CoP now's support grown by this; < 0: the CoP now anywhere
};

/// One MPC problem (row-major arrays the caller owns; H footholds, R samples, V reach regions).
struct WalkingMpcProblem {
  const double* state = nullptr;  // (3, 2): c, c', c'' (x, y) at t0
  double cop_half_length = 0.0, cop_half_width = 0.0;  // [m] the CoP box's half sizes
  int holds = 0;
  const double* hold_position = nullptr;  // (H, 2) [m] (a variable hold's reference)
  const double* hold_yaw = nullptr;       // (H) [rad]
  const int* hold_variable = nullptr;     // (H) 0 / 1
  const int* hold_anchor = nullptr;       // (H) the variable hold it moves with, or -1
  const double* hold_offset = nullptr;    // (H, 2) [m] from its anchor
  int samples = 0;                        // R: N, or N + 1 with the CoP now first (a free acceleration)
  int terms = 0;                          // T: the CoP reference's terms per sample
  const double* sample_constant = nullptr;  // (R, 2) [m] the reference's constant
  const int* term_hold = nullptr;           // (R, T) the holds it weighs (-1: none)
  const double* term_weight = nullptr;      // (R, T)
  const double* sample_yaw = nullptr;       // (R) [rad] the box's yaw
  const int* sample_pair = nullptr;         // (R, 2) the two holds of a double support, or -1 -1
  const double* sample_inset = nullptr;     // (R, 2) [m] the cost's reference from the box's centre
  int reaches = 0;                          // V
  const int* reach_hold = nullptr;          // (V)
  const int* reach_parent = nullptr;        // (V) the hold it is stepped from
  const int* reach_edges = nullptr;         // (V) each region's edge count
  const double* reach_normals = nullptr;    // (sum edges, 2) outward unit normals, the parent's axes
  const double* reach_offsets = nullptr;    // (sum edges)
  const double* velocity_ref = nullptr;     // (N, 2) [m/s], or null: no velocity term
};

/// The solution: "solved", or "unconstrained" (no solution within the constraints: the
/// unconstrained optimum, cost infinite).
struct WalkingMpcSolution {
  std::string status;
  double cost = 0.0;
  MatrixXd hold_position;  // (H, 2) the holds after the solve (variable ones solved, anchored ones moved)
  MatrixXd jerk;           // (N, 2)
  MatrixXd cop;            // (N, 2) [m] the planned CoPs at samples 1..N
  MatrixXd state;          // (3, 2) the state at t0 (its acceleration changed where free)
};

/// Solve one MPC problem (the caller checked the sizes and indices: wbc_layer._core's binding does).
WalkingMpcSolution solve_walking_mpc(const WalkingMpcSettings& settings, const WalkingMpcProblem& problem);

}  // namespace wbc
