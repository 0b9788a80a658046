#include "controller.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace wbc {

namespace {
double micros_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

/// "<what> must have <expected> entries, got <got>" unless they agree.
void check_size(const char* what, Eigen::Index got, Eigen::Index expected) {
  if (got != expected)
    throw std::invalid_argument(std::string(what) + " must have " + std::to_string(expected) + " entries, got " +
                                std::to_string(got));
}

/// wbc_layer.checks.rotation_matrix's test: finite, |R R^T - I| <= 1e-6 + 1e-5 I entry by entry
/// (np.allclose's), |det R - 1| <= 1e-6.
bool is_rotation(const Matrix3d& r) {
  if (!r.allFinite()) return false;
  const Matrix3d off = (r * r.transpose() - Matrix3d::Identity()).cwiseAbs();
  const Matrix3d bound = Matrix3d::Constant(1e-6) + 1e-5 * Matrix3d::Identity();
  return (off.array() <= bound.array()).all() && std::abs(r.determinant() - 1.0) <= 1e-6;
}

void check_finalized(bool finalized) {
  if (!finalized) throw std::invalid_argument("finalize() the controller first");
}
}  // namespace

// -- controller ----------------------------------------------------------------------------

Controller::Controller(const std::string& serialized_model, const VectorXd& damping, const VectorXd& torque_min,
                       const VectorXd& torque_max, const std::string& qp_solver, double eps_abs, int max_iter)
    : robot_(serialized_model, damping), na_(robot_.nv() - 6), torque_min_(torque_min), torque_max_(torque_max),
      solver_(make_solver(qp_solver, eps_abs, max_iter)),
      limited_solver_(make_solver(qp_solver, eps_abs, max_iter)), relaxed_solver_(max_iter) {
  if (robot_.nq() < 7 || robot_.nv() < 6)
    throw std::invalid_argument("the robot model must start with a free-flyer base (nq >= 7, nv >= 6)");
  check_size("torque_min (one per actuated joint, nv - 6)", torque_min.size(), na_);
  check_size("torque_max (one per actuated joint, nv - 6)", torque_max.size(), na_);
  if (!(eps_abs > 0) || !std::isfinite(eps_abs)) throw std::invalid_argument("eps_abs must be finite and > 0");
  if (max_iter < 1) throw std::invalid_argument("max_iter must be >= 1, got " + std::to_string(max_iter));
}

int Controller::add_contact(int kind, int frame, int body, int dim) {
  if (finalized_) throw std::invalid_argument("add contacts before finalize()");
  if (kind != 0 && kind != 1 && kind != 2)
    throw std::invalid_argument("contact kind must be 0 (foot), 1 (point) or 2 (user), got " + std::to_string(kind));
  if (kind == 2 && (dim < 1 || dim > 6))
    throw std::invalid_argument("a user contact needs 1 to 6 force coordinates, got " + std::to_string(dim));
  if (kind == 2 && body != -1) throw std::invalid_argument("a user contact stands on the fixed ground (body -1)");
  if (frame < 0 || frame >= robot_.nframes()) throw std::out_of_range("contact frame index out of range");
  if (body < -1 || body >= static_cast<int>(bodies_.size()))
    throw std::out_of_range("contact body index must be -1 (fixed ground) or a body's index");
  Contact c;
  c.kind = static_cast<Contact::Kind>(kind);
  c.frame = frame;
  c.dim = kind == 0 ? 6 : kind == 1 ? 3 : dim;
  c.body = body;
  if (kind == 2) c.user_jacobian.setZero(6, robot_.nv());
  if (body >= 0) c.user_body_jacobian.setZero(6, bodies_[body]->dof());
  contacts_.push_back(c);
  return static_cast<int>(contacts_.size()) - 1;
}

int Controller::add_user_body(int dof) {
  if (finalized_ || !contacts_.empty()) throw std::invalid_argument("add bodies before contacts");
  if (dof < 1) throw std::invalid_argument("a body needs at least one coordinate, got " + std::to_string(dof));
  bodies_.push_back(std::make_unique<UserBody>(dof));
  return static_cast<int>(bodies_.size()) - 1;
}

