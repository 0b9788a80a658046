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

void check_finalized(bool finalized) {
  if (!finalized) throw std::invalid_argument("finalize() the controller first");
}
}  // namespace

// -- controller ----------------------------------------------------------------------------

Controller::Controller(const std::string& serialized_model, const VectorXd& damping, const VectorXd& torque_min,
                       const VectorXd& torque_max, const std::string& qp_solver, double eps_abs, int max_iter)
    : robot_(serialized_model, damping), na_(robot_.nv() - 6), torque_min_(torque_min), torque_max_(torque_max),
      solver_(make_solver(qp_solver, eps_abs, max_iter)),
      limited_solver_(make_solver(qp_solver, eps_abs, max_iter)) {
  if (robot_.nq() < 7 || robot_.nv() < 6)
    throw std::invalid_argument("the robot model must start with a free-flyer base (nq >= 7, nv >= 6)");
  check_size("torque_min (one per actuated joint, nv - 6)", torque_min.size(), na_);
  check_size("torque_max (one per actuated joint, nv - 6)", torque_max.size(), na_);
  if (!(eps_abs > 0) || !std::isfinite(eps_abs)) throw std::invalid_argument("eps_abs must be finite and > 0");
  if (max_iter < 1) throw std::invalid_argument("max_iter must be >= 1, got " + std::to_string(max_iter));
}

int Controller::add_contact(int kind, int frame, int body) {
  if (finalized_) throw std::invalid_argument("add contacts before finalize()");
  if (kind != 0 && kind != 1)
    throw std::invalid_argument("contact kind must be 0 (foot) or 1 (point), got " + std::to_string(kind));
  if (frame < 0 || frame >= robot_.nframes()) throw std::out_of_range("contact frame index out of range");
  if (body < -1 || body >= static_cast<int>(bodies_.size()))
    throw std::out_of_range("contact body index must be -1 (fixed ground) or a body's index");
  Contact c;
  c.kind = kind == 0 ? Contact::kFoot : Contact::kPoint;
  c.frame = frame;
  c.dim = kind == 0 ? 6 : 3;
  c.body = body;
  contacts_.push_back(c);
  return static_cast<int>(contacts_.size()) - 1;
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
  x_.setZero(layout_.nx());
  tau_.setZero(na_);
  finalized_ = true;
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
  if (built_) throw std::invalid_argument("set the joint limits before the first build");
  check_size("joint lower limits (nv - 6)", lower.size(), na_);
  check_size("joint upper limits (nv - 6)", upper.size(), na_);
  check_size("joint velocity limits (nv - 6)", velocity.size(), na_);
  if (lower.hasNaN() || upper.hasNaN() || velocity.hasNaN())
    throw std::invalid_argument("joint limits must not be NaN");
  if (!(horizon > 0) || !std::isfinite(horizon))
    throw std::invalid_argument("the joint-limit horizon must be finite and > 0");
  if (robot_.nq() - 7 != na_) throw std::invalid_argument("joint limits need one q entry per actuated joint");
  joint_lower_ = lower;
  joint_upper_ = upper;
  joint_velocity_ = velocity;
  joint_horizon_ = horizon;
  nj_ = na_;
  accel_lo_.setZero(na_);
  accel_hi_.setZero(na_);
  structure_dirty_ = true;
}

