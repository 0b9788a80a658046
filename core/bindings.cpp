// Python bindings of the compiled controller core: wbc_layer._core (nanobind).
// The Python package keeps the API (wbc_layer.compiled writes tasks and contacts in here).
#include <nanobind/eigen/dense.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>

#include "array_checks.hpp"
#include "controller.hpp"
#include "walking_mpc.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using wbc::Controller;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using RefV = Eigen::Ref<const VectorXd>;

namespace {

// Every binding checks what it is given (sizes, indices, finiteness) before it reaches the core, and
// raises a Python exception (ValueError, IndexError, TypeError) naming the expected and received
// sizes: no call into _core reads or writes past a buffer.

template <class T>
T& task_as(Controller& c, int i, const char* kind) {
  auto* task = dynamic_cast<T*>(&c.task(i));
  if (task == nullptr) throw nb::type_error((std::string("task ") + std::to_string(i) + " is not a " + kind).c_str());
  return *task;
}

using wbc::bindings::value_error;

void check_size(const char* what, Eigen::Index got, Eigen::Index expected) {
  if (got != expected)
    value_error(std::string(what) + " must have " + std::to_string(expected) + " entries, got " + std::to_string(got));
}

template <class Array>
void check_finite(const char* what, const Array& value) {
  if (!value.allFinite()) value_error(std::string(what) + " must be finite");
}

template <class Array>
void check_gain(const char* what, const Array& value) {
  if (!value.allFinite() || (value.array() < 0).any()) value_error(std::string(what) + " must be finite and >= 0");
}

void check_scalar(const char* what, double value) {
  if (!std::isfinite(value) || value < 0)
    value_error(std::string(what) + " must be finite and >= 0, got " + std::to_string(value));
}

void check_index(const char* what, int index, int count) {
  if (index < 0 || index >= count)
    throw nb::index_error((std::string(what) + " index must be in [0, " + std::to_string(count) + "), got " +
                           std::to_string(index)).c_str());
}

void check_frame(Controller& c, int frame) { check_index("frame", frame, c.robot().nframes()); }

template <class T>
int add(Controller& c) {
  return c.add_task(std::make_unique<T>());
}

// -- the walking MPC's arrays (wbc::WalkingMpcProblem): C-contiguous numpy arrays of fixed shapes --
using wbc::bindings::Array;
using wbc::bindings::checked;

template <class T>
void check_all_finite(const char* what, const T* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i)
    if (!std::isfinite(data[i])) value_error(std::string(what) + " must be finite");
}

/// The walking MPC with its settings (the Python planner's prediction matrices and weights).
struct WalkingMpc {
  wbc::WalkingMpcSettings settings;