void Controller::set_body_dynamics(int i, const MatrixXd& mass_matrix, const VectorXd& bias) {
  auto* body = dynamic_cast<UserBody*>(bodies_.at(i).get());
  if (body == nullptr) throw std::invalid_argument("body " + std::to_string(i) + " is not a user body");
  const int n = body->dof();
  if (mass_matrix.rows() != n || mass_matrix.cols() != n || bias.size() != n)
    throw std::invalid_argument("a user body's mass matrix must be (" + std::to_string(n) + ", " + std::to_string(n) +
                                ") and its bias (" + std::to_string(n) + ")");
  if (!(mass_matrix.allFinite() && bias.allFinite()))
    throw std::invalid_argument("a user body's mass matrix and bias must be finite");
  body->set(mass_matrix, bias);
}

void Controller::set_contact_body_kinematics(int i, const MatrixXd& jacobian, const VectorXd& drift) {
  Contact& c = contacts_.at(i);
  if (c.body < 0 || !bodies_[c.body]->user())
    throw std::invalid_argument("contact " + std::to_string(i) + " does not stand on a user body");
  const int n = bodies_[c.body]->dof();
  if (jacobian.rows() != 6 || jacobian.cols() != n || drift.size() != 6)
    throw std::invalid_argument("a user body's Jacobian at a contact must be (6, " + std::to_string(n) +
                                ") and its drift (6)");
  if (!(jacobian.allFinite() && drift.allFinite()))
    throw std::invalid_argument("a user body's Jacobian and drift must be finite");
  c.user_body_jacobian = jacobian;
  c.user_body_drift = drift;
}

int Controller::add_seesaw(double mass, const Vector3d& com, double inertia_xx, double radius,
                           const Vector3d& origin, double damping, double gravity) {
  if (finalized_ || !contacts_.empty()) throw std::invalid_argument("add bodies before contacts");
  if (!(mass > 0 && radius > 0 && damping >= 0 && std::isfinite(mass) && std::isfinite(radius) &&
        std::isfinite(damping) && std::isfinite(inertia_xx) && std::isfinite(gravity) && com.allFinite() &&
        origin.allFinite()))
    throw std::invalid_argument("seesaw: need finite parameters, mass > 0, radius > 0, damping >= 0");
  bodies_.push_back(std::make_unique<SeesawBody>(mass, com, inertia_xx, radius, origin, damping, gravity));
  return static_cast<int>(bodies_.size()) - 1;
}

void Controller::finalize() {
  if (finalized_) throw std::invalid_argument("finalize() the controller once");
  layout_.nv = robot_.nv();
  int start = layout_.nv;
  for (const auto& body : bodies_) {
    layout_.body_start.push_back(start);
    layout_.body_dim.push_back(body->dof());
    start += body->dof();
  }
  layout_.nb = start - layout_.nv;
  for (const auto& c : contacts_) {
    layout_.force_start.push_back(start);
    layout_.force_dim.push_back(c.dim);
    start += c.dim;
  }
  layout_.nf = start - layout_.nv - layout_.nb;
  contact_jacobian_.setZero(layout_.nf, layout_.nv);
  constraints_.push_back(std::make_unique<FloatingBaseDynamics>());
  for (int i = 0; i < n_contacts(); ++i) constraints_.push_back(std::make_unique<ContactConstraint>(i));
  for (int k = 0; k < n_bodies(); ++k) constraints_.push_back(std::make_unique<BodyDynamics>(k));
  auto joint_limits = std::make_unique<JointLimitRows>();
  joint_limits_ = joint_limits.get();
  constraints_.push_back(std::move(joint_limits));
  auto torque_limits = std::make_unique<TorqueLimitRows>(torque_min_, torque_max_);
  torque_limits_ = torque_limits.get();
  constraints_.push_back(std::move(torque_limits));
  for (const auto& piece : constraints_)
    if (!piece->hot()) cold_.push_back(piece.get());
  x_.setZero(layout_.nx());
  contact_slack_.setZero(layout_.nf);
  tau_.setZero(na_);
  finalized_ = true;
}

int Controller::add_constraint(std::unique_ptr<Constraint> piece) {
  check_finalized(finalized_);
  if (piece == nullptr) throw std::invalid_argument("add_constraint needs a constraint piece");
  if (!piece->hot()) throw std::invalid_argument("an added constraint piece must be hot");
  constraints_.push_back(std::move(piece));
  structure_dirty_ = true;
  return static_cast<int>(constraints_.size()) - 1;
}

