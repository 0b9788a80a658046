#include "constraints.hpp"

#include <algorithm>
#include <cmath>

namespace wbc {

void RowLayout::plan(const std::vector<std::unique_ptr<Constraint>>& pieces, const ConstraintContext& context) {
  blocks.assign(pieces.size(), RowBlock{});
  n_eq = n_hot = 0;
  for (size_t k = 0; k < pieces.size(); ++k) {
    RowBlock& block = blocks[k];
    block.eq = n_eq;
    block.n_eq = pieces[k]->equality_rows(context);
    n_eq += block.n_eq;
    block.n_in = pieces[k]->inequality_rows(context);
    if (pieces[k]->hot()) {
      block.in = n_hot;
      n_hot += block.n_in;
    }
  }
  n_in = n_hot;
  for (size_t k = 0; k < pieces.size(); ++k) {
    if (pieces[k]->hot()) continue;
    blocks[k].in = n_in;
    n_in += blocks[k].n_in;
  }
}

// -- floating base ----------------------------------------------------------------------------

void FloatingBaseDynamics::write(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  const Layout& L = c.layout;
  p.A.block(block.eq, 0, 6, L.nv) = c.robot.M.topRows(6);
  p.A.block(block.eq, L.forces(), 6, L.nf) = -c.contact_jacobian.leftCols(6).transpose();
  p.b.segment(block.eq, 6) = -c.robot.h.head(6);
}

// -- contacts ---------------------------------------------------------------------------------

int ContactConstraint::inequality_rows(const ConstraintContext& c) const {
  const Contact& contact = c.contacts[contact_];
  return contact.active ? static_cast<int>(contact.G.rows()) : 0;
}

void ContactConstraint::write_structure(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  const Contact& contact = c.contacts[contact_];
  const int fi = c.layout.force_start[contact_];
  if (!contact.active) {  // its force is held at 0: f_i = 0
    p.A.block(block.eq, fi, contact.dim, contact.dim).setIdentity();
    return;
  }
  p.G_hot.block(block.in, fi, block.n_in, contact.dim) = contact.G;
  p.h_hot.segment(block.in, block.n_in) = contact.h;
}

void ContactConstraint::write(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  Contact& contact = c.contacts[contact_];
  if (!contact.active) return;
  const Layout& L = c.layout;
  const int rows = block.eq, dim = contact.dim;
  const Matrix6Xd& J = contact.jacobian_full(c.robot);
  p.A.block(rows, 0, dim, L.nv) = J.topRows(dim);
  p.b.segment(rows, dim) = -contact.drift_full(c.robot).head(dim);
  // Contact damping: the rows ask -k_d u for the contact frame's velocity u (relative to the
  // body it stands on), not 0.
  VectorXd velocity = J.topRows(dim) * c.robot.v();
  if (contact.body >= 0) {
    // The contact frame moves with the body's material point under it.
    const EnvironmentBody& body = *c.bodies[contact.body];
    if (body.user()) {
      contact.body_jacobian = contact.user_body_jacobian.topRows(dim);
      p.b.segment(rows, dim) += contact.user_body_drift.head(dim);
    } else {
      const Matrix3d R = c.robot.frame_rotation(contact.frame);
      const Vector3d t = c.robot.frame_translation(contact.frame);
      contact.body_jacobian = body.frame_jacobian(R, t).topRows(dim);
      p.b.segment(rows, dim) += body.frame_drift(R, t).head(dim);
    }
    p.A.block(rows, L.body_start[contact.body], dim, body.dof()) = -contact.body_jacobian;
    velocity -= contact.body_jacobian * body.s_dot;
  }
  p.b.segment(rows, dim) -= c.contact_damping * velocity;
}

// -- environment bodies -----------------------------------------------------------------------

void BodyDynamics::write(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  const EnvironmentBody& body = *c.bodies[body_];
  const Layout& L = c.layout;
  // The body receives the opposite of each contact's wrench: M_s sdd + h_s + J_s^T f = 0.
  for (size_t i = 0; i < c.contacts.size(); ++i) {
    const Contact& contact = c.contacts[i];
    if (contact.active && contact.body == body_)
      p.A.block(block.eq, L.force_start[i], body.dof(), contact.dim) = contact.body_jacobian.transpose();
  }
  p.A.block(block.eq, L.body_start[body_], body.dof(), body.dof()) = body.mass_matrix();
  p.b.segment(block.eq, body.dof()) = -body.bias();
}

// -- joint limits -----------------------------------------------------------------------------

void JointLimitRows::set(const VectorXd& lower, const VectorXd& upper, const VectorXd& velocity, double horizon) {
  lower_ = lower;
  upper_ = upper;
  velocity_ = velocity;
  horizon_ = horizon;
  n_ = static_cast<int>(lower.size());
  accel_lo_.setZero(n_);
  accel_hi_.setZero(n_);
}

void JointLimitRows::write_structure(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  const int first = c.layout.nv - c.na;
  for (int j = 0; j < n_; ++j) {  // a_lo <= qdd_a <= a_hi
    p.G_all(block.in + j, first + j) = 1.0;
    p.G_all(block.in + n_ + j, first + j) = -1.0;
  }
}

void JointLimitRows::write(const ConstraintContext& c, const RowBlock&, Problem&) {
  // Same arithmetic, in the same order, as wbc_layer.joint_limits.JointLimits.acceleration_bounds.
  constexpr double kCap = 1e6;  // ACCELERATION_CAP [rad/s^2]
  const double T = horizon_;
  const auto q = c.robot.q().tail(c.na);
  const auto v = c.robot.v().tail(c.na);
  for (int j = 0; j < n_; ++j) {
    double hi = std::min((upper_[j] - q[j] - 2.0 * T * v[j]) / (T * T), (velocity_[j] - v[j]) / T);
    double lo = std::max((lower_[j] - q[j] - 2.0 * T * v[j]) / (T * T), (-velocity_[j] - v[j]) / T);
    if (lo > hi) lo = hi = 0.5 * (lo + hi);
    accel_hi_[j] = std::isnan(hi) ? kCap : std::clamp(hi, -kCap, kCap);
    accel_lo_[j] = std::isnan(lo) ? -kCap : std::clamp(lo, -kCap, kCap);
  }
}

void JointLimitRows::write_cold(const ConstraintContext&, const RowBlock& block, Problem& p) {
  p.h_all.segment(block.in, n_) = accel_hi_;
  p.h_all.segment(block.in + n_, n_) = -accel_lo_;
}

bool JointLimitRows::holds(const ConstraintContext& c, const Eigen::Ref<const VectorXd>& x, const VectorXd&) const {
  if (n_ == 0) return true;
  const auto qdd = x.segment(c.layout.nv - c.na, c.na);
  return !((qdd.array() > accel_hi_.array()).any() || (qdd.array() < accel_lo_.array()).any());
}

// -- torque limits ----------------------------------------------------------------------------

void TorqueLimitRows::write_cold(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  const Layout& L = c.layout;
  const int na = c.na, row = block.in;
  p.G_all.block(row, 0, na, L.nv) = c.robot.M.bottomRows(na);
  p.G_all.block(row, L.forces(), na, L.nf) = -c.contact_jacobian.rightCols(na).transpose();
  p.G_all.middleRows(row + na, na) = -p.G_all.middleRows(row, na);
  const auto h_actuated = c.robot.h.tail(na);
  p.h_all.segment(row, na) = max_ - h_actuated;
  p.h_all.segment(row + na, na) = h_actuated - min_;
}

bool TorqueLimitRows::within(const VectorXd& tau) const {
  return !((tau.array() > max_.array()).any() || (tau.array() < min_.array()).any());
}

// -- leg clearance ----------------------------------------------------------------------------

void LegClearanceRows::write(const ConstraintContext& c, const RowBlock& block, Problem& p) {
  if (!active) return;
  RobotTerms& robot = c.robot;
  Vector3d n = robot.frame_rotation(stance_frame).col(1);
  n.z() = 0.0;
  const double norm = n.norm();  // 0 only for a sole on its side: then the world y axis
  n = norm > 1e-9 ? Vector3d((side / norm) * n) : Vector3d(0.0, side, 0.0);
  const Vector3d gap = robot.frame_translation(swing_frame) - robot.frame_translation(stance_frame);
  const Eigen::RowVectorXd n_J = n.transpose() * (robot.frame_jacobian(swing_frame, false).topRows<3>() -
                                                  robot.frame_jacobian(stance_frame, false).topRows<3>());
  const double drift = n.dot(robot.frame_drift(swing_frame, false).head<3>() -
                             robot.frame_drift(stance_frame, false).head<3>());
  const double half_t2 = 0.5 * horizon * horizon;
  p.G_hot.row(block.in).head(c.layout.nv) = -half_t2 * n_J;
  p.h_hot(block.in) = n.dot(gap) + horizon * n_J.dot(robot.v()) + half_t2 * drift - min_distance;
}

}  // namespace wbc
