// Rigid-body terms of a floating-base robot at (q, v): what the controller reads each tick.
// Pinocchio stays behind this interface (one heavy translation unit, robot_terms.cpp).
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

namespace wbc {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using Vector6d = Eigen::Matrix<double, 6, 1>;

/// Same terms and conventions as wbc_layer.robot_model.RobotModel (pinocchio's free flyer):
/// M (nv, nv) symmetric with armature, h (nv) bias incl. gravity and joint damping D v,
/// CoM position / velocity / Jacobian (3, nv) / drift (Jcom_dot v), frame quantities.
class RobotTerms {
 public:
  /// `serialized_model`: pinocchio's Model::saveToString(); `damping` (nv) viscous damping.
  RobotTerms(const std::string& serialized_model, const VectorXd& damping);
  ~RobotTerms();

  void update(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v);

  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int nframes() const { return nframes_; }

  const VectorXd& q() const { return q_; }
  const VectorXd& v() const { return v_; }
  MatrixXd M;
  VectorXd h;
  Vector3d com, com_velocity, com_drift;
  Eigen::Matrix3Xd com_jacobian;
  /// Centroidal angular momentum (about the CoM, world axes) [kg m^2/s]; the floating base's
  /// world position and rotation.
  Vector3d angular_momentum, base_position;
  Matrix3d base_rotation;

  /// (6, nv) frame Jacobian, rows [linear; angular]; local: frame axes, else world axes.
  const Matrix6Xd& frame_jacobian(int frame, bool local);
  /// (6) Jdot v: LOCAL spatial acceleration (local) or world-aligned classical (not local).
  const Vector6d& frame_drift(int frame, bool local);
  /// (6) frame twist in world axes (LOCAL_WORLD_ALIGNED).
  Vector6d frame_velocity_world(int frame);
  Matrix3d frame_rotation(int frame) const;
  Vector3d frame_translation(int frame) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int nq_ = 0, nv_ = 0, nframes_ = 0;
  VectorXd q_, v_, damping_;
  // Per-frame caches, valid while stamp == tick_.
  struct FrameCache {
    Matrix6Xd jacobian[2];
    Vector6d drift[2];
    long stamp_jacobian[2] = {-1, -1};
    long stamp_drift[2] = {-1, -1};
  };
  std::vector<FrameCache> frames_;
  long tick_ = 0;
};

/// pinocchio::log3: rotation matrix -> rotation vector [rad].
Vector3d log3(const Matrix3d& rotation);

}  // namespace wbc
