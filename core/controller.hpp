// One controller tick in one call: update the robot terms, assemble the QP from its pieces (task
// pieces: pieces.hpp; constraint pieces: constraints.hpp), solve it (proxsuite dense warm-started,
// or eiquadprog; the cold rows, joint and torque limits, only when the hot solution breaks one; the
// relaxed QP when no solution exists), and recover the torques.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "constraints.hpp"
#include "pieces.hpp"
#include "references.hpp"
#include "solvers.hpp"

namespace wbc {

/// |norm(q[3:7]) - 1| allowed of the base quaternion; wbc_layer.robot_model.QUATERNION_NORM_TOLERANCE.
constexpr double kQuaternionNormTolerance = 1e-6;

/// A cold row (joint or torque limit) within this fraction of max(1, |h_i|) of its bound at a
/// solution counts as active: the next tick solves with the cold rows at once.
constexpr double kColdRowActiveTolerance = 1e-7;

/// Timings of the last tick [us].
struct Timings {
  double update = 0, build = 0, solve = 0, torques = 0;
};

class Controller {
 public:
  Controller(const std::string& serialized_model, const VectorXd& damping, const VectorXd& torque_min,
             const VectorXd& torque_max, const std::string& qp_solver, double eps_abs, int max_iter);

  // -- structure (before finalize) ----------------------------------------------------------
  /// kind 0 (foot, 6), 1 (point, 3) or 2 (user: dim force coordinates in [1, 6], on the fixed
  /// ground only; set_contact_kinematics writes its rows before each tick).
  int add_contact(int kind, int frame, int body, int dim = -1);
  /// A user contact's (dim, nv) Jacobian and (dim) drift Jdot v at this tick's state, finite.
  void set_contact_kinematics(int i, const MatrixXd& jacobian, const VectorXd& drift);
  /// An environment body of the user's with dof coordinates (before contacts).
  int add_user_body(int dof);
  /// A user body's (dof, dof) mass matrix and (dof) bias at this tick's state, finite.
  void set_body_dynamics(int i, const MatrixXd& mass_matrix, const VectorXd& bias);
  /// On a user body: contact i's (6, dof) body Jacobian and (6) body drift at its frame, finite.
  void set_contact_body_kinematics(int i, const MatrixXd& jacobian, const VectorXd& drift);
  int add_seesaw(double mass, const Vector3d& com, double inertia_xx, double radius, const Vector3d& origin,
                 double damping, double gravity);
  void finalize();

  // -- pieces -------------------------------------------------------------------------------
  // Every index is checked (std::out_of_range), every size (std::invalid_argument, naming the
  // expected and received sizes): no call reads or writes past a buffer.
  Contact& contact(int i) { return contacts_.at(i); }
  /// Append a constraint piece (after finalize(); a hot one: its rows go with the other hot rows);
  /// returns its index for constraint().
  int add_constraint(std::unique_ptr<Constraint> piece);
  Constraint& constraint(int i) { return *constraints_.at(i); }
  int n_constraints() const { return static_cast<int>(constraints_.size()); }
  /// A piece's row counts may have changed (it was switched on or off): re-plan the rows.
  void constraints_changed() { structure_dirty_ = true; }
  int add_task(std::unique_ptr<Task> task);
  Task& task(int i) { return *tasks_.at(i); }
  /// Switch task i on or off with weight >= 0 (finite); switching on a task whose data is not
  /// complete yet (Task::ready) throws.
  void set_task(int i, bool active, double weight);
  int n_tasks() const { return static_cast<int>(tasks_.size()); }
  int n_contacts() const { return static_cast<int>(contacts_.size()); }
  int n_bodies() const { return static_cast<int>(bodies_.size()); }
  /// Generalized coordinates of body i.
  int body_dof(int i) const { return bodies_.at(i)->dof(); }
  bool finalized() const { return finalized_; }
  const Layout& layout() const { return layout_; }
  RobotTerms& robot() { return robot_; }

  // -- one physics step's references (references.hpp) ------------------------------------
  /// The task set_references writes the CoM reference into (a ComTask).
  void set_com_task(int task);
  /// Where set_references writes contact i's references: its normal-bound rows of h and its
  /// normal-force task (a ContactForceTask of this contact with one row, or -1).
  void set_contact_reference_rows(int i, const ContactReferenceRows& rows);
  /// Write one step's references: every value is checked first (std::invalid_argument naming it;
  /// nothing is written then), then the CoM task, each contact's activity and normal-force bounds,
  /// its force task (on with the target, or off), and the frame tasks, as the Python setters would.
  void set_references(const StepReferences& references);

  // -- the tick -----------------------------------------------------------------------------
  /// Everything: update, build, solve (re-solve with the cold rows if one is broken; the relaxed
  /// QP if there is no solution and the slack weight is > 0), torques.
  /// Returns the status; "solved" or the failure reason.
  std::string compute(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                      const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot);
  /// Update and build only (an external solver then calls torques()).
  void build(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
             const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot);
  /// (na) tau = M_a qdd + h_a - J_a^T f for a solution x of the last build.
  VectorXd torques(const Eigen::Ref<const VectorXd>& x) const;
  bool within_torque_limits(const VectorXd& tau) const;
  /// Throw std::invalid_argument unless the controller is finalized and x has nx entries (the
  /// bindings call these before torques() and within_limits(); the tick's own calls need not).
  void check_solution(const Eigen::Ref<const VectorXd>& x) const;
  /// Throw std::invalid_argument unless tau has na entries.
  void check_torques(const Eigen::Ref<const VectorXd>& tau) const;
  /// Torques within their limits and, with joint limits, x's actuated accelerations within theirs
  /// (every cold row kept), as of the last build.
  bool within_limits(const Eigen::Ref<const VectorXd>& x, const VectorXd& tau);
  const RowLayout& rows() const { return rows_; }

