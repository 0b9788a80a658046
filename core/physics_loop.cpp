// An env step's physics steps in one call: see physics_loop.hpp. Every operation that reaches the
// simulated state is the one the env's Python loop does, in the same order, so that the two give the
// same trajectories bit for bit (tests/test_physics_loop.py): the base rotation is MuJoCo's own
// mju_quat2Mat, its transpose applied as the Python bridge applies it (a sum of scaled rows, in order), the
// torques divided by the gear and clipped as ndarray.clip does. The file is compiled with
// -ffp-contract=off (CMakeLists.txt): a fused multiply-add would round differently.
#include "physics_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace wbc {

namespace {

double micros_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

bool sum_is_finite(const mjtNum* values, int n) {
  // As the Python checks: a sum is not finite as soon as one entry is not (or the state is
  // absurdly large).
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += values[i];
  return std::isfinite(sum);
}

}  // namespace

PhysicsLoop::PhysicsLoop(const mjModel* model, mjData* data, LoopLayout layout)
    : m_(model), d_(data), layout_(std::move(layout)) {
  if (mj_version() != mjVERSION_HEADER)
    throw std::runtime_error("the MuJoCo library loaded is version " + std::to_string(mj_version()) +
                             ", humanoid_env._physics was compiled against " + std::to_string(mjVERSION_HEADER) +
                             ": reinstall humanoid-wbc against the installed mujoco");
  if (m_ == nullptr || d_ == nullptr) throw std::invalid_argument("model and data must not be null");
  const int na = static_cast<int>(layout_.actuators.size());
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  for (int i : layout_.q_from_qpos) check(0 <= i && i < m_->nq, "q_from_qpos entry " + std::to_string(i) + " outside qpos");
  for (int i : layout_.v_from_qvel) check(0 <= i && i < m_->nv, "v_from_qvel entry " + std::to_string(i) + " outside qvel");
  check(layout_.v_from_qvel.size() >= 3, "v_from_qvel needs the base's linear velocity (3 entries) first");
  check(0 <= layout_.quaternion && layout_.quaternion + 4 <= m_->nq, "the base quaternion lies outside qpos");
  for (int a : layout_.actuators) check(0 <= a && a < m_->nu, "actuator " + std::to_string(a) + " outside ctrl");
  check(layout_.gear.size() == na && layout_.ctrl_min.size() == na && layout_.ctrl_max.size() == na,
        "gear, ctrl_min and ctrl_max need one entry per actuator (" + std::to_string(na) + ")");
  check(0 <= layout_.push_body && layout_.push_body < m_->nbody, "push_body outside the model's bodies");
  q_.setZero(static_cast<Eigen::Index>(layout_.q_from_qpos.size()));
  v_.setZero(static_cast<Eigen::Index>(layout_.v_from_qvel.size()));
  reserve(10);
}

void PhysicsLoop::reserve(int k) {
  const Eigen::Index held = tau_.rows();
  if (held < k) {  // an env step run in segments reads all its rows after the last one
    tau_.conservativeResize(k, na());
    tau_computed_.conservativeResize(k, na());
    tick_us_.conservativeResize(k);
    solve_us_.conservativeResize(k);
    tau_.bottomRows(k - held).setZero();
    tau_computed_.bottomRows(k - held).setZero();
    tick_us_.tail(k - held).setZero();
    solve_us_.tail(k - held).setZero();
  }
}

void PhysicsLoop::to_pinocchio(const mjtNum* qpos, const mjtNum* qvel) {
  for (Eigen::Index i = 0; i < q_.size(); ++i) q_[i] = qpos[layout_.q_from_qpos[i]];
  for (Eigen::Index i = 0; i < v_.size(); ++i) v_[i] = qvel[layout_.v_from_qvel[i]];
  mjtNum R[9];
  mju_quat2Mat(R, qpos + layout_.quaternion);
  const double x0 = v_[0], x1 = v_[1], x2 = v_[2];
  for (int i = 0; i < 3; ++i) v_[i] = R[i] * x0 + R[3 + i] * x1 + R[6 + i] * x2;  // R^T x
}

bool PhysicsLoop::state_sound(int warnings_at_reset) const {
  const int warnings = d_->warning[mjWARN_BADQPOS].number + d_->warning[mjWARN_BADQVEL].number +
                       d_->warning[mjWARN_BADQACC].number;
  return warnings <= warnings_at_reset && sum_is_finite(d_->qpos, m_->nq) && sum_is_finite(d_->qvel, m_->nv) &&
         sum_is_finite(d_->act, m_->na);
}

