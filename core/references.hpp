// One physics step's references as one value, written into a controller in one call: the C++ form
// of wbc_layer.references.References (the CoM task's reference; each contact's activity, normal-force
// bounds and normal-force target; the frame-position tasks' references; the orientation tasks'
// activity and target; the environment bodies' rest tasks' activity and target). A loop that runs the physics
// steps in compiled code (issue 41) fills one of these per step and hands it over without Python;
// Controller::set_references leaves the controller as References.write through the Python setters
// would (tests/test_references.py).
#pragma once

#include <vector>

#include "pieces.hpp"

namespace wbc {

/// One contact's references.
struct ContactReference {
  bool active = false;
  double min_normal_force = 0.0;  // [N], 0 <= min <= max, finite
  double max_normal_force = 0.0;  // [N]
  bool track_force = false;       // false: the contact's force task off
  double force_target = 0.0;      // [N] normal force, when tracked
  double force_weight = -1.0;     // the force task's weight (>= 0); < 0: keep the one it has
};

/// A frame-position task's references.
struct FrameReference {
  int task = -1;  // the controller's task index (a FramePositionTask)
  bool active = false;
  Vector3d position = Vector3d::Zero();  // [m] world
  Vector3d velocity = Vector3d::Zero();  // [m/s]
};

/// An orientation task's references.
struct OrientationReference {
  int task = -1;  // the controller's task index (an OrientationTask)
  bool active = false;
  Matrix3d target = Matrix3d::Identity();  // a rotation matrix, world axes
};

/// An environment body's rest task's references.
struct BodyRestReference {
  int task = -1;  // the controller's task index (a BodyRestTask)
  bool active = false;
  VectorXd target;  // (the body's coordinates) where its rest task draws them
};

struct StepReferences {
  Vector3d com_position = Vector3d::Zero();      // [m] world
  Vector3d com_velocity = Vector3d::Zero();      // [m/s]
  Vector3d com_acceleration = Vector3d::Zero();  // [m/s^2]
  std::vector<ContactReference> contacts;        // one per contact, in the controller's order
  std::vector<FrameReference> frames;
  std::vector<OrientationReference> orientations;
  std::vector<BodyRestReference> body_rests;
};

/// Where one contact's references go in the controller: the rows of its h holding the normal-force
/// bounds (h[min_row] = -min_normal_force, h[max_row] = max_normal_force) and its normal-force task
/// (-1: none). Set once, from the problem description (wbc_layer.problem).
struct ContactReferenceRows {
  int min_row = -1, max_row = -1, force_task = -1;
};

}  // namespace wbc