  nb::tuple solve(const Array<double>& state, double cop_half_length, double cop_half_width,
                  const Array<double>& hold_position, const Array<double>& hold_yaw,
                  const Array<int32_t>& hold_variable, const Array<int32_t>& hold_anchor,
                  const Array<double>& hold_offset, const Array<double>& sample_constant,
                  const Array<int32_t>& term_hold, const Array<double>& term_weight, const Array<double>& sample_yaw,
                  const Array<int32_t>& sample_pair, const Array<double>& sample_inset,
                  const Array<int32_t>& reach_hold, const Array<int32_t>& reach_parent,
                  const Array<int32_t>& reach_edges, const Array<double>& reach_normals,
                  const Array<double>& reach_offsets, const Array<double>& velocity_ref) const {
    const std::size_t N = static_cast<std::size_t>(settings.Pzu.rows());
    const bool free_a = settings.free_acceleration_weight >= 0.0;
    wbc::WalkingMpcProblem p;
    p.state = checked("state", state, {3, 2});
    check_scalar("cop_half_length", cop_half_length);
    check_scalar("cop_half_width", cop_half_width);
    p.cop_half_length = cop_half_length;
    p.cop_half_width = cop_half_width;
    if (hold_yaw.ndim() != 1) value_error("hold_yaw must be one-dimensional (H)");
    const std::size_t H = hold_yaw.shape(0);
    p.holds = static_cast<int>(H);
    p.hold_position = checked("hold_position", hold_position, {H, 2});
    p.hold_yaw = hold_yaw.data();
    p.hold_variable = checked("hold_variable", hold_variable, {H});
    p.hold_anchor = checked("hold_anchor", hold_anchor, {H});
    p.hold_offset = checked("hold_offset", hold_offset, {H, 2});
    const std::size_t R = N + (free_a ? 1 : 0);
    if (term_hold.ndim() != 2) value_error("term_hold must have shape (samples, terms)");
    const std::size_t T = term_hold.shape(1);
    p.samples = static_cast<int>(R);
    p.terms = static_cast<int>(T);
    p.sample_constant = checked("sample_constant", sample_constant, {R, 2});
    p.term_hold = checked("term_hold", term_hold, {R, T});
    p.term_weight = checked("term_weight", term_weight, {R, T});
    p.sample_yaw = checked("sample_yaw", sample_yaw, {R});
    p.sample_pair = checked("sample_pair", sample_pair, {R, 2});
    p.sample_inset = checked("sample_inset", sample_inset, {R, 2});
    if (reach_hold.ndim() != 1) value_error("reach_hold must be one-dimensional (V)");
    const std::size_t V = reach_hold.shape(0);
    p.reaches = static_cast<int>(V);
    p.reach_hold = reach_hold.data();
    p.reach_parent = checked("reach_parent", reach_parent, {V});
    p.reach_edges = checked("reach_edges", reach_edges, {V});
    std::size_t edges = 0;
    for (std::size_t r = 0; r < V; ++r) {
      if (p.reach_edges[r] < 0) value_error("reach_edges must be >= 0");
      edges += static_cast<std::size_t>(p.reach_edges[r]);
    }
    p.reach_normals = checked("reach_normals", reach_normals, {edges, 2});
    p.reach_offsets = checked("reach_offsets", reach_offsets, {edges});
    if (velocity_ref.size() != 0) p.velocity_ref = checked("velocity_ref", velocity_ref, {N, 2});
    // Indices: every hold named exists; anchors and reach regions name variable holds.
    const int holds = p.holds;
    auto variable = [&](int h) { return p.hold_variable[h] != 0; };
    for (int h = 0; h < holds; ++h) {
      const int anchor = p.hold_anchor[h];
      if (anchor != -1) {
        check_index("hold_anchor", anchor, holds);
        if (!variable(anchor) || variable(h)) value_error("hold_anchor must name a variable hold, from a fixed one");
      }
    }
    for (std::size_t i = 0; i < R * T; ++i)
      if (p.term_hold[i] != -1) check_index("term_hold", p.term_hold[i], holds);
    for (std::size_t i = 0; i < 2 * R; i += 2) {
      const int a = p.sample_pair[i], b = p.sample_pair[i + 1];
      if ((a == -1) != (b == -1)) value_error("sample_pair must name two holds or none (-1, -1)");
      if (a != -1) {
        check_index("sample_pair", a, holds);
        check_index("sample_pair", b, holds);
      }
    }
    for (std::size_t r = 0; r < V; ++r) {
      check_index("reach_hold", p.reach_hold[r], holds);
      check_index("reach_parent", p.reach_parent[r], holds);
      if (!variable(p.reach_hold[r])) value_error("reach_hold must name a variable hold");
    }
    check_all_finite("state", p.state, 6);
    check_all_finite("hold_position", p.hold_position, 2 * H);
    check_all_finite("hold_yaw", p.hold_yaw, H);
    check_all_finite("hold_offset", p.hold_offset, 2 * H);
    check_all_finite("sample_constant", p.sample_constant, 2 * R);
    check_all_finite("term_weight", p.term_weight, R * T);
    check_all_finite("sample_yaw", p.sample_yaw, R);
    check_all_finite("sample_inset", p.sample_inset, 2 * R);
    check_all_finite("reach_normals", p.reach_normals, 2 * edges);
    check_all_finite("reach_offsets", p.reach_offsets, edges);
    if (p.velocity_ref != nullptr) check_all_finite("velocity_ref", p.velocity_ref, 2 * N);
    wbc::WalkingMpcSolution out;
    {
      nb::gil_scoped_release release;
      out = wbc::solve_walking_mpc(settings, p);
    }
    return nb::make_tuple(out.status, out.cost, out.hold_position, out.jerk, out.cop, out.state);
  }
};

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "Compiled whole-body controller tick (see wbc_layer.compiled).";
  nb::class_<wbc::EiquadprogSolver>(m, "EiquadprogSolver")
      .def(nb::init<int, bool>(), "max_iter"_a, "eliminate_equalities"_a = true)
      .def(
          "solve",
          [](wbc::EiquadprogSolver& solver, const MatrixXd& P, const VectorXd& q, const MatrixXd& A,
             const VectorXd& b, const MatrixXd& G, const VectorXd& h) {
            const Eigen::Index n = P.rows();
            check_size("P's columns (P is n x n)", P.cols(), n);
            check_size("q (n)", q.size(), n);
            check_size("A's columns (n)", A.cols(), n);
            check_size("b (A's rows)", b.size(), A.rows());
            check_size("G's columns (n)", G.cols(), n);
            check_size("h (G's rows)", h.size(), G.rows());
            wbc::Problem problem;
            problem.P = P;
            problem.q = q;
            problem.A = A;
            problem.b = b;
            std::string status = solver.solve(problem, G, h);
            return nb::make_tuple(status, solver.x(), solver.iterations());
          },
          "P"_a, "q"_a, "A"_a, "b"_a, "G"_a, "h"_a,
          "min 1/2 x^T P x + q^T x s.t. A x = b, G x <= h -> (status, x, iterations); the core's own solver.");
  nb::class_<WalkingMpc>(m, "WalkingMpc")
      .def(
          "__init__",
          [](WalkingMpc* self, const MatrixXd& Pzs, const MatrixXd& Pzu, const MatrixXd& Pvs, const MatrixXd& Pvu,
             double zeta, double jerk_weight, double footstep_weight, double velocity_weight,
             double free_acceleration_weight, double initial_cop_margin) {
            const Eigen::Index N = Pzu.rows();
            if (N < 1) value_error("the horizon (Pzu's rows) must be at least 1");
            check_size("Pzu's columns (N)", Pzu.cols(), N);
            check_size("Pvu's rows (N)", Pvu.rows(), N);
            check_size("Pvu's columns (N)", Pvu.cols(), N);
            check_size("Pzs's rows (N)", Pzs.rows(), N);
            check_size("Pzs's columns", Pzs.cols(), 3);
            check_size("Pvs's rows (N)", Pvs.rows(), N);
            check_size("Pvs's columns", Pvs.cols(), 3);
            check_finite("the prediction matrices", Pzs);
            check_finite("the prediction matrices", Pzu);
            check_finite("the prediction matrices", Pvs);
            check_finite("the prediction matrices", Pvu);
            check_scalar("zeta", zeta);
            check_scalar("jerk_weight", jerk_weight);
            check_scalar("footstep_weight", footstep_weight);
            check_scalar("velocity_weight", velocity_weight);
            if (!std::isfinite(free_acceleration_weight) || !std::isfinite(initial_cop_margin))
              value_error("free_acceleration_weight and initial_cop_margin must be finite (< 0: none)");
            // The QP's Hessian must be positive definite: every decision variable weighed.
            if (jerk_weight <= 0.0) value_error("jerk_weight must be > 0, got " + std::to_string(jerk_weight));
            if (footstep_weight <= 0.0) value_error("footstep_weight must be > 0, got " + std::to_string(footstep_weight));
            if (free_acceleration_weight == 0.0) value_error("free_acceleration_weight must be > 0 (or < 0: none), got 0");
            new (self) WalkingMpc{wbc::WalkingMpcSettings{Pzs, Pzu, Pvs, Pvu, zeta, jerk_weight, footstep_weight,
                                                          velocity_weight, free_acceleration_weight,
                                                          initial_cop_margin}};
          },
          "Pzs"_a, "Pzu"_a, "Pvs"_a, "Pvu"_a, "zeta"_a, "jerk_weight"_a, "footstep_weight"_a, "velocity_weight"_a,
          "free_acceleration_weight"_a, "initial_cop_margin"_a)
      .def("solve", &WalkingMpc::solve, "state"_a, "cop_half_length"_a, "cop_half_width"_a, "hold_position"_a, "hold_yaw"_a, "hold_variable"_a, "hold_anchor"_a,
           "hold_offset"_a, "sample_constant"_a, "term_hold"_a, "term_weight"_a, "sample_yaw"_a, "sample_pair"_a,
           "sample_inset"_a, "reach_hold"_a, "reach_parent"_a, "reach_edges"_a, "reach_normals"_a, "reach_offsets"_a,
           "velocity_ref"_a,
           "The walking MPC (wbc_layer.walking.CoMPlanner.plan) -> (status, cost, hold_position (H, 2), jerk (N, 2), "
           "cop (N, 2), state (3, 2)).");
  nb::class_<Controller>(m, "Controller")
      .def(nb::init<const std::string&, const VectorXd&, const VectorXd&, const VectorXd&, const std::string&, double,
                    int>(),
           "serialized_model"_a, "damping"_a, "torque_min"_a, "torque_max"_a, "qp_solver"_a, "eps_abs"_a,
           "max_iter"_a)
      .def("add_seesaw", &Controller::add_seesaw, "mass"_a, "com"_a, "inertia_xx"_a, "radius"_a, "origin"_a,
           "damping"_a, "gravity"_a)
      .def("add_user_body", &Controller::add_user_body, "dof"_a)
      .def("set_body_dynamics", &Controller::set_body_dynamics, "index"_a, "mass_matrix"_a, "bias"_a)
      .def("set_contact_body_kinematics", &Controller::set_contact_body_kinematics, "index"_a, "jacobian"_a, "drift"_a)
      .def("add_contact", &Controller::add_contact, "kind"_a, "frame"_a, "body"_a, "dim"_a = -1)
      .def("set_contact_kinematics", &Controller::set_contact_kinematics, "index"_a, "jacobian"_a, "drift"_a)
      .def("finalize", &Controller::finalize)
      .def("set_contact", &Controller::set_contact, "index"_a, "active"_a, "G"_a, "h"_a)
      .def("set_contact_frame", &Controller::set_contact_frame, "index"_a, "frame"_a)
      .def("set_contact_damping", &Controller::set_contact_damping, "damping"_a)
      .def("set_joint_limits", &Controller::set_joint_limits, "lower"_a, "upper"_a, "velocity"_a, "horizon"_a)
      .def("set_slack_weight", &Controller::set_slack_weight, "weight"_a,
           "The relaxed QP's contact-row weight (> 0), or 0: no relaxed QP.")
      .def("add_com_task", &add<wbc::ComTask>)
      .def("add_posture_task", &add<wbc::PostureTask>)
      .def("add_orientation_task", &add<wbc::OrientationTask>)
      .def("add_frame_position_task", &add<wbc::FramePositionTask>)
      .def("add_body_rest_task", &add<wbc::BodyRestTask>)
      .def("add_contact_force_task", &add<wbc::ContactForceTask>)
      .def("add_regularisation_task", &add<wbc::RegularisationTask>)
      .def("add_angular_momentum_task", &add<wbc::AngularMomentumTask>)
      .def("add_rows_task", &add<wbc::RowsTask>)
      .def("add_leg_clearance", [](Controller& c) { return c.add_constraint(std::make_unique<wbc::LegClearanceRows>()); })
      .def("set_leg_clearance",
           [](Controller& c, int i, int swing_frame, int stance_frame, double side, double min_distance, double horizon,
              bool active) {
             check_index("constraint", i, c.n_constraints());
             auto* piece = dynamic_cast<wbc::LegClearanceRows*>(&c.constraint(i));
             if (piece == nullptr) throw nb::type_error(("constraint " + std::to_string(i) + " is not a leg clearance").c_str());
             check_frame(c, swing_frame);
             check_frame(c, stance_frame);
             if (swing_frame == stance_frame) value_error("leg clearance: the swing and stance frames must differ");
             if (side != 1.0 && side != -1.0) value_error("leg clearance: side must be +1 or -1");
             if (!std::isfinite(min_distance)) value_error("leg clearance: min_distance must be finite");
             if (!(horizon > 0) || !std::isfinite(horizon)) value_error("leg clearance: horizon must be finite and > 0");
             if (piece->active != active) c.constraints_changed();
             piece->swing_frame = swing_frame;
             piece->stance_frame = stance_frame;
             piece->side = side;
             piece->min_distance = min_distance;
             piece->horizon = horizon;
             piece->active = active;
           },
           "index"_a, "swing_frame"_a, "stance_frame"_a, "side"_a, "min_distance"_a, "horizon"_a, "active"_a)
      .def("set_task", &Controller::set_task, "index"_a, "active"_a, "weight"_a)
      .def("set_gains",
           [](Controller& c, int i, const VectorXd& kp, const VectorXd& kd) {
             auto& t = task_as<wbc::MotionTask>(c, i, "motion task");
             check_size("kp (one per task row)", kp.size(), t.rows(c.na()));
             check_size("kd (one per task row)", kd.size(), t.rows(c.na()));
             check_gain("kp", kp);
             check_gain("kd", kd);
             t.kp = kp;
             t.kd = kd;
           })
      .def("set_com",
           [](Controller& c, int i, const wbc::Vector3d& p, const wbc::Vector3d& v, const wbc::Vector3d& a) {
             auto& t = task_as<wbc::ComTask>(c, i, "CoM task");
             check_finite("CoM position", p);
             check_finite("CoM velocity", v);
             check_finite("CoM acceleration", a);
             t.position = p;
             t.velocity = v;
             t.acceleration = a;
           })
      .def("set_posture",
           [](Controller& c, int i, const VectorXd& target) {
             auto& t = task_as<wbc::PostureTask>(c, i, "posture task");
             check_size("posture target (na)", target.size(), c.na());
             check_finite("posture target", target);
             t.target = target;
           })
      .def("set_orientation",
           [](Controller& c, int i, int frame, const wbc::Matrix3d& target) {
             auto& t = task_as<wbc::OrientationTask>(c, i, "orientation task");
             check_frame(c, frame);
             check_finite("orientation target", target);
             t.frame = frame;
             t.target = target;
           })
      .def("set_frame_position",
           [](Controller& c, int i, int frame, const wbc::Vector3d& p, const wbc::Vector3d& v) {
             auto& t = task_as<wbc::FramePositionTask>(c, i, "frame position task");
             check_frame(c, frame);
             check_finite("frame position", p);
             check_finite("frame velocity", v);
             t.frame = frame;
             t.position = p;
             t.velocity = v;
           })
      .def("set_body_rest",
           [](Controller& c, int i, int body, double kp, double kd, const VectorXd& target) {
             auto& t = task_as<wbc::BodyRestTask>(c, i, "body rest task");
             check_index("body", body, c.n_bodies());
             check_size("body rest target (the body's coordinates)", target.size(), c.body_dof(body));
             check_finite("body rest target", target);
             check_scalar("body rest kp", kp);
             check_scalar("body rest kd", kd);
             t.body = body;
             t.kp = kp;
             t.kd = kd;
             t.target = target;
             t.configured = true;
           })
      .def("set_contact_force",
           [](Controller& c, int i, int contact, const MatrixXd& rows, const VectorXd& target) {
             auto& t = task_as<wbc::ContactForceTask>(c, i, "contact force task");
             if (!c.finalized()) value_error("finalize() the controller first");
             check_index("contact", contact, c.n_contacts());
             check_size("contact force rows' columns (the contact's force dimension)", rows.cols(),
                        c.contact(contact).dim);
             if (rows.rows() < 1) value_error("a contact force task needs at least one row");
             check_size("contact force target (one per row)", target.size(), rows.rows());
             check_finite("contact force rows", rows);
             check_finite("contact force target", target);
             t.contact = contact;
             t.rows = rows;
             t.target = target;
             t.configured = true;
           })
      .def("set_rows",
           [](Controller& c, int i, int start, const MatrixXd& A, const VectorXd& b) {
             auto& t = task_as<wbc::RowsTask>(c, i, "rows task");
             if (!c.finalized()) value_error("finalize() the controller first");
             const int nx = c.layout().nx();
             if (start < 0 || start + A.cols() > nx)
               value_error("a task's rows must act on columns within [0, " + std::to_string(nx) + "), got start " +
                           std::to_string(start) + " and " + std::to_string(A.cols()) + " columns");
             check_size("task target b (one per row of A)", b.size(), A.rows());
             check_finite("task rows A", A);
             check_finite("task target b", b);
             t.start = start;
             t.A = A;
             t.b = b;
           },
           "index"_a, "start"_a, "A"_a, "b"_a)
      .def("set_angular_momentum",
           [](Controller& c, int i, double damping) {
             auto& t = task_as<wbc::AngularMomentumTask>(c, i, "angular momentum task");
             check_scalar("angular momentum damping", damping);
             t.damping = damping;
           })
      .def("set_regularisation",
           [](Controller& c, int i, double qdd_weight, double force_weight) {
             auto& t = task_as<wbc::RegularisationTask>(c, i, "regularisation task");
             check_scalar("qdd_weight", qdd_weight);
             check_scalar("force_weight", force_weight);
             t.qdd_weight = qdd_weight;
             t.force_weight = force_weight;
           })
      .def("set_com_task", &Controller::set_com_task, "task"_a)
      .def("set_contact_reference_rows",
           [](Controller& c, int i, int min_row, int max_row, int force_task) {
             check_index("contact", i, c.n_contacts());
             if (force_task != -1) check_index("task", force_task, c.n_tasks());
             c.set_contact_reference_rows(i, {min_row, max_row, force_task});
           },
           "index"_a, "min_row"_a, "max_row"_a, "force_task"_a)
      .def(
          "set_references",
          [](Controller& c, const wbc::Vector3d& com_position, const wbc::Vector3d& com_velocity,
             const wbc::Vector3d& com_acceleration, const std::vector<bool>& active, const VectorXd& min_normal_force,
             const VectorXd& max_normal_force, const std::vector<bool>& track_force, const VectorXd& force_target,
             const VectorXd& force_weight, const std::vector<int>& frame_tasks, const std::vector<bool>& frame_active,
             const MatrixXd& frame_position, const MatrixXd& frame_velocity, const std::vector<int>& orientation_tasks,
             const std::vector<bool>& orientation_active, const MatrixXd& orientation_target) {
            const Eigen::Index nc = c.n_contacts(), nt = static_cast<Eigen::Index>(frame_tasks.size());
            const Eigen::Index no = static_cast<Eigen::Index>(orientation_tasks.size());
            check_size("active (one per contact)", static_cast<Eigen::Index>(active.size()), nc);
            check_size("min_normal_force (one per contact)", min_normal_force.size(), nc);
            check_size("max_normal_force (one per contact)", max_normal_force.size(), nc);
            check_size("track_force (one per contact)", static_cast<Eigen::Index>(track_force.size()), nc);
            check_size("force_target (one per contact)", force_target.size(), nc);
            check_size("force_weight (one per contact)", force_weight.size(), nc);
            check_size("frame_active (one per frame task)", static_cast<Eigen::Index>(frame_active.size()), nt);
            check_size("frame_position's rows (one per frame task)", frame_position.rows(), nt);
            check_size("frame_velocity's rows (one per frame task)", frame_velocity.rows(), nt);
            if (nt > 0) {
              check_size("frame_position's columns", frame_position.cols(), 3);
              check_size("frame_velocity's columns", frame_velocity.cols(), 3);
            }
            check_size("orientation_active (one per orientation task)", static_cast<Eigen::Index>(orientation_active.size()), no);
            check_size("orientation_target's rows (3 per orientation task)", orientation_target.rows(), 3 * no);
            if (no > 0) check_size("orientation_target's columns", orientation_target.cols(), 3);
            wbc::StepReferences references;
            references.com_position = com_position;
            references.com_velocity = com_velocity;
            references.com_acceleration = com_acceleration;
            references.contacts.resize(nc);
            for (Eigen::Index i = 0; i < nc; ++i)
              references.contacts[i] = {active[i], min_normal_force[i], max_normal_force[i], track_force[i],
                                        force_target[i], force_weight[i]};
            references.frames.resize(nt);
            for (Eigen::Index k = 0; k < nt; ++k) {
              check_index("task", frame_tasks[k], c.n_tasks());
              references.frames[k] = {frame_tasks[k], frame_active[k], frame_position.row(k).transpose(),
                                      frame_velocity.row(k).transpose()};
            }
            references.orientations.resize(no);
            for (Eigen::Index k = 0; k < no; ++k) {
              check_index("task", orientation_tasks[k], c.n_tasks());
              references.orientations[k] = {orientation_tasks[k], orientation_active[k], orientation_target.middleRows<3>(3 * k)};
            }
            c.set_references(references);
          },
          "com_position"_a, "com_velocity"_a, "com_acceleration"_a, "active"_a, "min_normal_force"_a,
          "max_normal_force"_a, "track_force"_a, "force_target"_a, "force_weight"_a, "frame_tasks"_a,
          "frame_active"_a, "frame_position"_a, "frame_velocity"_a, "orientation_tasks"_a = std::vector<int>(),
          "orientation_active"_a = std::vector<bool>(), "orientation_target"_a = MatrixXd(0, 3),
          "One step's references in one call (core/references.hpp); force_weight < 0 keeps a force task's weight.")
      .def(
          "compute",
          [](Controller& c, const RefV& q, const RefV& v, const RefV& s, const RefV& s_dot) {
            std::string status = c.compute(q, v, s, s_dot);
            return nb::make_tuple(status, c.x(), c.tau(), c.iterations(), c.timings().solve, c.relaxed());
          },
          "q"_a, "v"_a, "s"_a, "s_dot"_a,
          "One tick: (status, x, tau, iterations, solve_time_us, relaxed); x and tau are the last solved "
          "ones when status is not 'solved'.")
      .def("build", &Controller::build, "q"_a, "v"_a, "s"_a, "s_dot"_a)
      .def(
          "solve_relaxed",
          [](Controller& c) {
            if (!c.has_problem()) value_error("no QP has been built yet: call compute() or build() first");
            std::string status = c.solve_relaxed();
            return nb::make_tuple(status, c.x(), c.tau(), c.iterations());
          },
          "The relaxed QP of the last build: (status, x, tau, iterations).")
      .def_prop_ro("relaxed", &Controller::relaxed, "Whether the last tick solved the relaxed QP.")
      .def(
          "last_tick", [](const Controller& c) { return nb::make_tuple(c.x(), c.tau(), c.iterations(), c.timings().solve, c.relaxed()); },
          "The last tick's (x, tau, iterations, solve_time_us, relaxed), as compute() returned them (a tick the "
          "physics loop ran).")
      .def_prop_ro("contact_slack", &Controller::contact_slack,
                   "(nf) the relaxed solution's J qdd + Jdot v per active contact, in force order.")
      .def_prop_ro("row_layout",
                   [](const Controller& c) {
                     const auto& rows = c.rows();
                     nb::list blocks;
                     for (const auto& b : rows.blocks) blocks.append(nb::make_tuple(b.eq, b.n_eq, b.in, b.n_in));
                     return nb::make_tuple(rows.n_eq, rows.n_hot, rows.n_in, blocks);
                   },
                   "(n_eq, n_hot, n_in, [(eq, n_eq, in, n_in) per constraint piece]) of the last build.")
      .def(
          "torques",
          [](const Controller& c, const RefV& x) {
            c.check_solution(x);
            return c.torques(x);
          },
          "x"_a)
      .def(
          "within_torque_limits",
          [](const Controller& c, const VectorXd& tau) {
            c.check_torques(tau);
            return c.within_torque_limits(tau);
          },
          "tau"_a)
      .def(
          "within_limits",
          [](Controller& c, const RefV& x, const VectorXd& tau) {
            c.check_solution(x);
            c.check_torques(tau);
            return c.within_limits(x, tau);
          },
          "x"_a, "tau"_a)
      .def(
          "problem",
          [](Controller& c, bool with_torque_limits) {
            if (!c.has_problem()) value_error("no QP has been built yet: call compute() or build() first");
            const auto& p = c.problem(with_torque_limits);
            if (with_torque_limits) return nb::make_tuple(p.P, p.q, p.A, p.b, p.G_all, p.h_all);
            return nb::make_tuple(p.P, p.q, p.A, p.b, p.G_hot, p.h_hot);
          },
          "with_torque_limits"_a, "(P, q, A, b, G, h) copies of the last built QP.")
      .def("timings",
           [](const Controller& c) {
             const auto& t = c.timings();
             return nb::make_tuple(t.update, t.build, t.solve, t.torques);
           })
      .def_prop_ro("used_torque_limits", &Controller::used_torque_limits)
      .def_prop_rw("cold_rows_first", &Controller::cold_rows_first, &Controller::set_cold_rows_first,
                   "Whether the next tick solves with the joint- and torque-limit rows at once.")
      .def_prop_ro("has_problem", &Controller::has_problem, "Whether a QP was built since the controller was made.")
      .def_prop_ro("problem_finite", &Controller::problem_finite, "Whether the last built QP is finite.")
      .def_prop_ro("nx", [](const Controller& c) { return c.layout().nx(); })
      .def_prop_ro("nframes", [](Controller& c) { return c.robot().nframes(); });
}