int Controller::add_task(std::unique_ptr<Task> task) {
  if (task == nullptr) throw std::invalid_argument("add_task needs a task");
  tasks_.push_back(std::move(task));
  return static_cast<int>(tasks_.size()) - 1;
}

void Controller::set_task(int i, bool active, double weight) {
  Task& t = task(i);
  if (!(weight >= 0) || !std::isfinite(weight))
    throw std::invalid_argument("task " + std::to_string(i) + ": weight must be finite and >= 0, got " +
                                std::to_string(weight));
  if (active && !t.ready(na_))
    throw std::invalid_argument("task " + std::to_string(i) +
                                " cannot be switched on before its data and gains are set");
  t.active = active;
  t.weight = weight;
}

void Controller::check_state(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                             const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) const {
  check_finalized(finalized_);
  check_size("q (nq)", q.size(), robot_.nq());
  check_size("v (nv)", v.size(), robot_.nv());
  check_size("s (one entry per body coordinate)", s.size(), layout_.nb);
  check_size("s_dot (one entry per body coordinate)", s_dot.size(), layout_.nb);
  if (!(q.allFinite() && v.allFinite() && s.allFinite() && s_dot.allFinite()))
    throw std::domain_error("the state (q, v, s, s_dot) has non-finite entries");
  const double norm = q.segment<4>(3).norm();
  if (!(std::abs(norm - 1.0) <= kQuaternionNormTolerance))
    throw std::domain_error("the base quaternion q[3:7] must have unit norm, got norm " + std::to_string(norm));
}

void Controller::update_state(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                              const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) {
  check_state(q, v, s, s_dot);
  robot_.update(q, v);
  int start = 0;
  for (auto& body : bodies_) {
    body->update(s.segment(start, body->dof()), s_dot.segment(start, body->dof()));
    start += body->dof();
  }
}

void Controller::set_joint_limits(const VectorXd& lower, const VectorXd& upper, const VectorXd& velocity,
                                  double horizon) {
  check_finalized(finalized_);
  if (built_) throw std::invalid_argument("set the joint limits before the first build");
  check_size("joint lower limits (nv - 6)", lower.size(), na_);
  check_size("joint upper limits (nv - 6)", upper.size(), na_);
  check_size("joint velocity limits (nv - 6)", velocity.size(), na_);
  if (lower.hasNaN() || upper.hasNaN() || velocity.hasNaN())
    throw std::invalid_argument("joint limits must not be NaN");
  if (!(horizon > 0) || !std::isfinite(horizon))
    throw std::invalid_argument("the joint-limit horizon must be finite and > 0");
  if (robot_.nq() - 7 != na_) throw std::invalid_argument("joint limits need one q entry per actuated joint");
  joint_limits_->set(lower, upper, velocity, horizon);
  structure_dirty_ = true;
}

void Controller::set_slack_weight(double weight) {
  if (!(weight >= 0) || !std::isfinite(weight))
    throw std::invalid_argument("the contact slack weight must be finite and >= 0");
  slack_weight_ = weight;
}

void Controller::set_contact(int i, bool active, const MatrixXd& G, const VectorXd& h) {
  Contact& c = contacts_.at(i);
  if (G.cols() != c.dim || G.rows() != h.size())
    throw std::invalid_argument("contact rows must be (m, " + std::to_string(c.dim) + ") and (m), got (" +
                                std::to_string(G.rows()) + ", " + std::to_string(G.cols()) + ") and (" +
                                std::to_string(h.size()) + ")");
  if (!(G.allFinite() && h.allFinite())) throw std::invalid_argument("contact rows must be finite");
  c.active = active;
  c.G = G;
  c.h = h;
  structure_dirty_ = true;
}

