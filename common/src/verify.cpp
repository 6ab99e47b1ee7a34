// verify.cpp -- scalar comparison (the array comparisons are templates in the header).
#include "course/verify.hpp"

namespace course {

Check check_scalar(double got, double ref, double tol, const std::string &what) {
  Check c;
  const double scale = std::fabs(ref) > 0 ? std::fabs(ref) : 1.0;
  c.error = std::fabs(got - ref) / scale;
  c.ok = std::isfinite(got) && c.error <= tol;
  if (!c.ok) {
    std::ostringstream msg;
    msg.precision(10);
    msg << what << ": expected " << ref << ", got " << got << " (relative error " << c.error << ", allowed " << tol
        << ")";
    c.message = msg.str();
  }
  return c;
}

}  // namespace course
