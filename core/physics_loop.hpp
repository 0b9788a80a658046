// An env step's physics steps in one call (issue 41): for each physics step, the push force, the
// controller's references, MuJoCo's state -> pinocchio's, the tick, the torques -> ctrl, mj_step and
// the state's checks, without Python. Built into humanoid_env._physics, which links MuJoCo's C
// library from the mujoco wheel; the controller's own module (wbc_layer._core) does not: the
// controller stays a controller that could drive a real robot.
//
// What Python keeps once per env step: the task's command and the reference stages are evaluated
// ahead for the env step's physics steps (humanoid_env.envs.physics_loop: only where they do not
// read the state), then the loop runs; observation, reward, termination and info after it. A step
// that needs Python (a QP with no solution: the documented fallback; a relaxed QP: its slack) stops
// the loop, and Python resumes it.
#pragma once

#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "controller.hpp"
#include "reference_stages.hpp"

namespace wbc {

/// Where the robot sits in MuJoCo's arrays (from humanoid_env.sim_bridge.SimBridge).
struct LoopLayout {
  std::vector<int> q_from_qpos;  // (nq) pinocchio q[i] = qpos[q_from_qpos[i]] (quaternion wxyz -> xyzw)
  std::vector<int> v_from_qvel;  // (nv) pinocchio v[i] = qvel[v_from_qvel[i]], before the base rotation
  int quaternion = 0;            // qpos address of the base quaternion (w, x, y, z)
  std::vector<int> actuators;    // (na) actuator id of each of the controller's joints
  VectorXd gear, ctrl_min, ctrl_max;  // (na) per joint
  int push_body = -1;                 // body whose xfrc_applied holds the push force
};

/// Why run() returned.
enum class LoopStop : int {
  kDone = 0,              // every step ran
  kNotSolved = 1,         // step `steps_done` has no solution: nothing was applied (Python's fallback)
  kRelaxed = 2,           // step `steps_done - 1` solved the relaxed QP and ran (Python reads its slack)
  kNonFiniteTorques = 3,  // step `steps_done`'s torques are not finite: nothing was written
  kNonFiniteState = 4,    // step `steps_done - 1`'s mj_step made a non-finite state or a bad-state warning
  kInvalidState = 5,      // the controller rejected step `steps_done`'s state (Python's tick raises why)
  kWatch = 6,             // a watch could not rule out a step (or a landing) before step `steps_done` (nothing of it ran)
};

/// The stepping law's watch over standing steps planned ahead (humanoid_env.envs.stepping.StandingWatch):
/// before each watched step, the capture point of the simulator's state (mj_subtreeVel, then
/// c + v / omega, as the law's caller computes it) and the soles' poses, and whether the law
/// certainly takes no step there: the capture point lies deeper than `depth` plus the CoP corners'
/// largest shift since the polygon's feet (`key`) inside the law's last support polygon. Where it
/// is not certain the loop stops before the step (kWatch) and Python asks the law itself.
struct StandingWatch {
  int from = 0;                     // steps i >= from are watched
  int root_body = 0;                // the body whose subtree gives the CoM and its velocity
  double omega = 0.0;               // the law's pendulum frequency [1/s]
  int sole_sites[2] = {0, 0};       // the soles' sites, left then right
  const double* normals = nullptr;  // (n_edges, 2) the polygon's outward unit normals
  const double* offsets = nullptr;  // (n_edges) their offsets [m]
  int n_edges = 0;
  const double* key = nullptr;      // (6) the polygon's feet: x, y of left then right [m], their yaws [rad]
  double corner_radius = 0.0;       // [m] a CoP rectangle's corner from its sole's centre
  double depth = 0.0;               // [m] the law's threshold and the tolerances (Python's)
  double* capture_point = nullptr;  // (k, 2) out: each watched step's capture point [m]
  double* sole_xpos = nullptr;      // (k, 2, 3) out: the soles' site positions [m]
  double* sole_xmat = nullptr;      // (k, 2, 9) out: the soles' site rotations (row-major)
};

/// The walking generator's watch over a swing's steps planned ahead (humanoid_env.envs.walking):
/// before each watched step, the vertical force MuJoCo's contacts exert on the swing foot's geom
/// (each contact's force turned into world axes and summed, as humanoid_env.envs.sensing's
/// ContactSensor sums it). Where it reaches `threshold` (the touch-down force, less a margin for
/// rounding) the foot may land there: the loop stops before the step (kWatch) and Python asks the
/// generator itself.
struct LandingWatch {
  int from = 0;            // steps i >= from are watched
  int geom = -1;           // the swing foot's contact geom
  double threshold = 0.0;  // [N]
};

/// PD control of the joints (the pd action mode): targets (na) [rad], gains (na), torque limits (na).
/// The state the controller (or the PD law) sees at each step, MuJoCo's layout: an estimate's rows
/// (k, nq) and (k, nv); absent (nullptr), the simulator's own.
struct SensedState {
  const double* qpos = nullptr;
  const double* qvel = nullptr;
};

/// Torques applied `delay` physics steps after they were computed: the FIFO of
/// humanoid_env.envs.estimation.ActuationDelay, its state handed over by the caller and written
/// back: `queue` (delay, na) [N m] row-major, the oldest first; `filled` (false: empty, and the
/// first torque computed fills it, so that it is also the first one applied).
struct DelayLine {
  int delay = 0;
  double* queue = nullptr;
  bool* filled = nullptr;
};

struct PdGains {
  const double* target = nullptr;
  const double* kp = nullptr;
  const double* kd = nullptr;
  const double* torque_max = nullptr;
};

/// One env step's references per physics step (k rows each; nc contacts, nt frame tasks, no orientation
/// tasks), row-major.
struct PlannedReferences {
  const double* com_position = nullptr;      // (k, 3) [m]
  const double* com_velocity = nullptr;      // (k, 3) [m/s]
  const double* com_acceleration = nullptr;  // (k, 3) [m/s^2]
  const bool* active = nullptr;              // (k, nc)
  const double* min_normal_force = nullptr;  // (k, nc) [N]
  const double* max_normal_force = nullptr;  // (k, nc) [N]
  const bool* track_force = nullptr;         // (k, nc)
  const double* force_target = nullptr;      // (k, nc) [N]
  const double* force_weight = nullptr;      // (k, nc) (< 0: keep)
  std::vector<int> frame_tasks;              // (nt) task indices
  const bool* frame_active = nullptr;        // (k, nt)
  const double* frame_position = nullptr;    // (k, nt, 3) [m]
  const double* frame_velocity = nullptr;    // (k, nt, 3) [m/s]
  std::vector<int> orientation_tasks;        // (no) task indices
  const bool* orientation_active = nullptr;  // (k, no)
  const double* orientation_target = nullptr;  // (k, no, 3, 3) rotation matrices, row-major
  std::vector<int> rest_tasks;               // (nr) body rest task indices
  std::vector<int> rest_dofs;                // (nr) each one's body's coordinates
  const bool* rest_active = nullptr;         // (k, nr)
  const double* rest_target = nullptr;       // (k, sum of rest_dofs) their targets, concatenated
  int body_dof = 0;                          // ns: the environment bodies' coordinates, all bodies
  const double* body_s = nullptr;            // (k, ns) the bodies' sensed coordinates at each step
  const double* body_s_dot = nullptr;        // (k, ns) and their rates
};

/// The vertical force [N] MuJoCo's contacts exert on `geom` in `d`'s present state: each contact's
/// force turned into world axes and its vertical component summed, in MuJoCo's contact order, as
/// humanoid_env.envs.sensing.ContactSensor sums the force vectors (their z entry to round-off:
/// numpy's matrix product there fuses the multiply-adds, this does not).
double vertical_contact_force(const mjModel* m, const mjData* d, int geom);

class PhysicsLoop {
 public:
  /// model, data: MuJoCo's structures (the caller keeps them alive while the loop is used).
  /// Throws std::runtime_error when the MuJoCo library loaded is not the version the loop was
  /// compiled against, std::invalid_argument when the layout does not fit the model.
  PhysicsLoop(const mjModel* model, mjData* data, LoopLayout layout);

