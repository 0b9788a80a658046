#include "pieces.hpp"

#include <cmath>

namespace wbc {

// -- environment bodies --------------------------------------------------------------------

SeesawBody::SeesawBody(double mass, const Vector3d& com, double inertia_xx, double radius, const Vector3d& origin,
                       double damping, double gravity)
    : mass_(mass), inertia_xx_(inertia_xx), radius_(radius), damping_(damping), gravity_(gravity), com_(com),
      origin_(origin) {
  s = VectorXd::Zero(1);
  s_dot = VectorXd::Zero(1);
  update(s, s_dot);
}

void SeesawBody::update(const VectorXd& s_in, const VectorXd& s_dot_in) {
  s = s_in;
  s_dot = s_dot_in;
  theta_ = s(0);
  theta_dot_ = s_dot(0);
  const double c = std::cos(theta_), sn = std::sin(theta_);
  rotation_ << 1, 0, 0, 0, c, -sn, 0, sn, c;
  d_rotation_ << 0, 0, 0, 0, -sn, -c, 0, c, -sn;
  centre_ = origin_ + Vector3d(0.0, -radius_ * theta_, 0.0);
  const Vector3d com_jacobian = point_jacobian(com_);
  const Vector3d com_curvature = -minus_second_derivative(com_);
  mass_matrix_(0, 0) = mass_ * com_jacobian.dot(com_jacobian) + inertia_xx_;
  bias_(0) = mass_ * com_jacobian.dot(com_curvature) * theta_dot_ * theta_dot_ +
             mass_ * gravity_ * com_jacobian(2) + damping_ * theta_dot_;
}

Vector3d SeesawBody::point_jacobian(const Vector3d& point_body) const {
  return Vector3d(0.0, -radius_, 0.0) + d_rotation_ * point_body;
}

Vector3d SeesawBody::minus_second_derivative(const Vector3d& point_body) const {
  const Vector3d p = rotation_ * point_body;
  return Vector3d(0.0, p(1), p(2));
}

MatrixXd SeesawBody::frame_jacobian(const Matrix3d& rotation, const Vector3d& translation) const {
  const Vector3d point = rotation_.transpose() * (translation - centre_);
  MatrixXd J(6, 1);
  J.col(0).head<3>() = rotation.transpose() * point_jacobian(point);
  J.col(0).tail<3>() = rotation.transpose() * Vector3d::UnitX();
  return J;
}

Vector6d SeesawBody::frame_drift(const Matrix3d& rotation, const Vector3d& translation) const {
  const Vector3d point = rotation_.transpose() * (translation - centre_);
  const Vector6d twist = frame_jacobian(rotation, translation).col(0) * theta_dot_;
  const Vector3d acceleration = -minus_second_derivative(point) * theta_dot_ * theta_dot_;
  Vector6d drift;
  drift.head<3>() = rotation.transpose() * acceleration - twist.tail<3>().cross(twist.head<3>());
  drift.tail<3>().setZero();
  return drift;
}

// -- tasks ------------------------------------------------------------------------------------

void ComTask::add_cost(Context& context, Cost& cost) const {
  const RobotTerms& robot = context.robot;
  const Vector3d desired = acceleration - kp.cwiseProduct(robot.com - position) -
                           kd.cwiseProduct(robot.com_velocity - velocity);
  cost.add_rows(0, robot.com_jacobian, desired - robot.com_drift, weight);
}

void PostureTask::add_cost(Context& context, Cost& cost) const {
  const RobotTerms& robot = context.robot;
  const int na = robot.nv() - 6;
  const VectorXd desired = -kp.cwiseProduct(robot.q().tail(na) - target) - kd.cwiseProduct(robot.v().tail(na));
  cost.add_diagonal(6, 1.0, desired, weight);
}

void OrientationTask::add_cost(Context& context, Cost& cost) const {
  RobotTerms& robot = context.robot;
  const Vector3d error = log3(robot.frame_rotation(frame) * target.transpose());
  const Vector3d error_velocity = robot.frame_velocity_world(frame).tail<3>();
  const Vector3d desired = -kp.cwiseProduct(error) - kd.cwiseProduct(error_velocity);
  cost.add_rows(0, robot.frame_jacobian(frame, false).bottomRows<3>(),
                desired - robot.frame_drift(frame, false).tail<3>(), weight);
}

void FramePositionTask::add_cost(Context& context, Cost& cost) const {
  RobotTerms& robot = context.robot;
  const Vector3d error = robot.frame_translation(frame) - position;
  const Vector3d error_velocity = robot.frame_velocity_world(frame).head<3>() - velocity;
  const Vector3d desired = -kp.cwiseProduct(error) - kd.cwiseProduct(error_velocity);
  cost.add_rows(0, robot.frame_jacobian(frame, false).topRows<3>(),
                desired - robot.frame_drift(frame, false).head<3>(), weight);
}

void BodyRestTask::add_cost(Context& context, Cost& cost) const {
  const EnvironmentBody& b = *context.bodies.at(body);
  const VectorXd desired = -kp * (b.s - target) - kd * b.s_dot;
  cost.add_diagonal(context.layout.body_start.at(body), 1.0, desired, weight);
}

void ContactForceTask::add_cost(Context& context, Cost& cost) const {
  cost.add_rows(context.layout.force_start.at(contact), rows, target, weight);
}

void AngularMomentumTask::add_cost(Context& context, Cost& cost) const {
  RobotTerms& robot = context.robot;
  const Layout& layout = context.layout;
  const Vector3d r = robot.base_position - robot.com;
  Matrix3d skew;
  skew << 0.0, -r.z(), r.y(), r.z(), 0.0, -r.x(), -r.y(), r.x(), 0.0;
  Eigen::Matrix<double, 3, 6> to_com;
  to_com << skew * robot.base_rotation, robot.base_rotation;
  Eigen::Matrix3Xd rows = Eigen::Matrix3Xd::Zero(3, layout.nf);
  for (size_t i = 0; i < context.contacts.size(); ++i) {
    const Contact& c = context.contacts[i];
    if (!c.active) continue;
    const Matrix6Xd& J = c.jacobian_full(robot);
    rows.middleCols(layout.force_start[i] - layout.forces(), c.dim) =
        to_com * J.topRows(c.dim).leftCols(6).transpose();
  }
  cost.add_rows(layout.forces(), rows, (-damping * robot.angular_momentum).eval(), weight);
}

void RowsTask::add_cost(Context&, Cost& cost) const {
  if (A.rows() > 0) cost.add_rows(start, A, b, weight);
}

void RegularisationTask::add_cost(Context& context, Cost& cost) const {
  const Layout& layout = context.layout;
  const int n_acc = layout.nv + layout.nb;
  cost.P.diagonal().head(n_acc).array() += weight * qdd_weight;
  cost.P.diagonal().tail(layout.nf).array() += weight * force_weight;
}

}  // namespace wbc
