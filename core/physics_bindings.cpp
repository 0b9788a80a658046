// Python bindings of the compiled physics-step loop: humanoid_env._physics (nanobind). The controller
// it runs is wbc_layer._core's Controller (nanobind shares the type between the two modules).
#include <nanobind/eigen/dense.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>

#include "array_checks.hpp"
#include "physics_loop.hpp"
#include "reference_stages.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using wbc::Controller;
using wbc::LoopStop;
using wbc::PhysicsLoop;

namespace {

using wbc::bindings::Array;
using wbc::bindings::checked;
using wbc::bindings::value_error;

template <class T>
using Mutable = nb::ndarray<T, nb::numpy, nb::c_contig, nb::device::cpu>;

/// Check that `a` holds `size` entries (any shape: a (3,) vector is one row of (k, 3)) and return its data.
template <class A>
auto sized(const char* what, const A& a, std::size_t size) {
  if (a.size() != size)
    value_error(std::string(what) + " must hold " + std::to_string(size) + " entries, got " + std::to_string(a.size()));
  return a.data();
}

/// The loop with the Python objects of the MuJoCo model and data it steps, which it keeps alive.
struct BoundLoop : PhysicsLoop {
  BoundLoop(nb::object model_, nb::object data_, const mjModel* m, mjData* d, wbc::LoopLayout layout)
      : PhysicsLoop(m, d, std::move(layout)), model(std::move(model_)), data(std::move(data_)) {}
  nb::object model, data;
};

/// The sensed-state rows: (k, nq) and (k, nv) arrays, or both of size 0 (the simulator's own state).
wbc::SensedState sensed_rows(BoundLoop& loop, const Array<double>& qpos, const Array<double>& qvel, int k) {
  if (qpos.size() == 0 && qvel.size() == 0) return {};
  const std::size_t rows = static_cast<std::size_t>(k);
  return {checked("sensed_qpos", qpos, {rows, static_cast<std::size_t>(loop.model_nq())}),
          checked("sensed_qvel", qvel, {rows, static_cast<std::size_t>(loop.model_nv())})};
}

/// The actuation delay's FIFO: (delay, na) torques and a (1,) "filled" flag, both written back; 0 rows: none.
wbc::DelayLine delay_line(BoundLoop& loop, Mutable<double>& queue, Mutable<bool>& filled) {
  if (queue.ndim() != 2 || queue.shape(1) != static_cast<std::size_t>(loop.na()))
    value_error("delay_queue must have shape (delay, na) with na = " + std::to_string(loop.na()));
  if (filled.size() != 1) value_error("delay_filled must hold 1 entry");
  return {static_cast<int>(queue.shape(0)), queue.data(), filled.data()};
}

/// The stepping law's watch (wbc::StandingWatch) with its own arrays: the support polygon it is
/// given and the rows it writes.
struct BoundWatch : wbc::StandingWatch {
  std::vector<double> normal_rows, offset_rows, key_row, capture_rows, xpos_rows, xmat_rows;

  /// Point the watch at rows for k steps (grown as needed; the rows it holds are kept).
  void reserve(int k) {
    const auto rows = static_cast<std::size_t>(k);
    if (capture_rows.size() < 2 * rows) {
      capture_rows.resize(2 * rows);
      xpos_rows.resize(6 * rows);
      xmat_rows.resize(18 * rows);
    }
    capture_point = capture_rows.data();
    sole_xpos = xpos_rows.data();
    sole_xmat = xmat_rows.data();
  }

