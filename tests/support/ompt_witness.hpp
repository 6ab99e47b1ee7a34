/// @file ompt_witness.hpp
/// @brief For tests that grade a technique by what the OMPT tool of
///        reference/lesson02_ompt.hpp saw (launches, copies): whether it
///        sees anything here. Include after lesson02_ompt.hpp.
#pragma once

#include <string>

#include "course/device.hpp"
#include "course_test.hpp"

namespace course_test {

/// True when the witness reports device events. On the host device it must
/// (ctest sets LD_LIBRARY_PATH so that the runtime finds libomp.so for OMPT),
/// so its absence fails the test; a GPU runtime may stay silent: a warning.
inline bool ompt_witness_ready() {
  namespace trace = course::lesson2_trace;
  std::string why;
  if (!trace::tracing_active())
    why = "the OMPT tool that watches launches and copies is not active (is OMP_TOOL=disabled set?)";
  else if (!trace::device_events())
    why = "the offload runtime reports no kernel launches or copies to the OMPT tool";
  if (why.empty()) return true;
  if (course::device_info().is_gpu()) {
    WARN(why + "; skipped on this GPU runtime");
    return false;
  }
  FAIL(why + "; run the tests through ctest, which sets LD_LIBRARY_PATH to LLVM's lib folder");
  return false;
}

}  // namespace course_test