  /// Run up to k physics steps from `first` (an index into the planned rows: `first` .. k-1).
  /// controller: the tick of each step, its references from `references` row by row; without one
  /// (nullptr), `torques` (k, na) [N m] row by row. `push` (k, 3) [N] world force on the push body.
  /// `warnings_at_reset`: MuJoCo's bad-state warning count the episode started with. With `pd` (and
  /// neither a controller nor torques), each step's torques are PD torques at that step's state.
  /// `sensed`: the state the tick (or PD law) sees at each step, instead of the simulator's (an
  /// estimate). `delay`: the torques go through its FIFO (applied `delay` steps late; tau() holds
  /// those applied, tau_computed() those computed). `watch`: the stepping law's watch before each
  /// watched step (kWatch where it cannot rule out a step); `landing`: the walking generator's
  /// (kWatch where the swing foot may land). Returns why it stopped; steps_done() says how far it got.
  LoopStop run(Controller* controller, const PlannedReferences* references, const double* torques, const double* push,
               int first, int k, int warnings_at_reset, const PdGains* pd = nullptr, const SensedState* sensed = nullptr,
               const DelayLine* delay = nullptr, const StandingWatch* watch = nullptr, const LandingWatch* landing = nullptr);

  /// The vertical force [N] MuJoCo's contacts exert on `geom` in the data's present state (LandingWatch's).
  double vertical_contact_force(int geom) const;

  int steps_done() const { return steps_done_; }
  /// (k_max, na) torques handed to MuJoCo per step [N m] (row i: step i's); valid for run rows.
  const MatrixXd& tau() const { return tau_; }
  /// (k_max, na) torques computed per step [N m] (with an actuation delay, not those applied: `tau`).
  const MatrixXd& tau_computed() const { return tau_computed_; }
  /// (k_max) per step: the tick's whole time [us] (0 without a controller) and the QP's solve time.
  const VectorXd& tick_us() const { return tick_us_; }
  const VectorXd& solve_us() const { return solve_us_; }
  /// The pinocchio state of the last tick (q (nq), v (nv)).
  const VectorXd& q() const { return q_; }
  const VectorXd& v() const { return v_; }
  /// The status of the tick that stopped the loop (kNotSolved), or of the last tick.
  const std::string& status() const { return status_; }
  /// The controller's error message for kInvalidState.
  const std::string& error() const { return error_; }
  /// Rows the output arrays hold (grown by run() as needed, keeping the rows they hold).
  void reserve(int k);
  int na() const { return static_cast<int>(layout_.actuators.size()); }
  int model_nq() const { return m_->nq; }
  int model_nv() const { return m_->nv; }
  int model_nbody() const { return m_->nbody; }
  int model_nsite() const { return m_->nsite; }
  int model_ngeom() const { return m_->ngeom; }

 private:
  void to_pinocchio(const mjtNum* qpos, const mjtNum* qvel);
  bool no_step_certain(const StandingWatch& watch, int i);
  bool state_sound(int warnings_at_reset) const;

  const mjModel* m_;
  mjData* d_;
  LoopLayout layout_;
  VectorXd q_, v_;
  MatrixXd tau_, tau_computed_;
  VectorXd tick_us_, solve_us_;
  VectorXd no_bodies_;
  StepReferences step_references_;
  int steps_done_ = 0;
  std::string status_, error_;
};

}  // namespace wbc