void Controller::update_joint_bounds() {
  // Same arithmetic, in the same order, as wbc_layer.joint_limits.JointLimits.acceleration_bounds.
  constexpr double kCap = 1e6;  // ACCELERATION_CAP [rad/s^2]
  const double T = joint_horizon_;
  const auto q = robot_.q().tail(na_);
  const auto v = robot_.v().tail(na_);
  for (int j = 0; j < nj_; ++j) {
    double hi = std::min((joint_upper_[j] - q[j] - 2.0 * T * v[j]) / (T * T), (joint_velocity_[j] - v[j]) / T);
    double lo = std::max((joint_lower_[j] - q[j] - 2.0 * T * v[j]) / (T * T), (-joint_velocity_[j] - v[j]) / T);
    if (lo > hi) lo = hi = 0.5 * (lo + hi);
    accel_hi_[j] = std::isnan(hi) ? kCap : std::clamp(hi, -kCap, kCap);
    accel_lo_[j] = std::isnan(lo) ? -kCap : std::clamp(lo, -kCap, kCap);
  }
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

void Controller::rebuild_structure() {
  // What depends only on which contacts are active and on their rows.
  const Layout& L = layout_;
  const int nx = L.nx(), nf = L.nf, nb = L.nb;
  Problem& p = problem_;
  p.A.setZero(6 + nf + nb, nx);
  p.b.setZero(6 + nf + nb);
  contact_jacobian_.setZero();
  body_row_.resize(bodies_.size());
  for (size_t k = 0, row = 6 + nf; k < bodies_.size(); ++k) {
    body_row_[k] = static_cast<int>(row);
    row += bodies_[k]->dof();
  }
  n_contact_rows_ = 0;
  for (const Contact& c : contacts_)
    if (c.active) n_contact_rows_ += static_cast<int>(c.G.rows());
  p.G_contact.setZero(n_contact_rows_, nx);
  p.h_contact.setZero(n_contact_rows_);
  for (size_t i = 0, row = 0; i < contacts_.size(); ++i) {
    const Contact& c = contacts_[i];
    if (!c.active) {  // its force is held at 0: f_i = 0
      p.A.block(6 + L.force_start[i] - L.forces(), L.force_start[i], c.dim, c.dim).setIdentity();
      continue;
    }
    const int m = static_cast<int>(c.G.rows());
    p.G_contact.block(row, L.force_start[i], m, c.dim) = c.G;
    p.h_contact.segment(row, m) = c.h;
    row += m;
  }
  p.G_all.setZero(n_contact_rows_ + 2 * nj_ + 2 * na_, nx);
  p.G_all.topRows(n_contact_rows_) = p.G_contact;
  for (int j = 0; j < nj_; ++j) {  // a_lo <= qdd_a <= a_hi
    p.G_all(n_contact_rows_ + j, L.nv - na_ + j) = 1.0;
    p.G_all(n_contact_rows_ + nj_ + j, L.nv - na_ + j) = -1.0;
  }
  p.h_all.setZero(n_contact_rows_ + 2 * nj_ + 2 * na_);
  p.h_all.head(n_contact_rows_) = p.h_contact;
  structure_dirty_ = false;
}

void Controller::assemble() {
  if (structure_dirty_) rebuild_structure();
  const Layout& L = layout_;
  const int nv = L.nv, nf = L.nf, F = L.forces();
  Problem& p = problem_;
  // Equalities: 6 base rows, one block per contact, then the bodies' dynamics.
  for (size_t i = 0; i < contacts_.size(); ++i) {
    const Contact& c = contacts_[i];
    if (!c.active) continue;
    const int block = L.force_start[i] - F, rows = 6 + block, fi = L.force_start[i];
    const Matrix6Xd& J = c.jacobian_full(robot_);
    const Vector6d& drift = c.drift_full(robot_);
    contact_jacobian_.middleRows(block, c.dim) = J.topRows(c.dim);
    p.A.block(rows, 0, c.dim, nv) = J.topRows(c.dim);
    p.b.segment(rows, c.dim) = -drift.head(c.dim);
    // Contact damping: the rows ask -k_d u for the contact frame's velocity u (relative to the
    // body it stands on), not 0.
    VectorXd velocity = J.topRows(c.dim) * robot_.v();
    if (c.body >= 0) {
      // The contact frame moves with the body's material point under it.
      const EnvironmentBody& body = *bodies_[c.body];
      const Matrix3d R = robot_.frame_rotation(c.frame);
      const Vector3d t = robot_.frame_translation(c.frame);
      const MatrixXd J_body = body.frame_jacobian(R, t).topRows(c.dim);
      p.A.block(rows, L.body_start[c.body], c.dim, body.dof()) = -J_body;
      p.b.segment(rows, c.dim) += body.frame_drift(R, t).head(c.dim);
      velocity -= J_body * body.s_dot;
      // The body receives the opposite wrench: M_s sdd + h_s + J_s^T f = 0.
      p.A.block(body_row_[c.body], fi, body.dof(), c.dim) = J_body.transpose();
    }
    p.b.segment(rows, c.dim) -= contact_damping_ * velocity;
  }
  for (size_t k = 0; k < bodies_.size(); ++k) {
    const EnvironmentBody& body = *bodies_[k];
    p.A.block(body_row_[k], L.body_start[k], body.dof(), body.dof()) = body.mass_matrix();
    p.b.segment(body_row_[k], body.dof()) = -body.bias();
  }
  p.A.topLeftCorner(6, nv) = robot_.M.topRows(6);
  p.A.block(0, F, 6, nf) = -contact_jacobian_.leftCols(6).transpose();
  p.b.head(6) = -robot_.h.head(6);
  update_joint_bounds();
  torque_rows_current_ = false;  // written when a solve or a caller needs them
  // Cost, written straight into the problem.
  Cost& cost = cost_;
  cost.P.swap(p.P);
  cost.lin.swap(p.q);
  cost.reset(L.nx());
  Context context{robot_, layout_, contacts_, bodies_};
  for (const auto& task : tasks_)
    if (task->active && task->weight > 0) task->add_cost(context, cost);
  cost.finish();
  cost.P.swap(p.P);
  cost.lin.swap(p.q);
}

void Controller::fill_torque_rows() {
  // a_lo <= qdd_a <= a_hi, then tau_min <= M_a qdd + h_a - J_a^T f <= tau_max, as G x <= h rows.
  if (torque_rows_current_) return;
  const Layout& L = layout_;
  Problem& p = problem_;
  p.h_all.segment(n_contact_rows_, nj_) = accel_hi_.head(nj_);
  p.h_all.segment(n_contact_rows_ + nj_, nj_) = -accel_lo_.head(nj_);
  const int row = n_contact_rows_ + 2 * nj_;
  p.G_all.block(row, 0, na_, L.nv) = robot_.M.bottomRows(na_);
  p.G_all.block(row, L.forces(), na_, L.nf) = -contact_jacobian_.rightCols(na_).transpose();
  p.G_all.middleRows(row + na_, na_) = -p.G_all.middleRows(row, na_);
  const auto h_actuated = robot_.h.tail(na_);
  p.h_all.segment(row, na_) = torque_max_ - h_actuated;
  p.h_all.segment(row + na_, na_) = h_actuated - torque_min_;
  torque_rows_current_ = true;
}

const Problem& Controller::problem(bool with_torque_limits) {
  if (!built_) throw std::invalid_argument("no QP has been built yet: call compute() or build() first");
  if (with_torque_limits) fill_torque_rows();
  return problem_;
}

void Controller::build(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v,
                       const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot) {
  const auto t0 = std::chrono::steady_clock::now();
  update_state(q, v, s, s_dot);
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

bool Controller::within_torque_limits(const VectorXd& tau) const {
  return !((tau.array() > torque_max_.array()).any() || (tau.array() < torque_min_.array()).any());
}

bool Controller::within_limits(const Eigen::Ref<const VectorXd>& x, const VectorXd& tau) const {
  if (!within_torque_limits(tau)) return false;
  if (nj_ == 0) return true;
  const auto qdd = x.segment(layout_.nv - na_, na_);
  return !((qdd.array() > accel_hi_.array()).any() || (qdd.array() < accel_lo_.array()).any());
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
  // The torque-limit rows are most of the inequalities and rarely active: solve without
  // them first; if the torques respect the limits, that is the full problem's optimum too.
  std::string status = solver_->solve(problem_, problem_.G_contact, problem_.h_contact);
  const QpSolver* used = solver_.get();
  if (status == "solved") {
    tau_ = torques(solver_->x());
    if (!within_limits(solver_->x(), tau_)) {
      used_torque_limits_ = true;
      fill_torque_rows();
      status = limited_solver_->solve(problem_, problem_.G_all, problem_.h_all);
      used = limited_solver_.get();
      if (status == "solved") tau_ = torques(limited_solver_->x());
    }
  }
  timings_.solve = micros_since(t2);
  const auto t3 = clock::now();
  iterations_ = used->iterations();
  if (status == "solved") {
    x_ = used->x();
    if (!tau_.allFinite()) status = "non_finite_torque";
  }
  timings_.torques = micros_since(t3);
  return status;
}

}  // namespace wbc
