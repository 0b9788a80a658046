#include "walking_mpc.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "solvers.hpp"

namespace wbc {
namespace {

using Point = std::array<double, 2>;

/// Counter-clockwise convex hull of a few points (Andrew's monotone chain, collinear points
/// dropped), as wbc_layer.stepping._hull makes it.
std::vector<Point> hull(std::vector<Point> points) {
  std::sort(points.begin(), points.end());
  auto chain = [](auto first, auto last) {
    std::vector<Point> out;
    for (auto it = first; it != last; ++it) {
      const Point& p = *it;
      while (out.size() >= 2) {
        const Point& a = out[out.size() - 2];
        const Point& b = out[out.size() - 1];
        if ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0.0) break;
        out.pop_back();
      }
      out.push_back(p);
    }
    return out;
  };
  std::vector<Point> lower = chain(points.begin(), points.end());
  std::vector<Point> upper = chain(points.rbegin(), points.rend());
  std::vector<Point> out(lower.begin(), lower.end() - 1);
  out.insert(out.end(), upper.begin(), upper.end() - 1);
  return out;
}

/// The hull of two soles' CoP rectangles: outward unit normals (m, 2) and offsets (m).
std::pair<MatrixXd, VectorXd> pair_hull(const WalkingMpcProblem& s, const double* position, const double* yaw, int a,
                                        int b) {
  std::vector<Point> corners;
  const double local[4][2] = {{s.cop_half_length, s.cop_half_width},
                              {-s.cop_half_length, s.cop_half_width},
                              {-s.cop_half_length, -s.cop_half_width},
                              {s.cop_half_length, -s.cop_half_width}};
  for (int hold : {a, b}) {
    const double c = std::cos(yaw[hold]), sn = std::sin(yaw[hold]);
    for (const auto& l : local)
      corners.push_back({position[2 * hold] + (c * l[0] - sn * l[1]), position[2 * hold + 1] + (sn * l[0] + c * l[1])});
  }
  const std::vector<Point> polygon = hull(std::move(corners));
  const int m = static_cast<int>(polygon.size());
  MatrixXd normals(m, 2);
  VectorXd offsets(m);
  for (int i = 0; i < m; ++i) {
    const Point& p = polygon[i];
    const Point& q = polygon[(i + 1) % m];
    const double nx = q[1] - p[1], ny = -(q[0] - p[0]);
    const double norm = std::sqrt(nx * nx + ny * ny);
    normals(i, 0) = nx / norm;
    normals(i, 1) = ny / norm;
    offsets(i) = normals(i, 0) * p[0] + normals(i, 1) * p[1];
  }
  return {normals, offsets};
}

}  // namespace

