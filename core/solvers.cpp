#include "solvers.hpp"

#include <eiquadprog/eiquadprog-fast.hpp>
#include <proxsuite/proxqp/dense/dense.hpp>
#include <stdexcept>

namespace wbc {

// -- proxsuite --------------------------------------------------------------------------------

struct ProxsuiteSolver::Impl {
  std::unique_ptr<proxsuite::proxqp::dense::QP<double>> qp;
};

ProxsuiteSolver::ProxsuiteSolver(double eps_abs, int max_iter)
    : impl_(new Impl), eps_abs_(eps_abs), max_iter_(max_iter) {}

ProxsuiteSolver::~ProxsuiteSolver() = default;

void ProxsuiteSolver::reset() {
  impl_->qp.reset();
  dims_ = {-1, -1, -1};
}

std::string ProxsuiteSolver::solve(const Problem& problem, const MatrixXd& G, const VectorXd& h) {
  namespace pq = proxsuite::proxqp;
  const int n = static_cast<int>(problem.P.rows()), n_eq = static_cast<int>(problem.A.rows());
  const int n_in = static_cast<int>(G.rows());
  const std::array<int, 3> dims{n, n_eq, n_in};
  if (dims != dims_) {
    auto qp = std::make_unique<pq::dense::QP<double>>(n, n_eq, n_in);
    qp->settings.eps_abs = eps_abs_;
    qp->settings.eps_rel = 0.0;
    qp->settings.max_iter = max_iter_;
    qp->settings.verbose = false;
    qp->settings.initial_guess = pq::InitialGuessStatus::WARM_START;
    lower_.setConstant(n_in, -1e20);
    qp->init(problem.P, problem.q, problem.A, problem.b, G, lower_, h);
    impl_->qp = std::move(qp);
    dims_ = dims;
    impl_->qp->solve();
  } else {
    impl_->qp->update(problem.P, problem.q, problem.A, problem.b, G, lower_, h);
    // Warm start from our own copy of the last solution (as the Python reference does).
    impl_->qp->solve(x_, y_, z_);
  }
  const auto& results = impl_->qp->results;
  x_ = results.x;
  y_ = results.y;
  z_ = results.z;
  iterations_ = static_cast<int>(results.info.iter);
  std::string status;
  switch (results.info.status) {
    case pq::QPSolverOutput::PROXQP_SOLVED: status = "solved"; break;
    case pq::QPSolverOutput::PROXQP_MAX_ITER_REACHED: status = "max_iter_reached"; break;
    case pq::QPSolverOutput::PROXQP_PRIMAL_INFEASIBLE: status = "primal_infeasible"; break;
    case pq::QPSolverOutput::PROXQP_DUAL_INFEASIBLE: status = "dual_infeasible"; break;
    case pq::QPSolverOutput::PROXQP_SOLVED_CLOSEST_PRIMAL_FEASIBLE: status = "closest_primal_feasible"; break;
    default: status = "not_run";
  }
  if (status == "solved" && !x_.allFinite()) status = "non_finite_solution";
  if (status != "solved") reset();  // a failed solve must not seed the next warm start
  return status;
}

// -- eiquadprog -------------------------------------------------------------------------------

struct EiquadprogSolver::Impl {
  eiquadprog::solvers::EiquadprogFast qp;
  Eigen::HouseholderQR<MatrixXd> qr;
};

EiquadprogSolver::EiquadprogSolver(int max_iter, bool eliminate_equalities)
    : impl_(new Impl), eliminate_(eliminate_equalities) {
  impl_->qp.setMaxIter(max_iter);
}

EiquadprogSolver::~EiquadprogSolver() = default;

std::string EiquadprogSolver::solve(const Problem& problem, const MatrixXd& G, const VectorXd& h) {
  const Eigen::Index n = problem.P.rows(), m = problem.A.rows();
  std::string status;
  if (eliminate_ && m > 0 && m < n && solve_reduced(problem, G, h, status)) return status;
  return solve_full(problem, G, h);
}

std::string EiquadprogSolver::solve_full(const Problem& problem, const MatrixXd& G, const VectorXd& h) {
  // eiquadprog's form: CE x + ce0 = 0, CI x + ci0 >= 0.
  minus_G_ = -G;
  minus_b_ = -problem.b;
  x_.resize(problem.P.rows());
  std::string status = finish(impl_->qp.solve_quadprog(problem.P, problem.q, problem.A, minus_b_, minus_G_, h, x_));
  if (status == "solved" && !x_.allFinite()) status = "non_finite_solution";
  return status;
}

bool EiquadprogSolver::solve_reduced(const Problem& problem, const MatrixXd& G, const VectorXd& h,
                                     std::string& status) {
  const Eigen::Index n = problem.P.rows(), m = problem.A.rows(), k = n - m;
  auto& qr = impl_->qr;
  qr.compute(problem.A.transpose());  // A^T = Q [R; 0]
  const auto R = qr.matrixQR().topLeftCorner(m, m);
  const double r_max = R.diagonal().cwiseAbs().maxCoeff();
  if (!(R.diagonal().cwiseAbs().minCoeff() > 1e-12 * r_max)) return false;
  // x0 = Q [R^-T b; 0] (A x0 = b, orthogonal to the null space); Z = the last k columns of Q.
  x0_.setZero(n);
  x0_.head(m) = R.transpose().triangularView<Eigen::Lower>().solve(problem.b);
  x0_.applyOnTheLeft(qr.householderQ());
  Z_.setZero(n, k);
  Z_.bottomRows(k).setIdentity();
  Z_.applyOnTheLeft(qr.householderQ());
  PZ_.noalias() = problem.P * Z_;
  P_r_.noalias() = Z_.transpose() * PZ_;
  gradient_ = problem.q;  // of the cost at x0: P x0 + q
  gradient_.noalias() += problem.P * x0_;
  q_r_.noalias() = Z_.transpose() * gradient_;
  minus_G_.noalias() = -G * Z_;
  h_r_ = h;
  h_r_.noalias() -= G * x0_;
  empty_A_.resize(0, k);
  empty_b_.resize(0);
  y_.resize(k);
  status = finish(impl_->qp.solve_quadprog(P_r_, q_r_, empty_A_, empty_b_, minus_G_, h_r_, y_));
  x_ = x0_;
  x_.noalias() += Z_ * y_;
  if (status == "solved" && !x_.allFinite()) status = "non_finite_solution";
  return true;
}

std::string EiquadprogSolver::finish(int result) {
  namespace eq = eiquadprog::solvers;
  iterations_ = impl_->qp.getIteratios();
  std::string status;
  switch (result) {
    case eq::EIQUADPROG_FAST_OPTIMAL: status = "solved"; break;
    case eq::EIQUADPROG_FAST_INFEASIBLE: status = "primal_infeasible"; break;
    case eq::EIQUADPROG_FAST_UNBOUNDED: status = "dual_infeasible"; break;
    case eq::EIQUADPROG_FAST_MAX_ITER_REACHED: status = "max_iter_reached"; break;
    case eq::EIQUADPROG_FAST_REDUNDANT_EQUALITIES: status = "redundant_equalities"; break;
    default: status = "not_run";
  }
  return status;
}

std::unique_ptr<QpSolver> make_solver(const std::string& name, double eps_abs, int max_iter) {
  if (name == "proxsuite") return std::make_unique<ProxsuiteSolver>(eps_abs, max_iter);
  if (name == "eiquadprog") return std::make_unique<EiquadprogSolver>(max_iter);
  throw std::invalid_argument("the core's QP solvers are 'proxsuite' and 'eiquadprog', got '" + name + "'");
}

}  // namespace wbc
