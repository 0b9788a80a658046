// The only translation unit that includes pinocchio's algorithms (slow to compile).
#include "robot_terms.hpp"

#include <pinocchio/algorithm/center-of-mass.hpp>
#include <pinocchio/algorithm/compute-all-terms.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/spatial.hpp>
#include <stdexcept>

#include "model_io.hpp"

namespace wbc {

struct RobotTerms::Impl {
  pinocchio::Model model;
  pinocchio::Data data;
};

RobotTerms::RobotTerms(const std::string& serialized_model, const VectorXd& damping) : impl_(new Impl) {
  load_model(impl_->model, serialized_model);
  impl_->data = pinocchio::Data(impl_->model);
  nq_ = impl_->model.nq;
  nv_ = impl_->model.nv;
  nframes_ = static_cast<int>(impl_->model.nframes);
  if (damping.size() != nv_) throw std::invalid_argument("damping must have nv entries");
  damping_ = damping;
  M.setZero(nv_, nv_);
  h.setZero(nv_);
  com_jacobian.setZero(3, nv_);
  frames_.resize(nframes_);
  for (auto& f : frames_) {
    f.jacobian[0].setZero(6, nv_);
    f.jacobian[1].setZero(6, nv_);
  }
  q_ = pinocchio::neutral(impl_->model);
  v_ = VectorXd::Zero(nv_);
  update(q_, v_);
}

RobotTerms::~RobotTerms() = default;

void RobotTerms::update(const Eigen::Ref<const VectorXd>& q, const Eigen::Ref<const VectorXd>& v) {
  if (q.size() != nq_ || v.size() != nv_) throw std::invalid_argument("q must have nq and v nv entries");
  const auto& model = impl_->model;
  auto& data = impl_->data;
  q_ = q;
  v_ = v;
  pinocchio::computeAllTerms(model, data, q_, v_);
  M = data.M;
  M.triangularView<Eigen::StrictlyLower>() = M.transpose();  // crba fills the upper triangle
  h = data.nle + damping_.cwiseProduct(v_);
  com = data.com[0];
  com_velocity = data.vcom[0];
  com_jacobian = data.Jcom;
  // computeAllTerms leaves data.a = the joint accelerations at qdd = 0, so frame accelerations
  // are the drifts; the CoM's follows from them without a second kinematics pass.
  pinocchio::centerOfMass(model, data, pinocchio::ACCELERATION, false);
  com_drift = data.acom[0];
  angular_momentum = data.hg.angular();  // computeAllTerms runs ccrba
  base_position = data.oMi[1].translation();
  base_rotation = data.oMi[1].rotation();
  pinocchio::updateFramePlacements(model, data);
  ++tick_;
}

const Matrix6Xd& RobotTerms::frame_jacobian(int frame, bool local) {
  auto& cache = frames_.at(frame);
  const int k = local ? 1 : 0;
  if (cache.stamp_jacobian[k] != tick_) {
    cache.jacobian[k].setZero();
    pinocchio::getFrameJacobian(impl_->model, impl_->data, static_cast<pinocchio::FrameIndex>(frame),
                                local ? pinocchio::LOCAL : pinocchio::LOCAL_WORLD_ALIGNED, cache.jacobian[k]);
    cache.stamp_jacobian[k] = tick_;
  }
  return cache.jacobian[k];
}

const Vector6d& RobotTerms::frame_drift(int frame, bool local) {
  auto& cache = frames_.at(frame);
  const int k = local ? 1 : 0;
  if (cache.stamp_drift[k] != tick_) {
    const auto id = static_cast<pinocchio::FrameIndex>(frame);
    if (local)
      cache.drift[k] = pinocchio::getFrameAcceleration(impl_->model, impl_->data, id, pinocchio::LOCAL).toVector();
    else
      cache.drift[k] = pinocchio::getFrameClassicalAcceleration(impl_->model, impl_->data, id,
                                                                 pinocchio::LOCAL_WORLD_ALIGNED)
                           .toVector();
    cache.stamp_drift[k] = tick_;
  }
  return cache.drift[k];
}

Vector6d RobotTerms::frame_velocity_world(int frame) {
  return pinocchio::getFrameVelocity(impl_->model, impl_->data, static_cast<pinocchio::FrameIndex>(frame),
                                     pinocchio::LOCAL_WORLD_ALIGNED)
      .toVector();
}

Matrix3d RobotTerms::frame_rotation(int frame) const { return impl_->data.oMf.at(frame).rotation(); }

Vector3d RobotTerms::frame_translation(int frame) const { return impl_->data.oMf.at(frame).translation(); }

Vector3d log3(const Matrix3d& rotation) { return pinocchio::log3(rotation); }

}  // namespace wbc