  /// A copy of `values` as a numpy array of `shape` (a copy: the rows may move when a later run grows them).
  static nb::ndarray<nb::numpy, double> rows(const std::vector<double>& values, std::initializer_list<std::size_t> shape) {
    auto* copy = new double[values.size()];
    std::copy(values.begin(), values.end(), copy);
    nb::capsule owner(copy, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return nb::ndarray<nb::numpy, double>(copy, shape, owner);
  }
};

/// loop.run with the GIL released: (LoopStop, steps done); its std::invalid_argument as ValueError.
nb::tuple run_released(BoundLoop& loop, Controller* controller, const wbc::PlannedReferences* references,
                       const double* torques, const double* push, int first, int k, int warnings_at_reset,
                       const wbc::PdGains* pd, const wbc::SensedState* sensed, const wbc::DelayLine* delay,
                       BoundWatch* watch = nullptr, const wbc::LandingWatch* landing = nullptr) {
  LoopStop stop;
  if (watch != nullptr) watch->reserve(k);
  try {
    nb::gil_scoped_release release;
    stop = loop.run(controller, references, torques, push, first, k, warnings_at_reset, pd, sensed, delay, watch, landing);
  } catch (const std::invalid_argument& err) {
    value_error(err.what());
  }
  return nb::make_tuple(stop, loop.steps_done());
}

/// The C pointer behind a mujoco.MjModel or mujoco.MjData (TypeError for anything else).
std::uintptr_t mujoco_address(const nb::handle& object, const char* type_name) {
  const std::string name = nb::cast<std::string>(nb::getattr(nb::handle(object.type()), "__name__"));
  if (name != type_name || !nb::hasattr(object, "_address"))
    throw nb::type_error((std::string("expected a mujoco.") + type_name + ", got " + name).c_str());
  return nb::cast<std::uintptr_t>(object.attr("_address"));
}

}  // namespace

NB_MODULE(_physics, m) {
  m.doc() = "The compiled physics-step loop (core/physics_loop.hpp): an env step's physics steps in one call.";
  m.attr("MUJOCO_VERSION_COMPILED") = mjVERSION_HEADER;
  m.def("mujoco_version_loaded", &mj_version, "mj_version() of the MuJoCo library this module calls.");
  m.def(
      "vertical_contact_forces",
      [](nb::object model, nb::object data, const std::vector<int>& geoms) {
        const auto* mm = reinterpret_cast<const mjModel*>(mujoco_address(model, "MjModel"));
        const auto* d = reinterpret_cast<const mjData*>(mujoco_address(data, "MjData"));
        if (d->nbuffer == 0 || mm->nq != nb::cast<int>(data.attr("qpos").attr("size")))
          value_error("data is not an MjData of this model (its qpos does not have the model's nq entries)");
        Eigen::VectorXd out(static_cast<Eigen::Index>(geoms.size()));
        for (std::size_t i = 0; i < geoms.size(); ++i) {
          if (geoms[i] < 0 || geoms[i] >= mm->ngeom)
            value_error("geom " + std::to_string(geoms[i]) + " is not a geom of the model (" + std::to_string(mm->ngeom) + " geoms)");
          out(static_cast<Eigen::Index>(i)) = wbc::vertical_contact_force(mm, d, geoms[i]);
        }
        return out;
      },
      "model"_a, "data"_a, "geoms"_a,
      "(len(geoms),) the vertical force [N] MuJoCo's contacts exert on each geom in data's present state "
      "(wbc::vertical_contact_force, the landing watch's sum).");
  m.def(
      "glide_rows",
      [](const Array<double>& goal, const Mutable<double>& position, const Mutable<double>& velocity, double max_step,
         double dt, nb::object position_rows, nb::object velocity_rows) {
        if (goal.size() % 3 != 0 || goal.size() == 0) value_error("goal must hold k rows of 3 entries");
        const std::size_t k = goal.size() / 3;
        double* p_rows = position_rows.is_none() ? nullptr : sized("position_rows", nb::cast<Mutable<double>>(position_rows), 3 * k);
        double* v_rows = velocity_rows.is_none() ? nullptr : sized("velocity_rows", nb::cast<Mutable<double>>(velocity_rows), 3 * k);
        wbc::glide_rows(static_cast<int>(k), goal.data(), sized("position", position, 3), sized("velocity", velocity, 3),
                        max_step, dt, p_rows, v_rows);
      },
      "goal"_a, "position"_a, "velocity"_a, "max_step"_a, "dt"_a, "position_rows"_a = nb::none(),
      "velocity_rows"_a = nb::none(),
      "k physics steps of the CoM target's glide (core/reference_stages.hpp): goal (k, 3) [m]; position and "
      "velocity (3) updated in place; the rows after each step into position_rows and velocity_rows (k, 3).");
  m.def(
      "standing_rows",
      [](const Array<double>& decoded_offset, double decoded_share, const Mutable<double>& offset,
         const Mutable<double>& offset_velocity, const Mutable<double>& share, double gain, double max_offset_step,
         double max_share_step, double dt, const Array<double>& base_position, const Array<double>& base_velocity,
         const Mutable<double>& com_position, const Mutable<double>& com_velocity, const Mutable<double>& share_rows) {
        const std::size_t k = share_rows.size();
        if (k == 0) value_error("share_rows must hold k >= 1 entries");
        const std::size_t base = base_position.size() == 3 ? 1 : k;
        wbc::StandingState state{sized("offset", offset, 3), sized("offset_velocity", offset_velocity, 3), sized("share", share, 1)};
        wbc::standing_rows(static_cast<int>(k), sized("decoded_offset", decoded_offset, 3), decoded_share, state, gain,
                           max_offset_step, max_share_step, dt, static_cast<int>(base),
                           sized("base_position", base_position, 3 * base), sized("base_velocity", base_velocity, 3 * base),
                           sized("com_position", com_position, 3 * k), sized("com_velocity", com_velocity, 3 * k),
                           share_rows.data());
      },
      "decoded_offset"_a, "decoded_share"_a, "offset"_a, "offset_velocity"_a, "share"_a, "gain"_a, "max_offset_step"_a,
      "max_share_step"_a, "dt"_a, "base_position"_a, "base_velocity"_a, "com_position"_a, "com_velocity"_a,
      "share_rows"_a,
      "k physics steps of the standing decoder (core/reference_stages.hpp); k = share_rows' size; the base one "
      "row (3) or k rows.");
  m.def(
      "pd_torques",
      [](const Array<double>& target, const Array<double>& q, const Array<double>& qd, const Array<double>& kp,
         const Array<double>& kd, const Array<double>& torque_max) {
        const std::size_t na = target.size();
        Eigen::VectorXd tau(static_cast<Eigen::Index>(na));
        wbc::pd_torques(static_cast<int>(na), target.data(), sized("q", q, na), sized("qd", qd, na), sized("kp", kp, na),
                        sized("kd", kd, na), sized("torque_max", torque_max, na), tau.data());
        return tau;
      },
      "target"_a, "q"_a, "qd"_a, "kp"_a, "kd"_a, "torque_max"_a,
      "PD torques (core/reference_stages.hpp): kp (target - q) - kd qd, clipped to +-torque_max [N m].");
  nb::enum_<LoopStop>(m, "LoopStop")
      .value("DONE", LoopStop::kDone)
      .value("NOT_SOLVED", LoopStop::kNotSolved)
      .value("RELAXED", LoopStop::kRelaxed)
      .value("NON_FINITE_TORQUES", LoopStop::kNonFiniteTorques)
      .value("NON_FINITE_STATE", LoopStop::kNonFiniteState)
      .value("INVALID_STATE", LoopStop::kInvalidState)
      .value("WATCH", LoopStop::kWatch);
  nb::class_<BoundWatch>(m, "StandingWatch")
      .def(
          "__init__",
          [](BoundWatch* self, int root_body, double omega, const std::vector<int>& sole_sites, double corner_radius) {
            if (sole_sites.size() != 2) value_error("sole_sites must name 2 sites (left, right)");
            if (!(omega > 0.0) || !(corner_radius >= 0.0)) value_error("omega must be > 0 and corner_radius >= 0");
            new (self) BoundWatch();
            self->root_body = root_body;
            self->omega = omega;
            self->sole_sites[0] = sole_sites[0];
            self->sole_sites[1] = sole_sites[1];
            self->corner_radius = corner_radius;
          },
          "root_body"_a, "omega"_a, "sole_sites"_a, "corner_radius"_a,
          "The stepping law's watch (core/physics_loop.hpp's StandingWatch): the subtree of root_body gives the "
          "capture point at pendulum frequency omega [1/s]; the soles' sites (left, right); the CoP corners' "
          "radius [m].")
      .def(
          "set_support",
          [](BoundWatch& w, const Array<double>& normals, const Array<double>& offsets, const Array<double>& key, double depth,
             int from) {
            const std::size_t n = offsets.size();
            if (n < 3) value_error("the support polygon needs at least 3 edges");
            const double* nd = checked("normals", normals, {n, 2});
            w.normal_rows.assign(nd, nd + 2 * n);
            w.offset_rows.assign(offsets.data(), offsets.data() + n);
            const double* kd = sized("key", key, 6);
            w.key_row.assign(kd, kd + 6);
            w.normals = w.normal_rows.data();
            w.offsets = w.offset_rows.data();
            w.key = w.key_row.data();
            w.n_edges = static_cast<int>(n);
            w.depth = depth;
            w.from = from;
          },
          "normals"_a, "offsets"_a, "key"_a, "depth"_a, "from_step"_a,
          "The law's last support polygon (outward unit normals (n, 2), offsets (n,) [m]), its feet (6: x, y left "
          "and right [m], their yaws [rad]), the depth [m] beyond the corners' shift, and the first step watched.")
      .def_prop_ro("capture_point", [](const BoundWatch& w) {
            return BoundWatch::rows(w.capture_rows, {w.capture_rows.size() / 2, 2});
          }, nb::rv_policy::automatic, "(rows, 2) each watched step's capture point [m] (a copy; rows not watched hold old values).")
      .def_prop_ro("sole_xpos", [](const BoundWatch& w) {
            return BoundWatch::rows(w.xpos_rows, {w.xpos_rows.size() / 6, 2, 3});
          }, nb::rv_policy::automatic, "(rows, 2, 3) each watched step's sole site positions [m] (a copy).")
      .def_prop_ro("sole_xmat", [](const BoundWatch& w) {
            return BoundWatch::rows(w.xmat_rows, {w.xmat_rows.size() / 18, 2, 9});
          }, nb::rv_policy::automatic, "(rows, 2, 9) each watched step's sole site rotations, row-major (a copy).");
  nb::class_<wbc::LandingWatch>(m, "LandingWatch")
      .def(
          "__init__",
          [](wbc::LandingWatch* self, int geom) {
            if (geom < 0) value_error("geom must be a geom id >= 0, got " + std::to_string(geom));
            new (self) wbc::LandingWatch{0, geom, 0.0};
          },
          "geom"_a,
          "The walking generator's watch (core/physics_loop.hpp's LandingWatch) over the swing foot whose contact "
          "geom is geom.")
      .def(
          "arm",
          [](wbc::LandingWatch& w, double threshold, int from) {
            if (!std::isfinite(threshold)) value_error("threshold must be finite [N]");
            w.threshold = threshold;
            w.from = from;
          },
          "threshold"_a, "from_step"_a,
          "Stop before a step from from_step on where the foot's vertical contact force reaches threshold [N].")
      .def_ro("geom", &wbc::LandingWatch::geom)
      .def_ro("threshold", &wbc::LandingWatch::threshold)
      .def_ro("from_step", &wbc::LandingWatch::from);
  nb::class_<BoundLoop>(m, "PhysicsLoop")
      .def(
          "__init__",
          [](BoundLoop* self, nb::object model, nb::object data, const std::vector<int>& q_from_qpos,
             const std::vector<int>& v_from_qvel, int quaternion, const std::vector<int>& actuators,
             const Eigen::VectorXd& gear, const Eigen::VectorXd& ctrl_min, const Eigen::VectorXd& ctrl_max,
             int push_body) {
            const auto* m = reinterpret_cast<const mjModel*>(mujoco_address(model, "MjModel"));
            auto* d = reinterpret_cast<mjData*>(mujoco_address(data, "MjData"));
            if (d->nbuffer == 0 || m->nq != nb::cast<int>(data.attr("qpos").attr("size")))
              value_error("data is not an MjData of this model (its qpos does not have the model's nq entries)");
            wbc::LoopLayout layout{q_from_qpos, v_from_qvel, quaternion, actuators, gear, ctrl_min, ctrl_max, push_body};
            try {
              new (self) BoundLoop(model, data, m, d, std::move(layout));
            } catch (const std::invalid_argument& err) {
              value_error(err.what());
            }
          },
          "model"_a, "data"_a, "q_from_qpos"_a, "v_from_qvel"_a, "quaternion"_a, "actuators"_a, "gear"_a, "ctrl_min"_a,
          "ctrl_max"_a, "push_body"_a,
          "A loop over a mujoco.MjModel and an MjData of it (kept alive by the loop), with the robot's layout "
          "from humanoid_env.sim_bridge.SimBridge.")
      .def(
          "run_controller",
          [](BoundLoop& loop, Controller& controller, const Array<double>& com_position, const Array<double>& com_velocity,
             const Array<double>& com_acceleration, const Array<bool>& active, const Array<double>& min_normal_force,
             const Array<double>& max_normal_force, const Array<bool>& track_force, const Array<double>& force_target,
             const Array<double>& force_weight, const std::vector<int>& frame_tasks, const Array<bool>& frame_active,
             const Array<double>& frame_position, const Array<double>& frame_velocity,
             const std::vector<int>& orientation_tasks, const Array<bool>& orientation_active,
             const Array<double>& orientation_target, const std::vector<int>& rest_tasks, const Array<bool>& rest_active,
             const Array<double>& rest_target, const Array<double>& body_s, const Array<double>& body_s_dot,
             const Array<double>& sensed_qpos, const Array<double>& sensed_qvel, Mutable<double> delay_queue,
             Mutable<bool> delay_filled, const Array<double>& push, int first, int k, int warnings_at_reset,
             BoundWatch* watch, const wbc::LandingWatch* landing) {
            if (k < 0) value_error("k must be >= 0");
            const std::size_t rows = static_cast<std::size_t>(k), nc = controller.n_contacts(), nt = frame_tasks.size();
            wbc::PlannedReferences r;
            r.com_position = checked("com_position", com_position, {rows, 3});
            r.com_velocity = checked("com_velocity", com_velocity, {rows, 3});
            r.com_acceleration = checked("com_acceleration", com_acceleration, {rows, 3});
            r.active = checked("active", active, {rows, nc});
            r.min_normal_force = checked("min_normal_force", min_normal_force, {rows, nc});
            r.max_normal_force = checked("max_normal_force", max_normal_force, {rows, nc});
            r.track_force = checked("track_force", track_force, {rows, nc});
            r.force_target = checked("force_target", force_target, {rows, nc});
            r.force_weight = checked("force_weight", force_weight, {rows, nc});
            r.frame_tasks = frame_tasks;
            for (int t : frame_tasks)
              if (t < 0 || t >= controller.n_tasks()) throw nb::index_error(("task " + std::to_string(t) + " out of range").c_str());
            r.frame_active = checked("frame_active", frame_active, {rows, nt});
            r.frame_position = checked("frame_position", frame_position, {rows, nt, 3});
            r.frame_velocity = checked("frame_velocity", frame_velocity, {rows, nt, 3});
            const std::size_t no = orientation_tasks.size();
            r.orientation_tasks = orientation_tasks;
            for (int t : orientation_tasks)
              if (t < 0 || t >= controller.n_tasks()) throw nb::index_error(("task " + std::to_string(t) + " out of range").c_str());
            r.orientation_active = checked("orientation_active", orientation_active, {rows, no});
            r.orientation_target = checked("orientation_target", orientation_target, {rows, no, 3, 3});
            r.rest_tasks = rest_tasks;
            std::size_t rest_width = 0;
            for (int t : rest_tasks) {
              if (t < 0 || t >= controller.n_tasks()) throw nb::index_error(("task " + std::to_string(t) + " out of range").c_str());
              const auto* rest = dynamic_cast<const wbc::BodyRestTask*>(&controller.task(t));
              if (rest == nullptr || !rest->configured)
                value_error("task " + std::to_string(t) + " is not a body rest task with its body set");
              r.rest_dofs.push_back(controller.body_dof(rest->body));
              rest_width += static_cast<std::size_t>(r.rest_dofs.back());
            }
            r.rest_active = checked("rest_active", rest_active, {rows, rest_tasks.size()});
            r.rest_target = checked("rest_target", rest_target, {rows, rest_width});
            std::size_t ns = 0;
            for (int b = 0; b < controller.n_bodies(); ++b) ns += static_cast<std::size_t>(controller.body_dof(b));
            r.body_dof = static_cast<int>(ns);
            r.body_s = checked("body_s", body_s, {rows, ns});
            r.body_s_dot = checked("body_s_dot", body_s_dot, {rows, ns});
            const double* forces = checked("push", push, {rows, 3});
            const wbc::SensedState sensed = sensed_rows(loop, sensed_qpos, sensed_qvel, k);
            const wbc::DelayLine delay = delay_line(loop, delay_queue, delay_filled);
            if (watch != nullptr) {
              if (watch->n_edges < 3) value_error("the watch has no support polygon (set_support first)");
              if (watch->root_body < 0 || watch->root_body >= loop.model_nbody())
                value_error("the watch's root_body " + std::to_string(watch->root_body) + " is not a body of the loop's model");
              for (int site : watch->sole_sites)
                if (site < 0 || site >= loop.model_nsite())
                  value_error("the watch's sole site " + std::to_string(site) + " is not a site of the loop's model");
            }
            if (landing != nullptr && (landing->geom < 0 || landing->geom >= loop.model_ngeom()))
              value_error("the landing watch's geom " + std::to_string(landing->geom) + " is not a geom of the loop's model");
            return run_released(loop, &controller, &r, nullptr, forces, first, k, warnings_at_reset, nullptr, &sensed, &delay,
                                watch, landing);
          },
          "controller"_a, "com_position"_a, "com_velocity"_a, "com_acceleration"_a, "active"_a, "min_normal_force"_a,
          "max_normal_force"_a, "track_force"_a, "force_target"_a, "force_weight"_a, "frame_tasks"_a, "frame_active"_a,
          "frame_position"_a, "frame_velocity"_a, "orientation_tasks"_a, "orientation_active"_a, "orientation_target"_a,
          "rest_tasks"_a, "rest_active"_a, "rest_target"_a, "body_s"_a, "body_s_dot"_a, "sensed_qpos"_a, "sensed_qvel"_a,
          "delay_queue"_a, "delay_filled"_a, "push"_a, "first"_a, "k"_a, "warnings_at_reset"_a, "watch"_a = nb::none(),
          "landing"_a = nb::none(),
          "Physics steps first .. k-1 under the controller, each with its row of references (the body rest tasks' "
          "targets concatenated), of the environment bodies' sensed state (k, ns) (ns = 0 without bodies), of the "
          "robot's sensed state (k, nq) and (k, nv) in MuJoCo's layout (size 0: the simulator's own) and of push, "
          "the torques through the actuation delay's FIFO (delay_queue (delay, na), delay_filled (1,), written "
          "back; 0 rows: none), with the stepping law's StandingWatch and the walking generator's LandingWatch "
          "before their watched steps (None: none) (the GIL released): (LoopStop, steps done).")
      .def(
          "run_torques",
          [](BoundLoop& loop, const Array<double>& torques, Mutable<double> delay_queue, Mutable<bool> delay_filled,
             const Array<double>& push, int first, int k, int warnings_at_reset) {
            if (k < 0) value_error("k must be >= 0");
            const std::size_t rows = static_cast<std::size_t>(k);
            const double* tau = checked("torques", torques, {rows, static_cast<std::size_t>(loop.na())});
            const double* forces = checked("push", push, {rows, 3});
            const wbc::DelayLine delay = delay_line(loop, delay_queue, delay_filled);
            return run_released(loop, nullptr, nullptr, tau, forces, first, k, warnings_at_reset, nullptr, nullptr, &delay);
          },
          "torques"_a, "delay_queue"_a, "delay_filled"_a, "push"_a, "first"_a, "k"_a, "warnings_at_reset"_a,
          "Physics steps first .. k-1 with the given torques (k, na) [N m] and pushes (the GIL released): "
          "(LoopStop, steps done).")
      .def(
          "run_pd",
          [](BoundLoop& loop, const Array<double>& target, const Array<double>& kp, const Array<double>& kd,
             const Array<double>& torque_max, Mutable<double> delay_queue, Mutable<bool> delay_filled,
             const Array<double>& push, int first, int k, int warnings_at_reset) {
            if (k < 0) value_error("k must be >= 0");
            const std::size_t na = static_cast<std::size_t>(loop.na());
            if (loop.q().size() != 7 + static_cast<Eigen::Index>(na) || loop.v().size() != 6 + static_cast<Eigen::Index>(na))
              value_error("run_pd needs a layout of the free base and the na joints (q: 7 + na, v: 6 + na)");
            wbc::PdGains pd{checked("target", target, {na}), checked("kp", kp, {na}), checked("kd", kd, {na}),
                            checked("torque_max", torque_max, {na})};
            const double* forces = checked("push", push, {static_cast<std::size_t>(k), 3});
            const wbc::DelayLine delay = delay_line(loop, delay_queue, delay_filled);
            return run_released(loop, nullptr, nullptr, nullptr, forces, first, k, warnings_at_reset, &pd, nullptr, &delay);
          },
          "target"_a, "kp"_a, "kd"_a, "torque_max"_a, "delay_queue"_a, "delay_filled"_a, "push"_a, "first"_a, "k"_a,
          "warnings_at_reset"_a,
          "Physics steps first .. k-1 under PD control of the joints towards target (na) [rad], the torques "
          "through the actuation delay's FIFO (as run_controller) (the GIL released): (LoopStop, steps done).")
      .def_ro("model", &BoundLoop::model, "The mujoco.MjModel the loop steps.")
      .def_ro("data", &BoundLoop::data, "The mujoco.MjData the loop steps.")
      .def(
          "vertical_contact_force",
          [](const BoundLoop& l, int geom) {
            if (geom < 0 || geom >= l.model_ngeom()) value_error("geom " + std::to_string(geom) + " is not a geom of the loop's model");
            return l.vertical_contact_force(geom);
          },
          "geom"_a, "The vertical force [N] MuJoCo's contacts exert on geom in the data's present state (the LandingWatch's).")
      .def_prop_ro("tau", [](const BoundLoop& l) { return l.tau(); }, "(rows, na) torques handed to MuJoCo per step [N m].")
      .def_prop_ro("tau_computed", [](const BoundLoop& l) { return l.tau_computed(); },
                   "(rows, na) torques computed per step [N m] (with an actuation delay, not those applied).")
      .def_prop_ro("tick_us", [](const BoundLoop& l) { return l.tick_us(); }, "Per step: the tick's wall time [us].")
      .def_prop_ro("solve_us", [](const BoundLoop& l) { return l.solve_us(); }, "Per step: the QP's solve time [us].")
      .def_prop_ro("q", [](const BoundLoop& l) { return l.q(); }, "The last tick's pinocchio q.")
      .def_prop_ro("v", [](const BoundLoop& l) { return l.v(); }, "The last tick's pinocchio v.")
      .def_prop_ro("status", [](const BoundLoop& l) { return l.status(); }, "The status of the tick that stopped the loop.")
      .def_prop_ro("error", [](const BoundLoop& l) { return l.error(); }, "Why the controller rejected the state (INVALID_STATE).");
}
