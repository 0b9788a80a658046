#include "model_io.hpp"

#include <pinocchio/serialization.hpp>

namespace wbc {
void load_model(pinocchio::Model& model, const std::string& text) { model.loadFromString(text); }
}  // namespace wbc
