// Python bindings of the compiled controller core: wbc_layer._core (nanobind).
// The Python package keeps the API (wbc_layer.compiled writes tasks and contacts in here).
#include <nanobind/eigen/dense.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include "controller.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using wbc::Controller;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using RefV = Eigen::Ref<const VectorXd>;

namespace {

template <class T>
T& task_as(Controller& c, int i, const char* kind) {
  auto* task = dynamic_cast<T*>(&c.task(i));
  if (task == nullptr) throw nb::type_error((std::string("task ") + std::to_string(i) + " is not a " + kind).c_str());
  return *task;
}

template <class T>
int add(Controller& c) {
  return c.add_task(std::make_unique<T>());
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "Compiled whole-body controller tick (see wbc_layer.compiled).";
  nb::class_<wbc::EiquadprogSolver>(m, "EiquadprogSolver")
      .def(nb::init<int, bool>(), "max_iter"_a, "eliminate_equalities"_a = true)
      .def(
          "solve",
          [](wbc::EiquadprogSolver& solver, const MatrixXd& P, const VectorXd& q, const MatrixXd& A,
             const VectorXd& b, const MatrixXd& G, const VectorXd& h) {
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
  nb::class_<Controller>(m, "Controller")
      .def(nb::init<const std::string&, const VectorXd&, const VectorXd&, const VectorXd&, const std::string&, double,
                    int>(),
           "serialized_model"_a, "damping"_a, "torque_min"_a, "torque_max"_a, "qp_solver"_a, "eps_abs"_a,
           "max_iter"_a)
      .def("add_seesaw", &Controller::add_seesaw, "mass"_a, "com"_a, "inertia_xx"_a, "radius"_a, "origin"_a,
           "damping"_a, "gravity"_a)
      .def("add_contact", &Controller::add_contact, "kind"_a, "frame"_a, "body"_a)
      .def("finalize", &Controller::finalize)
      .def("set_contact", &Controller::set_contact, "index"_a, "active"_a, "G"_a, "h"_a)
      .def("set_contact_damping", &Controller::set_contact_damping, "damping"_a)
      .def("set_joint_limits", &Controller::set_joint_limits, "lower"_a, "upper"_a, "velocity"_a, "horizon"_a)
      .def("add_com_task", &add<wbc::ComTask>)
      .def("add_posture_task", &add<wbc::PostureTask>)
      .def("add_orientation_task", &add<wbc::OrientationTask>)
      .def("add_frame_position_task", &add<wbc::FramePositionTask>)
      .def("add_body_rest_task", &add<wbc::BodyRestTask>)
      .def("add_contact_force_task", &add<wbc::ContactForceTask>)
      .def("add_regularisation_task", &add<wbc::RegularisationTask>)
      .def("add_angular_momentum_task", &add<wbc::AngularMomentumTask>)
      .def("set_task",
           [](Controller& c, int i, bool active, double weight) {
             c.task(i).active = active;
             c.task(i).weight = weight;
           })
      .def("set_gains",
           [](Controller& c, int i, const VectorXd& kp, const VectorXd& kd) {
             auto& t = task_as<wbc::MotionTask>(c, i, "motion task");
             t.kp = kp;
             t.kd = kd;
           })
      .def("set_com",
           [](Controller& c, int i, const wbc::Vector3d& p, const wbc::Vector3d& v, const wbc::Vector3d& a) {
             auto& t = task_as<wbc::ComTask>(c, i, "CoM task");
             t.position = p;
             t.velocity = v;
             t.acceleration = a;
           })
      .def("set_posture",
           [](Controller& c, int i, const VectorXd& target) {
             if (target.size() != c.na()) throw nb::value_error("posture target must have na entries");
             task_as<wbc::PostureTask>(c, i, "posture task").target = target;
           })
      .def("set_orientation",
           [](Controller& c, int i, int frame, const wbc::Matrix3d& target) {
             auto& t = task_as<wbc::OrientationTask>(c, i, "orientation task");
             t.frame = frame;
             t.target = target;
           })
      .def("set_frame_position",
           [](Controller& c, int i, int frame, const wbc::Vector3d& p, const wbc::Vector3d& v) {
             auto& t = task_as<wbc::FramePositionTask>(c, i, "frame position task");
             t.frame = frame;
             t.position = p;
             t.velocity = v;
           })
      .def("set_body_rest",
           [](Controller& c, int i, int body, double kp, double kd, const VectorXd& target) {
             auto& t = task_as<wbc::BodyRestTask>(c, i, "body rest task");
             t.body = body;
             t.kp = kp;
             t.kd = kd;
             t.target = target;
           })
      .def("set_contact_force",
           [](Controller& c, int i, int contact, const MatrixXd& rows, const VectorXd& target) {
             auto& t = task_as<wbc::ContactForceTask>(c, i, "contact force task");
             t.contact = contact;
             t.rows = rows;
             t.target = target;
           })
      .def("set_angular_momentum",
           [](Controller& c, int i, double damping) {
             task_as<wbc::AngularMomentumTask>(c, i, "angular momentum task").damping = damping;
           })
      .def("set_regularisation",
           [](Controller& c, int i, double qdd_weight, double force_weight) {
             auto& t = task_as<wbc::RegularisationTask>(c, i, "regularisation task");
             t.qdd_weight = qdd_weight;
             t.force_weight = force_weight;
           })
      .def(
          "compute",
          [](Controller& c, const RefV& q, const RefV& v, const RefV& s, const RefV& s_dot) {
            std::string status = c.compute(q, v, s, s_dot);
            return nb::make_tuple(status, c.x(), c.tau(), c.iterations(), c.timings().solve);
          },
          "q"_a, "v"_a, "s"_a, "s_dot"_a,
          "One tick: (status, x, tau, iterations, solve_time_us); x and tau are the last solved ones "
          "when status is not 'solved'.")
      .def("build", &Controller::build, "q"_a, "v"_a, "s"_a, "s_dot"_a)
      .def("torques", &Controller::torques, "x"_a)
      .def("within_torque_limits", &Controller::within_torque_limits, "tau"_a)
      .def("within_limits", &Controller::within_limits, "x"_a, "tau"_a)
      .def(
          "problem",
          [](Controller& c, bool with_torque_limits) {
            const auto& p = c.problem(with_torque_limits);
            if (with_torque_limits) return nb::make_tuple(p.P, p.q, p.A, p.b, p.G_all, p.h_all);
            return nb::make_tuple(p.P, p.q, p.A, p.b, p.G_contact, p.h_contact);
          },
          "with_torque_limits"_a, "(P, q, A, b, G, h) copies of the last built QP.")
      .def("timings",
           [](const Controller& c) {
             const auto& t = c.timings();
             return nb::make_tuple(t.update, t.build, t.solve, t.torques);
           })
      .def_prop_ro("used_torque_limits", &Controller::used_torque_limits)
      .def_prop_ro("nx", [](const Controller& c) { return c.layout().nx(); })
      .def_prop_ro("nframes", [](Controller& c) { return c.robot().nframes(); });
}
