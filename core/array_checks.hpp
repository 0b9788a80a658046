// What both Python modules' bindings (wbc_layer._core, humanoid_env._physics) check of the numpy
// arrays they are handed before any C++ reads them: C-contiguous float or int arrays of fixed
// shapes, refused with a ValueError naming the argument, the expected and the received shape.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <initializer_list>
#include <string>

namespace wbc::bindings {

namespace nb = nanobind;

template <class T>
using Array = nb::ndarray<const T, nb::numpy, nb::c_contig, nb::device::cpu>;

[[noreturn]] inline void value_error(const std::string& message) { throw nb::value_error(message.c_str()); }

/// Check that `a` is (rows, cols...) and return its data.
template <class T>
const T* checked(const char* what, const Array<T>& a, std::initializer_list<std::size_t> shape) {
  bool ok = a.ndim() == shape.size();
  std::size_t d = 0;
  for (std::size_t n : shape) ok = ok && a.shape(d++) == n;
  if (!ok) {
    std::string expected, got;
    for (std::size_t n : shape) expected += (expected.empty() ? "" : ", ") + std::to_string(n);
    for (std::size_t i = 0; i < a.ndim(); ++i) got += (got.empty() ? "" : ", ") + std::to_string(a.shape(i));
    value_error(std::string(what) + " must have shape (" + expected + "), got (" + got + ")");
  }
  return a.data();
}

}  // namespace wbc::bindings