void Controller::set_contact_kinematics(int i, const MatrixXd& jacobian, const VectorXd& drift) {
  Contact& c = contacts_.at(i);
  if (c.kind != Contact::kUser) throw std::invalid_argument("contact " + std::to_string(i) + " is not a user contact");
  if (jacobian.rows() != c.dim || jacobian.cols() != robot_.nv() || drift.size() != c.dim)
    throw std::invalid_argument("a user contact's Jacobian must be (" + std::to_string(c.dim) + ", " +
                                std::to_string(robot_.nv()) + ") and its drift (" + std::to_string(c.dim) + "), got (" +
                                std::to_string(jacobian.rows()) + ", " + std::to_string(jacobian.cols()) + ") and (" +
                                std::to_string(drift.size()) + ")");
  if (!(jacobian.allFinite() && drift.allFinite()))
    throw std::invalid_argument("a user contact's Jacobian and drift must be finite");
  c.user_jacobian.topRows(c.dim) = jacobian;
  c.user_drift.head(c.dim) = drift;
}

void Controller::set_contact_damping(double damping) {
  if (!(damping >= 0) || !std::isfinite(damping))
    throw std::invalid_argument("contact damping must be finite and >= 0");
  contact_damping_ = damping;
}

void Controller::set_contact_frame(int i, int frame) {
  Contact& c = contacts_.at(i);
  if (frame < 0 || frame >= robot_.nframes()) throw std::out_of_range("contact frame index out of range");
  c.frame = frame;
}

void Controller::set_com_task(int task_index) {
  if (dynamic_cast<ComTask*>(&task(task_index)) == nullptr)
    throw std::invalid_argument("task " + std::to_string(task_index) + " is not a CoM task");
  com_task_ = task_index;
}

void Controller::set_contact_reference_rows(int i, const ContactReferenceRows& rows) {
  Contact& c = contacts_.at(i);
  const int m = static_cast<int>(c.h.size());
  if (rows.min_row < 0 || rows.min_row >= m || rows.max_row < 0 || rows.max_row >= m || rows.min_row == rows.max_row)
    throw std::invalid_argument("contact " + std::to_string(i) + ": normal-bound rows must be two rows of its " +
                                std::to_string(m) + " force rows (write them with set_contact first)");
  if (rows.force_task != -1) {
    auto* force = dynamic_cast<ContactForceTask*>(&task(rows.force_task));
    if (force == nullptr || !force->configured || force->contact != i || force->rows.rows() != 1)
      throw std::invalid_argument("contact " + std::to_string(i) + ": task " + std::to_string(rows.force_task) +
                                  " is not this contact's normal-force task");
  }
  c.min_normal_row = rows.min_row;
  c.max_normal_row = rows.max_row;
  c.force_task = rows.force_task;
}

