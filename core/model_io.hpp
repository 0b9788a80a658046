// Loading the pinocchio model that the Python side serialised (its own translation unit:
// pinocchio's serialization headers are slow to compile).
#pragma once

#include <pinocchio/multibody.hpp>
#include <string>

namespace wbc {
/// `text`: pinocchio.Model.saveToString() (Boost text archive).
void load_model(pinocchio::Model& model, const std::string& text);
}  // namespace wbc
