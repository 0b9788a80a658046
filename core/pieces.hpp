// The stackable pieces of the whole-body QP: each task adds its cost terms, each contact its
// rows, each environment body its dynamics. Same formulation as wbc_layer's Python reference
// (qp_builder.py, tasks.py, contacts.py, environment_body.py): see there for the equations.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "robot_terms.hpp"

namespace wbc {

/// Where each variable of x = [qdd (nv), sdd (nb), f (nf)] lives (wbc_layer.layout.QPLayout).
struct Layout {
  int nv = 0, nb = 0, nf = 0;
  std::vector<int> body_start, body_dim, force_start, force_dim;  // force_start: index in x
  int nx() const { return nv + nb + nf; }
  int forces() const { return nv + nb; }
};

/// An environment body the robot stands on (wbc_layer.environment_body.EnvironmentBody).
class EnvironmentBody {
 public:
  virtual ~EnvironmentBody() = default;
  virtual int dof() const = 0;
  virtual void update(const VectorXd& s, const VectorXd& s_dot) = 0;
  virtual const MatrixXd& mass_matrix() const = 0;
  virtual const VectorXd& bias() const = 0;
  /// (6, dof) and (6): the body's twist Jacobian and drift at a frame, frame axes.
  virtual MatrixXd frame_jacobian(const Matrix3d& rotation, const Vector3d& translation) const = 0;
  virtual Vector6d frame_drift(const Matrix3d& rotation, const Vector3d& translation) const = 0;
  /// A user body: its terms, and its Jacobian and drift at each contact on it, are written by the
  /// caller before each tick (Controller::set_body_dynamics, set_contact_body_kinematics).
  virtual bool user() const { return false; }
  VectorXd s, s_dot;
};

/// An environment body class of the user's (wbc_layer.compiled computes its terms in Python).
class UserBody : public EnvironmentBody {
 public:
  explicit UserBody(int dof) : dof_(dof), mass_matrix_(MatrixXd::Identity(dof, dof)), bias_(VectorXd::Zero(dof)) {
    s = s_dot = VectorXd::Zero(dof);
  }
  int dof() const override { return dof_; }
  void update(const VectorXd& s_in, const VectorXd& s_dot_in) override {
    s = s_in;
    s_dot = s_dot_in;
  }
  const MatrixXd& mass_matrix() const override { return mass_matrix_; }
  const VectorXd& bias() const override { return bias_; }
  MatrixXd frame_jacobian(const Matrix3d&, const Vector3d&) const override { return MatrixXd::Zero(6, dof_); }
  Vector6d frame_drift(const Matrix3d&, const Vector3d&) const override { return Vector6d::Zero(); }
  bool user() const override { return true; }
  void set(const MatrixXd& mass_matrix, const VectorXd& bias) {
    mass_matrix_ = mass_matrix;
    bias_ = bias;
  }

 private:
  int dof_;
  MatrixXd mass_matrix_;
  VectorXd bias_;
};

/// wbc_layer.environment_body.SeesawBody: a board rolling about the world x axis.
class SeesawBody : public EnvironmentBody {
 public:
  SeesawBody(double mass, const Vector3d& com, double inertia_xx, double radius, const Vector3d& origin,
             double damping, double gravity);
  int dof() const override { return 1; }
  void update(const VectorXd& s, const VectorXd& s_dot) override;
  const MatrixXd& mass_matrix() const override { return mass_matrix_; }
  const VectorXd& bias() const override { return bias_; }
  MatrixXd frame_jacobian(const Matrix3d& rotation, const Vector3d& translation) const override;
  Vector6d frame_drift(const Matrix3d& rotation, const Vector3d& translation) const override;

