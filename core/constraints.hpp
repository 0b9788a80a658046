// The constraint pieces of the whole-body QP, beside the task pieces (pieces.hpp). Each family of
// rows is one piece: it says how many rows it holds and writes them into the block the row layout
// gives it. RowLayout is the one owner of where rows sit. The formulation: docs/qp.md.
#pragma once

#include <memory>
#include <vector>

#include "pieces.hpp"
#include "solvers.hpp"

namespace wbc {

/// What a constraint piece may read while writing its rows.
struct ConstraintContext {
  RobotTerms& robot;
  const Layout& layout;
  std::vector<Contact>& contacts;
  const std::vector<std::unique_ptr<EnvironmentBody>>& bodies;
  /// (nf, nv) the active contacts' Jacobians in force order (zero rows for inactive ones), this tick's.
  const MatrixXd& contact_jacobian;
  double contact_damping;  // [1/s]
  int na;
};

/// Where one piece's rows sit: equality rows [eq, eq + n_eq) of A, b; inequality rows
/// [in, in + n_in) of G_all, h_all (and of G_hot, h_hot for a hot piece: hot rows come first).
struct RowBlock {
  int eq = 0, n_eq = 0, in = 0, n_in = 0;
};

class Constraint {
 public:
  virtual ~Constraint() = default;
  /// Rows held for the present structure (which contacts are active, their force rows).
  virtual int equality_rows(const ConstraintContext&) const { return 0; }
  virtual int inequality_rows(const ConstraintContext&) const { return 0; }
  /// Hot: its inequality rows are in every solve. Cold: added only when the hot solution breaks
  /// one (holds() says): rows that are rarely active and many (joint and torque limits).
  virtual bool hot() const { return true; }
  /// In the relaxed QP (a tick whose QP has no solution): equality rows moved into the cost.
  virtual bool soft_when_relaxed(const ConstraintContext&) const { return false; }
  /// In the relaxed QP: inequality rows left out.
  virtual bool dropped_when_relaxed() const { return false; }
  /// Rows constant while the structure is, written into zeroed arrays when it changed.
  virtual void write_structure(const ConstraintContext&, const RowBlock&, Problem&) {}
  /// This tick's equality and hot rows, and what a cold piece's holds() reads.
  virtual void write(const ConstraintContext&, const RowBlock&, Problem&) {}
  /// A cold piece's inequality rows, written only when a solve or a caller needs them.
  virtual void write_cold(const ConstraintContext&, const RowBlock&, Problem&) {}
  /// Whether a solution x with torques tau keeps this cold piece's rows.
  virtual bool holds(const ConstraintContext&, const Eigen::Ref<const VectorXd>&, const VectorXd&) const {
    return true;
  }
};

/// The one owner of the row layout: equalities in piece order; inequalities with every hot
/// piece's rows first (G_hot is their copy), then the cold pieces' in piece order.
struct RowLayout {
  std::vector<RowBlock> blocks;  // one per piece
  int n_eq = 0, n_hot = 0, n_in = 0;
  void plan(const std::vector<std::unique_ptr<Constraint>>& pieces, const ConstraintContext& context);
};

/// M_u qdd + h_u = J_c,u^T f: the floating base's 6 rows of the equations of motion.
class FloatingBaseDynamics : public Constraint {
 public:
  int equality_rows(const ConstraintContext&) const override { return 6; }
  void write(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
};

/// Contact i, its dim rows: active, J_i qdd + Jdot_i v = -k_d u_i (relative to the environment
/// body it stands on: - J_s,i sdd - Jdot_s,i s_dot) and its force rows G f_i <= h; inactive, f_i = 0.
class ContactConstraint : public Constraint {
 public:
  explicit ContactConstraint(int contact) : contact_(contact) {}
  int equality_rows(const ConstraintContext& c) const override { return c.contacts[contact_].dim; }
  int inequality_rows(const ConstraintContext& c) const override;
  bool soft_when_relaxed(const ConstraintContext& c) const override { return c.contacts[contact_].active; }
  void write_structure(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
  void write(const ConstraintContext& c, const RowBlock& block, Problem& p) override;

 private:
  int contact_;
};

/// Environment body k: M_s sdd + h_s + sum_i J_s,i^T f_i = 0 over the active contacts on it.
class BodyDynamics : public Constraint {
 public:
  explicit BodyDynamics(int body) : body_(body) {}
  int equality_rows(const ConstraintContext& c) const override { return c.bodies[body_]->dof(); }
  void write(const ConstraintContext& c, const RowBlock& block, Problem& p) override;

 private:
  int body_;
};

/// a_lo <= qdd_a <= a_hi (wbc_layer.joint_limits): cold, dropped in the relaxed QP; no rows
/// until set().
class JointLimitRows : public Constraint {
 public:
  /// ranges lower/upper (na) [rad], velocity limits (na) [rad/s], horizon [s] (checked by the caller).
  void set(const VectorXd& lower, const VectorXd& upper, const VectorXd& velocity, double horizon);
  bool enabled() const { return n_ > 0; }
  int inequality_rows(const ConstraintContext&) const override { return 2 * n_; }
  bool hot() const override { return false; }
  bool dropped_when_relaxed() const override { return true; }
  void write_structure(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
  void write(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
  void write_cold(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
  bool holds(const ConstraintContext& c, const Eigen::Ref<const VectorXd>& x, const VectorXd& tau) const override;

 private:
  int n_ = 0;
  double horizon_ = 0.0;
  VectorXd lower_, upper_, velocity_, accel_lo_, accel_hi_;
};

/// tau_min <= M_a qdd + h_a - J_a^T f <= tau_max: cold.
class TorqueLimitRows : public Constraint {
 public:
  TorqueLimitRows(const VectorXd& torque_min, const VectorXd& torque_max) : min_(torque_min), max_(torque_max) {}
  int inequality_rows(const ConstraintContext& c) const override { return 2 * c.na; }
  bool hot() const override { return false; }
  void write_cold(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
  bool holds(const ConstraintContext&, const Eigen::Ref<const VectorXd>&, const VectorXd& tau) const override {
    return within(tau);
  }
  bool within(const VectorXd& tau) const;

 private:
  VectorXd min_, max_;
};

/// Leg clearance: the swing sole's origin stays at least min_distance [m] from the stance sole's
/// along the stance sole's lateral axis n (its y axis levelled, times side = +1 or -1: the side
/// the swing foot belongs on), predicted a horizon T [s] ahead with the tick's acceleration:
///   d + T d_dot + T^2/2 (n^T (J_s - J_t) qdd + n^T (a_s - a_t)) >= min_distance,
/// d = n^T (p_s - p_t), J and a the soles' world Jacobians and classical drifts. One hot row while
/// active (wbc_layer.constraints.LegClearance), none while not.
class LegClearanceRows : public Constraint {
 public:
  int swing_frame = 0, stance_frame = 0;
  double side = 1.0, min_distance = 0.0, horizon = 0.1;
  bool active = false;
  int inequality_rows(const ConstraintContext&) const override { return active ? 1 : 0; }
  void write(const ConstraintContext& c, const RowBlock& block, Problem& p) override;
};

}  // namespace wbc