WalkingMpcSolution solve_walking_mpc(const WalkingMpcSettings& s, const WalkingMpcProblem& p) {
  const int N = static_cast<int>(s.Pzu.rows());
  const bool free_a = s.free_acceleration_weight >= 0.0;
  const int R = p.samples;
  const int H = p.holds;
  // The decision variables: the jerks (x then y), each variable hold's position, the initial
  // acceleration's change (x, y) where free.
  std::vector<int> column(H, -1);
  int n = 2 * N;
  for (int h = 0; h < H; ++h) {
    if (p.hold_variable[h]) {
      column[h] = n;
      n += 2;
    }
  }
  const int a_col = n;
  if (free_a) n += 2;

  // The CoP rows: samples 1..N, and the CoP now first (z_0 = c_0 - zeta c''_0) where free.
  MatrixXd Pzs(R, 3), Pzu = MatrixXd::Zero(R, N);
  const int first = R - N;
  if (first == 1) Pzs.row(0) << 1.0, 0.0, -s.zeta;
  Pzs.bottomRows(N) = s.Pzs;
  Pzu.bottomRows(N) = s.Pzu;
  Eigen::Map<const Eigen::Matrix<double, 3, 2, Eigen::RowMajor>> state(p.state);
  MatrixXd free(R, 2);  // the CoPs with no jerk
  free.col(0) = Pzs * state.col(0);
  free.col(1) = Pzs * state.col(1);

  // The CoP minus its reference, per axis: E u + e0.
  MatrixXd Ex = MatrixXd::Zero(R, n), Ey = MatrixXd::Zero(R, n);
  Ex.leftCols(N) = Pzu;
  Ey.middleCols(N, N) = Pzu;
  if (free_a) {
    Ex.col(a_col) = Pzs.col(2);
    Ey.col(a_col + 1) = Pzs.col(2);
  }
  MatrixXd e0(R, 2);
  for (int k = 0; k < R; ++k) {
    double ex = free(k, 0) - p.sample_constant[2 * k], ey = free(k, 1) - p.sample_constant[2 * k + 1];
    for (int t = 0; t < p.terms; ++t) {
      const int hold = p.term_hold[k * p.terms + t];
      if (hold < 0) continue;
      const double w = p.term_weight[k * p.terms + t];
      int col = -1;
      double cx = 0.0, cy = 0.0;
      if (p.hold_variable[hold]) {
        col = column[hold];
      } else if (p.hold_anchor[hold] >= 0) {
        col = column[p.hold_anchor[hold]];
        cx = p.hold_offset[2 * hold];
        cy = p.hold_offset[2 * hold + 1];
      } else {
        cx = p.hold_position[2 * hold];
        cy = p.hold_position[2 * hold + 1];
      }
      ex -= w * cx;
      ey -= w * cy;
      if (col >= 0) {
        Ex(k, col) -= w;
        Ey(k, col + 1) -= w;
      }
    }
    e0(k, 0) = ex;
    e0(k, 1) = ey;
  }
  MatrixXd e_cost = e0;  // the CoP's error from its reference (cop_inset_share moves it off the box's centre)
  for (int k = 0; k < R; ++k) {
    e_cost(k, 0) -= p.sample_inset[2 * k];
    e_cost(k, 1) -= p.sample_inset[2 * k + 1];
  }

  VectorXd regularise = VectorXd::Constant(n, s.jerk_weight), reference = VectorXd::Zero(n);
  if (free_a) regularise.tail(2).setConstant(s.free_acceleration_weight);
  for (int h = 0; h < H; ++h) {
    if (column[h] < 0) continue;
    regularise.segment(column[h], 2).setConstant(s.footstep_weight);
    reference(column[h]) = p.hold_position[2 * h];
    reference(column[h] + 1) = p.hold_position[2 * h + 1];
  }
  MatrixXd P = 2.0 * (Ex.transpose() * Ex + Ey.transpose() * Ey);
  P.diagonal() += 2.0 * regularise;
  VectorXd q = 2.0 * (Ex.transpose() * e_cost.col(0) + Ey.transpose() * e_cost.col(1) -
                      regularise.cwiseProduct(reference));
  double constant = e_cost.squaredNorm() + (regularise.array() * reference.array().square()).sum();
  if (s.velocity_weight > 0.0 && p.velocity_ref != nullptr) {
    const double w = s.velocity_weight;
    const MatrixXd PvuTPvu = s.Pvu.transpose() * s.Pvu;
    for (int axis = 0; axis < 2; ++axis) {
      const int c0 = axis * N;
      VectorXd error0 = s.Pvs * state.col(axis);
      for (int k = 0; k < N; ++k) error0(k) -= p.velocity_ref[2 * k + axis];
      constant += w * error0.squaredNorm();
      P.block(c0, c0, N, N) += 2.0 * w * PvuTPvu;
      q.segment(c0, N) += 2.0 * w * (s.Pvu.transpose() * error0);
      if (free_a) {
        const int c = a_col + axis;
        const VectorXd pv = s.Pvs.col(2);
        P(c, c) += 2.0 * w * pv.squaredNorm();
        const VectorXd coupling = 2.0 * w * (s.Pvu.transpose() * pv);
        P.block(c0, c, N, 1) += coupling;
        P.block(c, c0, 1, N) += coupling.transpose();
        q(c) += 2.0 * w * pv.dot(error0);
      }
    }
  }

  // The constraints G u <= h, sample by sample, then the reach regions.
  std::vector<std::pair<MatrixXd, VectorXd>> blocks;
  int rows = 0;
  const double grown = s.initial_cop_margin;
  for (int k = 0; k < R; ++k) {
    const bool now = free_a && k == 0;
    if (now && grown < 0.0) continue;  // the CoP now anywhere
    const int a = p.sample_pair[2 * k], b = p.sample_pair[2 * k + 1];
    const bool in_hull = a >= 0 && b >= 0 && !p.hold_variable[a] && p.hold_anchor[a] < 0 && !p.hold_variable[b] &&
                         p.hold_anchor[b] < 0;
    if (in_hull) {  // double support on two fixed soles: the CoP in their hull
      auto [normals, offsets] = pair_hull(p, p.hold_position, p.hold_yaw, a, b);
      const int m = static_cast<int>(normals.rows());
      MatrixXd block = MatrixXd::Zero(m, n);
      block.leftCols(N) = normals.col(0) * Pzu.row(k);
      block.middleCols(N, N) = normals.col(1) * Pzu.row(k);
      if (free_a) {
        block.col(n - 2) = normals.col(0) * Pzs(k, 2);
        block.col(n - 1) = normals.col(1) * Pzs(k, 2);
      }
      VectorXd bound = offsets - normals * free.row(k).transpose();
      if (now) bound += grown * normals.cwiseAbs().rowwise().sum();
      rows += m;
      blocks.emplace_back(std::move(block), std::move(bound));
    } else {  // single support, or a moving sole: a box around the reference
      const double c = std::cos(p.sample_yaw[k]), sn = std::sin(p.sample_yaw[k]);
      MatrixXd block(4, n);
      block.row(0) = c * Ex.row(k) + sn * Ey.row(k);
      block.row(1) = -sn * Ex.row(k) + c * Ey.row(k);
      block.row(2) = -block.row(0);
      block.row(3) = -block.row(1);
      const double forward = c * e0(k, 0) + sn * e0(k, 1), left = -sn * e0(k, 0) + c * e0(k, 1);
      VectorXd bound(4);
      bound << p.cop_half_length - forward, p.cop_half_width - left, p.cop_half_length + forward,
          p.cop_half_width + left;
      if (now) bound.array() += grown;
      rows += 4;
      blocks.emplace_back(std::move(block), std::move(bound));
    }
  }
  int edge = 0;
  for (int r = 0; r < p.reaches; ++r) {
    const int hold = p.reach_hold[r], parent = p.reach_parent[r], m = p.reach_edges[r];
    const double c = std::cos(p.hold_yaw[parent]), sn = std::sin(p.hold_yaw[parent]);
    MatrixXd block = MatrixXd::Zero(m, n);
    VectorXd bound(m);
    for (int i = 0; i < m; ++i, ++edge) {
      const double nx = p.reach_normals[2 * edge], ny = p.reach_normals[2 * edge + 1];
      const double wx = c * nx - sn * ny, wy = sn * nx + c * ny;  // the normal in world axes
      block(i, column[hold]) = wx;
      block(i, column[hold] + 1) = wy;
      bound(i) = p.reach_offsets[edge];
      if (column[parent] >= 0) {
        block(i, column[parent]) -= wx;
        block(i, column[parent] + 1) -= wy;
      } else {
        bound(i) += wx * p.hold_position[2 * parent] + wy * p.hold_position[2 * parent + 1];
      }
    }
    rows += m;
    blocks.emplace_back(std::move(block), std::move(bound));
  }
  MatrixXd G(rows, n);
  VectorXd h(rows);
  int row = 0;
  for (const auto& [block, bound] : blocks) {
    G.middleRows(row, block.rows()) = block;
    h.segment(row, bound.size()) = bound;
    row += static_cast<int>(block.rows());
  }

  WalkingMpcSolution out;
  Problem problem;
  problem.P = P;
  problem.q = q;
  problem.A.resize(0, n);
  problem.b.resize(0);
  EiquadprogSolver solver(1000, true);
  VectorXd u;
  if (solver.solve(problem, G, h) == "solved") {
    u = solver.x();
    out.status = "solved";
    out.cost = 0.5 * u.dot(P * u) + q.dot(u) + constant;
  } else {
    u = P.partialPivLu().solve(-q);
    out.status = "unconstrained";
    out.cost = std::numeric_limits<double>::infinity();
  }
  out.hold_position.resize(H, 2);
  for (int h = 0; h < H; ++h) {
    if (column[h] >= 0) {
      out.hold_position.row(h) = u.segment(column[h], 2).transpose();
    } else {
      out.hold_position(h, 0) = p.hold_position[2 * h];
      out.hold_position(h, 1) = p.hold_position[2 * h + 1];
    }
  }
  for (int h = 0; h < H; ++h) {
    const int anchor = p.hold_anchor[h];
    if (anchor >= 0) {
      out.hold_position(h, 0) = out.hold_position(anchor, 0) + p.hold_offset[2 * h];
      out.hold_position(h, 1) = out.hold_position(anchor, 1) + p.hold_offset[2 * h + 1];
    }
  }
  out.jerk.resize(N, 2);
  out.jerk.col(0) = u.head(N);
  out.jerk.col(1) = u.segment(N, N);
  out.cop = free.bottomRows(N);
  out.cop.col(0) += s.Pzu * out.jerk.col(0);
  out.cop.col(1) += s.Pzu * out.jerk.col(1);
  out.state = state;
  if (free_a) {
    out.state(2, 0) += u(a_col);
    out.state(2, 1) += u(a_col + 1);
    out.cop.col(0) += s.Pzs.col(2) * u(a_col);
    out.cop.col(1) += s.Pzs.col(2) * u(a_col + 1);
  }
  return out;
}

}  // namespace wbc