bool PhysicsLoop::no_step_certain(const StandingWatch& w, int i) {
  mj_subtreeVel(m_, d_);  // (what the law's caller runs at every step: the same data after it)
  const mjtNum* com = d_->subtree_com + 3 * w.root_body;
  const mjtNum* velocity = d_->subtree_linvel + 3 * w.root_body;
  double* xi = w.capture_point + 2 * i;
  for (int j = 0; j < 2; ++j) xi[j] = com[j] + velocity[j] / w.omega;
  double shift = 0.0;
  for (int f = 0; f < 2; ++f) {
    const mjtNum* position = d_->site_xpos + 3 * w.sole_sites[f];
    const mjtNum* rotation = d_->site_xmat + 9 * w.sole_sites[f];
    std::copy(position, position + 3, w.sole_xpos + 6 * i + 3 * f);
    std::copy(rotation, rotation + 9, w.sole_xmat + 18 * i + 9 * f);
    const double yaw = std::atan2(rotation[3], rotation[0]);
    shift = std::max(shift, std::hypot(position[0] - w.key[2 * f], position[1] - w.key[2 * f + 1]) +
                                std::abs(yaw - w.key[4 + f]) * w.corner_radius);
  }
  double slack = std::numeric_limits<double>::infinity();
  for (int e = 0; e < w.n_edges; ++e)
    slack = std::min(slack, w.offsets[e] - (w.normals[2 * e] * xi[0] + w.normals[2 * e + 1] * xi[1]));
  return slack >= w.depth + shift;
}

double vertical_contact_force(const mjModel* m, const mjData* d, int geom) {
  double force = 0.0;
  mjtNum wrench[6];
  for (int c = 0; c < d->ncon; ++c) {
    const mjContact& contact = d->contact[c];
    if (contact.geom[0] != geom && contact.geom[1] != geom) continue;
    mj_contactForce(m, d, c, wrench);  // in the contact's frame (rows: normal, then two tangents), on geom[1]
    const double* frame = contact.frame;
    const double z = frame[2] * wrench[0] + frame[5] * wrench[1] + frame[8] * wrench[2];
    force += contact.geom[1] == geom ? z : -z;
  }
  return force;
}

double PhysicsLoop::vertical_contact_force(int geom) const { return wbc::vertical_contact_force(m_, d_, geom); }