void Controller::set_references(const StepReferences& references) {
  // Check everything first: a rejected value writes nothing.
  if (com_task_ < 0) throw std::invalid_argument("set_com_task() first");
  if (!(references.com_position.allFinite() && references.com_velocity.allFinite() &&
        references.com_acceleration.allFinite()))
    throw std::invalid_argument("CoM reference must be finite");
  if (references.contacts.size() != contacts_.size())
    throw std::invalid_argument("references must hold one entry per contact (" + std::to_string(contacts_.size()) +
                                "), got " + std::to_string(references.contacts.size()));
  for (std::size_t i = 0; i < contacts_.size(); ++i) {
    const Contact& c = contacts_[i];
    const ContactReference& r = references.contacts[i];
    const std::string what = "contact " + std::to_string(i) + ": ";
    if (c.min_normal_row < 0)
      throw std::invalid_argument(what + "no reference rows (set_contact_reference_rows; a user contact's come from Python)");
    if (!(std::isfinite(r.min_normal_force) && std::isfinite(r.max_normal_force) && 0 <= r.min_normal_force &&
          r.min_normal_force <= r.max_normal_force))
      throw std::invalid_argument(what + "need 0 <= min_normal_force <= max_normal_force, finite");
    if (r.track_force && (c.force_task < 0 || !std::isfinite(r.force_target) || !std::isfinite(r.force_weight)))
      throw std::invalid_argument(what + "a tracked force needs a force task and a finite target and weight");
    if (c.force_task >= 0 && static_cast<const ContactForceTask&>(*tasks_[c.force_task]).rows.rows() != 1)
      throw std::invalid_argument(what + "its force task tracks the full force vector, not the normal force");
  }
  for (const FrameReference& r : references.frames) {
    if (dynamic_cast<FramePositionTask*>(&task(r.task)) == nullptr)
      throw std::invalid_argument("task " + std::to_string(r.task) + " is not a frame position task");
    if (!(r.position.allFinite() && r.velocity.allFinite()))
      throw std::invalid_argument("task " + std::to_string(r.task) + ": frame reference must be finite");
    if (r.active && !task(r.task).ready(na_))
      throw std::invalid_argument("task " + std::to_string(r.task) + " cannot be switched on before its gains are set");
  }
  for (const OrientationReference& r : references.orientations) {
    if (dynamic_cast<OrientationTask*>(&task(r.task)) == nullptr)
      throw std::invalid_argument("task " + std::to_string(r.task) + " is not an orientation task");
    if (!is_rotation(r.target))
      throw std::invalid_argument("task " + std::to_string(r.task) +
                                  ": orientation target must be a 3x3 rotation matrix (orthonormal, det +1)");
    if (r.active && !task(r.task).ready(na_))
      throw std::invalid_argument("task " + std::to_string(r.task) + " cannot be switched on before its gains are set");
  }
  for (const BodyRestReference& r : references.body_rests) {
    const auto* rest = dynamic_cast<const BodyRestTask*>(&task(r.task));
    const std::string what = "task " + std::to_string(r.task);
    if (rest == nullptr) throw std::invalid_argument(what + " is not a body rest task");
    if (!rest->configured) throw std::invalid_argument(what + ": its body is not set yet (set_body_rest)");
    if (r.target.size() != body_dof(rest->body))
      throw std::invalid_argument(what + ": body rest target must have the body's " + std::to_string(body_dof(rest->body)) +
                                  " coordinates, got " + std::to_string(r.target.size()));
    if (!r.target.allFinite()) throw std::invalid_argument(what + ": body rest target must be finite");
  }
  auto& com = static_cast<ComTask&>(*tasks_[com_task_]);
  com.position = references.com_position;
  com.velocity = references.com_velocity;
  com.acceleration = references.com_acceleration;
  for (std::size_t i = 0; i < contacts_.size(); ++i) {
    Contact& c = contacts_[i];
    const ContactReference& r = references.contacts[i];
    if (c.active != r.active || c.h[c.min_normal_row] != -r.min_normal_force || c.h[c.max_normal_row] != r.max_normal_force) {
      c.active = r.active;
      c.h[c.min_normal_row] = -r.min_normal_force;
      c.h[c.max_normal_row] = r.max_normal_force;
      structure_dirty_ = true;  // as set_contact
    }
    if (c.force_task < 0) continue;
    auto& force = static_cast<ContactForceTask&>(*tasks_[c.force_task]);
    if (r.track_force) {
      force.target[0] = r.force_target;
      force.active = true;
      if (r.force_weight >= 0) force.weight = r.force_weight;
    } else {
      force.active = false;
    }
  }
  for (const FrameReference& r : references.frames) {
    auto& frame = static_cast<FramePositionTask&>(*tasks_[r.task]);
    frame.active = r.active;
    frame.position = r.position;
    frame.velocity = r.velocity;
  }
  for (const OrientationReference& r : references.orientations) {
    auto& orientation = static_cast<OrientationTask&>(*tasks_[r.task]);
    orientation.active = r.active;
    orientation.target = r.target;
  }
  for (const BodyRestReference& r : references.body_rests) {
    auto& rest = static_cast<BodyRestTask&>(*tasks_[r.task]);
    rest.active = r.active;
    rest.target = r.target;
  }
}

void Controller::rebuild_structure() {
  // What depends only on which contacts are active and on their rows.
  const ConstraintContext context = constraint_context();
  rows_.plan(constraints_, context);
  const int nx = layout_.nx();
  Problem& p = problem_;
  p.A.setZero(rows_.n_eq, nx);
  p.b.setZero(rows_.n_eq);
  p.G_hot.setZero(rows_.n_hot, nx);
  p.h_hot.setZero(rows_.n_hot);
  p.G_all.setZero(rows_.n_in, nx);
  p.h_all.setZero(rows_.n_in);
  contact_jacobian_.setZero();
  for (size_t k = 0; k < constraints_.size(); ++k) constraints_[k]->write_structure(context, rows_.blocks[k], p);
  structure_dirty_ = false;
}

