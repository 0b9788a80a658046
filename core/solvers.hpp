// The QP solvers of the core, behind one interface: proxsuite (dense, warm-started from the last
// solution) and eiquadprog (Goldfarb-Idnani dual active set, from scratch each call: an exact
// solve, the same bits for the same problem; by default on the problem reduced to the equalities'
// null space). The Python counterparts are in wbc_layer.qp.
#pragma once

#include <array>
#include <memory>
#include <string>

#include <Eigen/Dense>

namespace wbc {

using Eigen::MatrixXd;
using Eigen::VectorXd;

/// The QP in qpsolvers' form: min 1/2 x^T P x + q^T x  s.t.  A x = b, G x <= h. G and h come
/// twice: the hot rows alone (G_hot: the active contacts' force rows), and those rows followed by
/// the cold ones (G_all: joint and torque limits, written only when used). Where each row sits:
/// wbc::RowLayout (constraints.hpp).
struct Problem {
  MatrixXd P, A, G_hot, G_all;
  VectorXd q, b, h_hot, h_all;
};

/// One solver instance per problem sequence (its warm start, if any, is the last solution).
class QpSolver {
 public:
  virtual ~QpSolver() = default;
  /// Solve with the inequalities G x <= h; returns "solved" or the failure reason
  /// ("primal_infeasible", "max_iter_reached", "non_finite_solution", ...).
  virtual std::string solve(const Problem& problem, const MatrixXd& G, const VectorXd& h) = 0;
  /// Forget any warm start.
  virtual void reset() {}
  const VectorXd& x() const { return x_; }
  int iterations() const { return iterations_; }

 protected:
  VectorXd x_;
  int iterations_ = 0;
};

/// Warm-started proxsuite dense QP; same settings and warm start as wbc_layer.qp.ProxsuiteSolver.
class ProxsuiteSolver : public QpSolver {
 public:
  ProxsuiteSolver(double eps_abs, int max_iter);
  ~ProxsuiteSolver() override;
  std::string solve(const Problem& problem, const MatrixXd& G, const VectorXd& h) override;
  void reset() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  double eps_abs_;
  int max_iter_;
  std::array<int, 3> dims_{-1, -1, -1};
  VectorXd y_, z_, lower_;
};

/// eiquadprog's EiquadprogFast (the solver TSID uses): Goldfarb and Idnani's dual active-set
/// method, which needs P positive definite (the controller's regularisation task makes it so).
///
/// With eliminate_equalities (the default) the m equalities are removed before the solve: from a
/// Householder QR of A^T, x = x0 + Z y with A x0 = b and Z (n, n - m) an orthonormal basis of
/// A's null space, and eiquadprog solves the inequality-only QP in y (P_r = Z^T P Z, positive
/// definite when P is; G_r = G Z). The same optimum (to round-off, <= 3e-11 relative on the
/// controller's problems); for the balance env's 41 variables and 18 equalities it takes about
/// 65 % of the time of the solve with the equalities. If A is numerically rank-deficient
/// (|R_ii| <= 1e-12 of the largest) the solve keeps the equalities and eiquadprog reports them
/// (redundant_equalities).
class EiquadprogSolver : public QpSolver {
 public:
  explicit EiquadprogSolver(int max_iter, bool eliminate_equalities = true);
  ~EiquadprogSolver() override;
  std::string solve(const Problem& problem, const MatrixXd& G, const VectorXd& h) override;

 private:
  std::string solve_full(const Problem& problem, const MatrixXd& G, const VectorXd& h);
  /// Writes x_ from the reduced solve; false (nothing solved) when A is rank-deficient.
  bool solve_reduced(const Problem& problem, const MatrixXd& G, const VectorXd& h, std::string& status);
  std::string finish(int result);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool eliminate_;
  MatrixXd minus_G_, Z_, PZ_, P_r_, empty_A_;
  VectorXd minus_b_, x0_, gradient_, q_r_, h_r_, y_, empty_b_;
};

/// "proxsuite" or "eiquadprog"; anything else throws std::invalid_argument naming both.
std::unique_ptr<QpSolver> make_solver(const std::string& name, double eps_abs, int max_iter);

}  // namespace wbc