  /// The relaxed QP of the last build: every active contact's equality rows moved into the cost
  /// with the slack weight, the joint-limit rows left out, solved with eiquadprog (exact, from
  /// scratch; it always has a solution: wbc_layer.qp_builder says why). Returns the status; on
  /// "solved", x(), tau() and contact_slack() are its. Without an active contact:
  /// "infeasible_no_active_contact". Throws std::invalid_argument before the first build.
  std::string solve_relaxed();
  /// [1 / (row unit)^2] > 0: the weight of the relaxed QP's contact rows; 0: no relaxed QP.
  void set_slack_weight(double weight);
  /// Whether the last compute() (or solve_relaxed()) solved the relaxed QP.
  bool relaxed() const { return relaxed_; }
  /// (nf) per active contact, in force order, J_i qdd + Jdot_i v of the relaxed solution (its rows
  /// of A x - b); zero for inactive contacts and after a tick that was not relaxed.
  const VectorXd& contact_slack() const { return contact_slack_; }
  /// The last built QP; with_torque_limits: G_all and h_all hold the joint- and torque-limit rows too.
  /// Throws std::invalid_argument before the first build (there is none yet: see has_problem()).
  const Problem& problem(bool with_torque_limits);
  /// Whether a QP was built (by compute() or build()) since the controller was made.
  bool has_problem() const { return built_; }
  /// Whether the last built QP is finite (compute() returns "non_finite_problem", unsolved,
  /// when it is not: a huge but finite state or reference can overflow).
  bool problem_finite() const;
  /// Contact i's force rows G f <= h, (m, dim) and (m), finite.
  void set_contact(int i, bool active, const MatrixXd& G, const VectorXd& h);
  /// Contact i's frame (a robot frame index): the frame whose motion the contact's rows hold.
  void set_contact_frame(int i, int frame);
  /// [1/s] active contacts' rows: J qdd + Jdot v = -contact_damping u (u: the frame's velocity).
  void set_contact_damping(double damping);
  /// Joint limits as acceleration bounds (wbc_layer.joint_limits): ranges lower/upper (na) [rad],
  /// velocity limits (na) [rad/s] (inf: none), horizon [s] > 0. Without this call: no such rows.
  /// Only before the first build (the QP's rows are sized then).
  void set_joint_limits(const VectorXd& lower, const VectorXd& upper, const VectorXd& velocity, double horizon);
  const VectorXd& x() const { return x_; }
  const VectorXd& tau() const { return tau_; }
  int iterations() const { return iterations_; }
  bool used_torque_limits() const { return used_torque_limits_; }
  /// Whether the next tick solves with the cold rows at once (the last tick's optimum had one
  /// active). State a copy of the controller carries over, so that it solves as the original does.
  bool cold_rows_first() const { return cold_rows_first_; }
  void set_cold_rows_first(bool value) { cold_rows_first_ = value; }
  const Timings& timings() const { return timings_; }
  int na() const { return na_; }
  int nq() const { return robot_.nq(); }
  int nv() const { return robot_.nv(); }

 private:
  void update_state(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                    const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot);
  /// Throws std::invalid_argument (wrong sizes) or std::domain_error (non-finite entries, a base
  /// quaternion whose norm is off 1 by more than kQuaternionNormTolerance) before any is used.
  void check_state(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                   const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) const;
  ConstraintContext constraint_context() {
    return {robot_, layout_, contacts_, bodies_, contact_jacobian_, contact_damping_, na_};
  }
  void assemble();
  void rebuild_structure();
  /// Write the cold rows into G_all, h_all (and copy the hot rows above them) once per build.
  void write_cold_rows();
  bool cold_rows_hold(const Eigen::Ref<const VectorXd>& x, const VectorXd& tau);
  /// Whether a cold row of the last build is active at x (kColdRowActiveTolerance).
  bool cold_row_active(const VectorXd& x) const;

  RobotTerms robot_;
  int na_;
  VectorXd torque_min_, torque_max_;
  std::vector<Contact> contacts_;
  std::vector<std::unique_ptr<EnvironmentBody>> bodies_;
  std::vector<std::unique_ptr<Task>> tasks_;
  Layout layout_;
  bool finalized_ = false;
  bool built_ = false;  // a QP was assembled: problem_'s arrays are sized
  double contact_damping_ = 0.0;
  /// In row order: floating base, one per contact, one per body, joint limits, torque limits.
  std::vector<std::unique_ptr<Constraint>> constraints_;
  std::vector<Constraint*> cold_;             // the cold pieces of constraints_, in order
  JointLimitRows* joint_limits_ = nullptr;    // owned by constraints_
  TorqueLimitRows* torque_limits_ = nullptr;  // owned by constraints_
  RowLayout rows_;
  bool structure_dirty_ = true;  // the active contact set or a contact's rows changed
  bool cold_rows_current_ = false;
  Problem problem_, relaxed_problem_;
  Cost cost_;
  MatrixXd contact_jacobian_;  // (nf, nv), zero rows for inactive contacts
  std::unique_ptr<QpSolver> solver_, limited_solver_;
  EiquadprogSolver relaxed_solver_;
  double slack_weight_ = 0.0;
  bool relaxed_ = false;
  VectorXd x_, tau_, contact_slack_;
  int iterations_ = 0;
  bool used_torque_limits_ = false;
  Timings timings_;
  int com_task_ = -1;
  bool cold_rows_first_ = false;
};

}  // namespace wbc