LoopStop PhysicsLoop::run(Controller* controller, const PlannedReferences* references, const double* torques,
                          const double* push, int first, int k, int warnings_at_reset, const PdGains* pd,
                          const SensedState* sensed, const DelayLine* delay, const StandingWatch* watch,
                          const LandingWatch* landing) {
  if (first < 0 || first > k) throw std::invalid_argument("first must lie in [0, k]");
  if (controller != nullptr) {
    if (references == nullptr) throw std::invalid_argument("a controller's loop needs references");
    int body_dof = 0;
    for (int b = 0; b < controller->n_bodies(); ++b) body_dof += controller->body_dof(b);
    if (body_dof != references->body_dof || (body_dof > 0 && (references->body_s == nullptr || references->body_s_dot == nullptr)))
      throw std::invalid_argument("the environment bodies' sensed state must have " + std::to_string(body_dof) +
                                  " coordinates per step, got " + std::to_string(references->body_dof));
    if (controller->nq() != q_.size() || controller->nv() != v_.size() || controller->na() != na())
      throw std::invalid_argument("the controller's sizes (nq, nv, na) do not match the loop's layout");
  } else if (torques == nullptr && pd == nullptr) {
    throw std::invalid_argument("a loop without a controller needs torques or PD gains");
  }
  reserve(k);
  status_.clear();
  error_.clear();
  const int nc = controller != nullptr ? controller->n_contacts() : 0;
  const int nt = references != nullptr ? static_cast<int>(references->frame_tasks.size()) : 0;
  const int no = references != nullptr ? static_cast<int>(references->orientation_tasks.size()) : 0;
  const int nr = references != nullptr ? static_cast<int>(references->rest_tasks.size()) : 0;
  int rest_width = 0;
  for (int t = 0; t < nr; ++t) rest_width += references->rest_dofs[t];
  if (controller != nullptr) {
    step_references_.contacts.resize(nc);
    step_references_.frames.resize(nt);
    step_references_.orientations.resize(no);
    step_references_.body_rests.resize(nr);
  }
  const int na = this->na();
  mjtNum* push_force = d_->xfrc_applied + 6 * layout_.push_body;
  for (int i = first; i < k; ++i) {
    steps_done_ = i;
    if (watch != nullptr && i >= watch->from && !no_step_certain(*watch, i)) return LoopStop::kWatch;
    if (landing != nullptr && i >= landing->from && vertical_contact_force(landing->geom) >= landing->threshold)
      return LoopStop::kWatch;
    for (int j = 0; j < 3; ++j) push_force[j] = push[3 * i + j];
    bool relaxed = false;
    auto tau = tau_.row(i);
    const bool estimate = sensed != nullptr && sensed->qpos != nullptr;
    const mjtNum* qpos = estimate ? sensed->qpos + static_cast<std::ptrdiff_t>(m_->nq) * i : d_->qpos;
    const mjtNum* qvel = estimate ? sensed->qvel + static_cast<std::ptrdiff_t>(m_->nv) * i : d_->qvel;
    if (controller != nullptr) {
      const PlannedReferences& r = *references;
      StepReferences& s = step_references_;
      s.com_position = Eigen::Map<const Vector3d>(r.com_position + 3 * i);
      s.com_velocity = Eigen::Map<const Vector3d>(r.com_velocity + 3 * i);
      s.com_acceleration = Eigen::Map<const Vector3d>(r.com_acceleration + 3 * i);
      for (int c = 0; c < nc; ++c) {
        const int at = nc * i + c;
        s.contacts[c] = {r.active[at], r.min_normal_force[at], r.max_normal_force[at], r.track_force[at],
                         r.force_target[at], r.force_weight[at]};
      }
      for (int t = 0; t < nt; ++t) {
        const int at = nt * i + t;
        s.frames[t] = {r.frame_tasks[t], r.frame_active[at], Eigen::Map<const Vector3d>(r.frame_position + 3 * at),
                       Eigen::Map<const Vector3d>(r.frame_velocity + 3 * at)};
      }
      for (int t = 0; t < no; ++t) {
        const int at = no * i + t;
        s.orientations[t] = {r.orientation_tasks[t], r.orientation_active[at],
                             Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(r.orientation_target + 9 * at)};
      }
      for (int t = 0, at = rest_width * i; t < nr; at += r.rest_dofs[t], ++t)
        s.body_rests[t] = {r.rest_tasks[t], r.rest_active[nr * i + t], Eigen::Map<const VectorXd>(r.rest_target + at, r.rest_dofs[t])};
      controller->set_references(s);
      to_pinocchio(qpos, qvel);
      const auto start = std::chrono::steady_clock::now();
      try {
        if (r.body_dof > 0) {
          const Eigen::Map<const VectorXd> s(r.body_s + static_cast<Eigen::Index>(r.body_dof) * i, r.body_dof);
          const Eigen::Map<const VectorXd> s_dot(r.body_s_dot + static_cast<Eigen::Index>(r.body_dof) * i, r.body_dof);
          status_ = controller->compute(q_, v_, s, s_dot);
        } else {
          status_ = controller->compute(q_, v_, no_bodies_, no_bodies_);
        }
      } catch (const std::exception& err) {  // the state was rejected before anything was computed
        error_ = err.what();
        return LoopStop::kInvalidState;
      }
      tick_us_[i] = micros_since(start);
      solve_us_[i] = controller->timings().solve;
      if (status_ != "solved") return LoopStop::kNotSolved;
      relaxed = controller->relaxed();
      tau = controller->tau().transpose();
    } else if (torques != nullptr) {
      tau = Eigen::Map<const Eigen::RowVectorXd>(torques + static_cast<Eigen::Index>(na) * i, na);
      tick_us_[i] = solve_us_[i] = 0.0;
    } else {  // PD at this step's joint state
      to_pinocchio(qpos, qvel);
      Eigen::RowVectorXd row(na);
      pd_torques(na, pd->target, q_.data() + 7, v_.data() + 6, pd->kp, pd->kd, pd->torque_max, row.data());
      tau = row;
      tick_us_[i] = solve_us_[i] = 0.0;
    }
    tau_computed_.row(i) = tau;
    if (delay != nullptr && delay->delay > 0) {  // apply the torque of `delay` steps ago (ActuationDelay.push)
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> queue(delay->queue, delay->delay, na);
      if (!*delay->filled) {
        for (int j = 0; j < delay->delay; ++j) queue.row(j) = tau_computed_.row(i);
        *delay->filled = true;
      }
      tau = queue.row(0);
      for (int j = 0; j + 1 < delay->delay; ++j) queue.row(j) = queue.row(j + 1);
      queue.row(delay->delay - 1) = tau_computed_.row(i);
    }
    if (!tau.allFinite()) return LoopStop::kNonFiniteTorques;
    for (int j = 0; j < na; ++j)
      d_->ctrl[layout_.actuators[j]] = std::min(std::max(tau[j] / layout_.gear[j], layout_.ctrl_min[j]), layout_.ctrl_max[j]);
    mj_step(m_, d_);
    steps_done_ = i + 1;
    if (!state_sound(warnings_at_reset)) return LoopStop::kNonFiniteState;
    if (relaxed) return LoopStop::kRelaxed;
  }
  steps_done_ = k;
  return LoopStop::kDone;
}

}  // namespace wbc