void Controller::assemble() {
  if (structure_dirty_) rebuild_structure();
  const Layout& L = layout_;
  for (size_t i = 0; i < contacts_.size(); ++i) {  // what the dynamics, torque rows and torques read
    const Contact& c = contacts_[i];
    if (c.active) contact_jacobian_.middleRows(L.force_start[i] - L.forces(), c.dim) = c.jacobian_full(robot_).topRows(c.dim);
  }
  const ConstraintContext context = constraint_context();
  for (size_t k = 0; k < constraints_.size(); ++k) constraints_[k]->write(context, rows_.blocks[k], problem_);
  cold_rows_current_ = false;  // written when a solve or a caller needs them
  // Cost, written straight into the problem.
  Problem& p = problem_;
  Cost& cost = cost_;
  cost.P.swap(p.P);
  cost.lin.swap(p.q);
  cost.reset(L.nx());
  Context task_context{robot_, layout_, contacts_, bodies_};
  for (const auto& task : tasks_)
    if (task->active && task->weight > 0) task->add_cost(task_context, cost);
  cost.finish();
  cost.P.swap(p.P);
  cost.lin.swap(p.q);
}

void Controller::write_cold_rows() {
  if (cold_rows_current_) return;
  Problem& p = problem_;
  p.G_all.topRows(rows_.n_hot) = p.G_hot;
  p.h_all.head(rows_.n_hot) = p.h_hot;
  const ConstraintContext context = constraint_context();
  for (size_t k = 0; k < constraints_.size(); ++k)
    if (!constraints_[k]->hot()) constraints_[k]->write_cold(context, rows_.blocks[k], p);
  cold_rows_current_ = true;
}

bool Controller::cold_rows_hold(const Eigen::Ref<const VectorXd>& x, const VectorXd& tau) {
  const ConstraintContext context = constraint_context();
  for (const Constraint* piece : cold_)
    if (!piece->holds(context, x, tau)) return false;
  return true;
}

bool Controller::cold_row_active(const VectorXd& x) const {
  const Problem& p = problem_;
  const int n_cold = rows_.n_in - rows_.n_hot;
  for (int i = 0; i < n_cold; ++i) {
    const int row = rows_.n_hot + i;
    const double bound = p.h_all[row];
    if (p.G_all.row(row).dot(x) - bound > -kColdRowActiveTolerance * std::max(1.0, std::abs(bound))) return true;
  }
  return false;
}

const Problem& Controller::problem(bool with_torque_limits) {
  if (!built_) throw std::invalid_argument("no QP has been built yet: call compute() or build() first");
  if (with_torque_limits) write_cold_rows();
  return problem_;
}

void Controller::build(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                       const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) {
  const auto t0 = std::chrono::steady_clock::now();
  update_state(q, v, s, s_dot);
  relaxed_ = false;  // this build's QP is not solved yet
  contact_slack_.setZero();
  timings_.update = micros_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  assemble();
  built_ = true;
  timings_.build = micros_since(t1);
  timings_.solve = timings_.torques = 0.0;  // compute() times them; else the caller solves
}

VectorXd Controller::torques(const Eigen::Ref<const VectorXd>& x) const {
  const Layout& L = layout_;
  return robot_.M.bottomRows(na_) * x.head(L.nv) + robot_.h.tail(na_) -
         contact_jacobian_.rightCols(na_).transpose() * x.segment(L.forces(), L.nf);
}

bool Controller::problem_finite() const {
  // P is positive semidefinite, so |P_ij| <= sqrt(P_ii P_jj): a finite diagonal bounds the rest.
  // A holds the mass matrix and the Jacobians, finite for any finite q (they depend on joint angles
  // and relative positions); the force rows were checked when set. What overflows for a huge
  // state or reference (h, the drifts, a task's target) lands in q or b.
  const Problem& p = problem_;
  return p.P.diagonal().allFinite() && p.q.allFinite() && p.b.allFinite();
}

void Controller::check_solution(const Eigen::Ref<const VectorXd>& x) const {
  check_finalized(finalized_);
  check_size("x (nx)", x.size(), layout_.nx());
}

void Controller::check_torques(const Eigen::Ref<const VectorXd>& tau) const {
  check_size("tau (na)", tau.size(), na_);
}

bool Controller::within_torque_limits(const VectorXd& tau) const { return torque_limits_->within(tau); }

bool Controller::within_limits(const Eigen::Ref<const VectorXd>& x, const VectorXd& tau) {
  return cold_rows_hold(x, tau);
}

