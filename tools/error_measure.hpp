#pragma once
// What the accuracy tools (accuracy.cu, fp8_accuracy.cu) measure of a result against an fp64
// reference: the normwise relative error and the worst element's error relative to sum |a b|.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace gemm_tools {

struct Errors {
  double normwise = 0, elementwise = 0;
};

inline Errors measure(const std::vector<float>& c, const std::vector<double>& ref, const std::vector<double>& mag) {
  double e2 = 0, r2 = 0, worst = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = static_cast<double>(c[i]) - ref[i];
    if (!std::isfinite(d)) return {INFINITY, INFINITY};
    e2 += d * d, r2 += ref[i] * ref[i];
    if (mag[i] > 0) worst = std::max(worst, std::fabs(d) / mag[i]);
  }
  return {std::sqrt(e2 / r2), worst};
}

inline std::string sci(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", x);
  return b;
}

}  // namespace gemm_tools