 private:
  Vector3d point_jacobian(const Vector3d& point_body) const;
  Vector3d minus_second_derivative(const Vector3d& point_body) const;
  double mass_, inertia_xx_, radius_, damping_, gravity_;
  Vector3d com_, origin_, centre_;
  Matrix3d rotation_, d_rotation_;
  double theta_ = 0, theta_dot_ = 0;
  MatrixXd mass_matrix_{MatrixXd::Zero(1, 1)};
  VectorXd bias_{VectorXd::Zero(1)};
};

/// A contact (wbc_layer.contacts): foot = 6D wrench in the frame's axes; point = 3D world force;
/// user = dim force coordinates whose Jacobian and drift the caller writes before each tick (a
/// Contact subclass of the user's: wbc_layer.compiled computes them in Python).
struct Contact {
  enum Kind { kFoot = 0, kPoint = 1, kUser = 2 };
  Kind kind = kFoot;
  int frame = 0;
  int dim = 6;
  int body = -1;  // environment body it stands on, -1: fixed ground
  bool active = true;
  MatrixXd G;  // (m, dim) force rows G f <= h while active (from the Python contact)
  VectorXd h;
  /// (dim, dof) on an environment body: the body's Jacobian at the contact frame, this tick's
  /// (written by the contact's constraint piece, read by the body's).
  MatrixXd body_jacobian;
  /// On a user body: (6, dof) and (6) the body's Jacobian and drift at the contact frame, written
  /// by the caller before each tick.
  MatrixXd user_body_jacobian;
  Vector6d user_body_drift = Vector6d::Zero();
  /// kUser: (6, nv) and (6), the first dim rows written by the caller, the others zero.
  Matrix6Xd user_jacobian;
  Vector6d user_drift = Vector6d::Zero();
  /// Where Controller::set_references writes this contact's references (references.hpp).
  int min_normal_row = -1, max_normal_row = -1, force_task = -1;
  const Matrix6Xd& jacobian_full(RobotTerms& robot) const {
    return kind == kUser ? user_jacobian : robot.frame_jacobian(frame, kind == kFoot);
  }
  const Vector6d& drift_full(RobotTerms& robot) const {
    return kind == kUser ? user_drift : robot.frame_drift(frame, kind == kFoot);
  }
};

/// What a task may read while adding its cost.
struct Context {
  RobotTerms& robot;
  const Layout& layout;
  const std::vector<Contact>& contacts;
  const std::vector<std::unique_ptr<EnvironmentBody>>& bodies;
};

/// The cost 1/2 x^T P x + lin^T x, accumulated as sum w ||A x - b||^2 then scaled.
struct Cost {
  MatrixXd P;
  VectorXd lin;
  void reset(int nx) {
    P.setZero(nx, nx);
    lin.setZero(nx);
  }
  /// w ||J x[start: start + J.cols()] - b||^2
  template <class Jac, class Vec>
  void add_rows(int start, const Jac& J, const Vec& b, double w) {
    const int n = static_cast<int>(J.cols());
    P.block(start, start, n, n).noalias() += w * J.transpose() * J;
    lin.segment(start, n).noalias() += w * J.transpose() * b;
  }
  /// w ||d * x[start: start + n] - b||^2 with a scalar d.
  template <class Vec>
  void add_diagonal(int start, double d, const Vec& b, double w) {
    const int n = static_cast<int>(b.size());
    P.diagonal().segment(start, n).array() += w * d * d;
    lin.segment(start, n) += (w * d) * b;
  }
  void finish() {
    P *= 2.0;
    lin *= -2.0;
  }
};

class Task {
 public:
  virtual ~Task() = default;
  virtual void add_cost(Context& context, Cost& cost) const = 0;
  /// Whether every array the cost reads has its size (a robot with na actuated joints): a task
  /// is switched on only then (Controller::set_task), so add_cost never reads an unsized one.
  virtual bool ready(int na) const { return true; }
  bool active = false;  // off until its data is written (wbc_layer.compiled writes it, then this)
  double weight = 1.0;
};

/// A task on J qdd + Jdot v tracked with PD feedback: a* = a_ff - kp e - kd e_dot.
class MotionTask : public Task {
 public:
  VectorXd kp, kd;  // per row [1/s^2], [1/s]
  /// Rows of the task (the size of kp and kd): 3, a posture task's na.
  virtual int rows(int na) const { return 3; }
  bool ready(int na) const override { return kp.size() == rows(na) && kd.size() == rows(na); }
};

class ComTask : public MotionTask {
 public:
  Vector3d position = Vector3d::Zero(), velocity = Vector3d::Zero(), acceleration = Vector3d::Zero();
  void add_cost(Context& context, Cost& cost) const override;
};

class PostureTask : public MotionTask {
 public:
  VectorXd target;  // (na)
  void add_cost(Context& context, Cost& cost) const override;
  int rows(int na) const override { return na; }
  bool ready(int na) const override { return MotionTask::ready(na) && target.size() == na; }
};

class OrientationTask : public MotionTask {
 public:
  int frame = 0;
  Matrix3d target = Matrix3d::Identity();
  void add_cost(Context& context, Cost& cost) const override;
};

class FramePositionTask : public MotionTask {
 public:
  int frame = 0;
  Vector3d position = Vector3d::Zero(), velocity = Vector3d::Zero();
  void add_cost(Context& context, Cost& cost) const override;
};

class BodyRestTask : public Task {
 public:
  int body = 0;
  double kp = 10.0, kd = 5.0;
  VectorXd target;  // (dof)
  bool configured = false;  // body and target written (their sizes checked where they are set)
  void add_cost(Context& context, Cost& cost) const override;
  bool ready(int) const override { return configured; }
};

class ContactForceTask : public Task {
 public:
  int contact = 0;
  MatrixXd rows;    // (m, dim): the contact's normal row, or the identity
  VectorXd target;  // (m)
  bool configured = false;  // contact, rows and target written, their sizes checked
  void add_cost(Context& context, Cost& cost) const override;
  bool ready(int) const override { return configured; }
};

/// dL/dt = -damping L through the contact wrenches (wbc_layer.tasks.AngularMomentumTask):
/// rows [skew(p_b - c) R_b, R_b] J_b,i^T on each active contact's force.
class AngularMomentumTask : public Task {
 public:
  double damping = 10.0;  // [1/s]
  void add_cost(Context& context, Cost& cost) const override;
};

/// A task whose rows the caller computes each tick: w ||A x[start: start + A.cols()] - b||^2. The
/// extension point for a task written in Python (wbc_layer.compiled writes A and b before the tick).
class RowsTask : public Task {
 public:
  int start = 0;
  MatrixXd A;  // (m, k)
  VectorXd b;  // (m)
  void add_cost(Context& context, Cost& cost) const override;  // none until rows are written
};

class RegularisationTask : public Task {
 public:
  double qdd_weight = 1e-4, force_weight = 1e-6;
  void add_cost(Context& context, Cost& cost) const override;
};

}  // namespace wbc