std::string Controller::solve_relaxed() {
  if (!built_) throw std::invalid_argument("no QP has been built yet: call compute() or build() first");
  relaxed_ = false;
  write_cold_rows();
  const ConstraintContext context = constraint_context();
  std::vector<int> soft, hard, kept;
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const RowBlock& block = rows_.blocks[k];
    auto& eq = constraints_[k]->soft_when_relaxed(context) ? soft : hard;
    for (int r = 0; r < block.n_eq; ++r) eq.push_back(block.eq + r);
    if (!constraints_[k]->dropped_when_relaxed())
      for (int r = 0; r < block.n_in; ++r) kept.push_back(block.in + r);
  }
  if (soft.empty()) return "infeasible_no_active_contact";
  std::sort(kept.begin(), kept.end());
  const Problem& p = problem_;
  Problem& r = relaxed_problem_;
  const MatrixXd A_soft = p.A(soft, Eigen::all);
  const VectorXd b_soft = p.b(soft);
  r.P = p.P;
  r.P.noalias() += (2.0 * slack_weight_) * (A_soft.transpose() * A_soft);
  r.q = p.q;
  r.q.noalias() -= (2.0 * slack_weight_) * (A_soft.transpose() * b_soft);
  r.A = p.A(hard, Eigen::all);
  r.b = p.b(hard);
  r.G_all = p.G_all(kept, Eigen::all);
  r.h_all = p.h_all(kept);
  const std::string status = relaxed_solver_.solve(r, r.G_all, r.h_all);
  iterations_ = relaxed_solver_.iterations();
  if (status != "solved") return status;
  x_ = relaxed_solver_.x();
  tau_ = torques(x_);
  const VectorXd residual = A_soft * x_ - b_soft;
  contact_slack_.setZero();
  for (size_t k = 0, j = 0; k < constraints_.size(); ++k) {  // soft rows are the active contacts'
    const RowBlock& block = rows_.blocks[k];
    if (!constraints_[k]->soft_when_relaxed(context)) continue;
    contact_slack_.segment(block.eq - 6, block.n_eq) = residual.segment(j, block.n_eq);
    j += block.n_eq;
  }
  relaxed_ = true;
  return status;
}

std::string Controller::compute(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                                const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) {
  using clock = std::chrono::steady_clock;
  build(q, v, s, s_dot);
  const auto t2 = clock::now();
  used_torque_limits_ = false;
  if (!problem_finite()) {  // a huge (finite) state or reference overflowed: nothing to solve
    iterations_ = 0;
    timings_.solve = timings_.torques = 0.0;
    return "non_finite_problem";
  }
  // The cold rows (joint and torque limits) are most of the inequalities and rarely active: solve
  // without them first; if the solution keeps them, that is the full problem's optimum too. After a
  // tick whose optimum had a cold row active (a swing leg at its joint limits, a stance knee at its
  // torque limit: such ticks come in runs), solve with them at once: the same optimum, one solve
  // instead of two.
  std::string status = "solved";
  const QpSolver* used = solver_.get();
  bool with_cold_rows = cold_rows_first_;
  if (!with_cold_rows) {
    status = solver_->solve(problem_, problem_.G_hot, problem_.h_hot);
    if (status == "solved") {
      tau_ = torques(solver_->x());
      with_cold_rows = !within_limits(solver_->x(), tau_);
    }
  }
  if (with_cold_rows) {
    used_torque_limits_ = true;
    write_cold_rows();
    status = limited_solver_->solve(problem_, problem_.G_all, problem_.h_all);
    used = limited_solver_.get();
    if (status == "solved") tau_ = torques(limited_solver_->x());
  }
  cold_rows_first_ = status == "solved" && used_torque_limits_ && cold_row_active(used->x());
  iterations_ = used->iterations();
  if (status == "solved") {
    x_ = used->x();
  } else if (slack_weight_ > 0) {  // no rigid-contact solution: the relaxed QP (x_, tau_ its own)
    status = solve_relaxed();
  }
  timings_.solve = micros_since(t2);
  const auto t3 = clock::now();
  if (status == "solved" && !tau_.allFinite()) status = "non_finite_torque";
  timings_.torques = micros_since(t3);
  return status;
}

}  // namespace wbc
