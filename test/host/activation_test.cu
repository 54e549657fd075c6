// The activations' double forms, which the GPU tests use as their reference, against the textbook
// formulas: the library evaluates them in rearranged forms (GELU-tanh and SiLU through 2^x), and a
// wrong constant there would otherwise pass, since the device and the reference share the functor.
#include <cmath>
#include <gemm/epilogue.cuh>
#include "../catch.hpp"

namespace {

// 0.5 v (1 + tanh(u)); for v < 0, where 1 + tanh(u) cancels, the same as v e^(2u) / (1 + e^(2u)).
double gelu_tanh_textbook(double v) {
  const double u = std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
  if (v < 0) return v * std::exp(2 * u) / (1 + std::exp(2 * u));
  return 0.5 * v * (1 + std::tanh(u));
}
double gelu_erf_textbook(double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }
double silu_textbook(double v) { return v / (1 + std::exp(-v)); }

// The rearranged forms differ from the textbook ones by rounding only: a few hundred ulps at most
// over |v| <= 12 (the exponent's rounding, scaled by its size), where a wrong constant or sign is off
// by far more.
void check_close(double got, double want, double v) {
  INFO("v = " << v << ": got " << got << ", want " << want);
  CHECK(std::fabs(got - want) <= 1e-13 * std::fabs(want) + 1e-300);
}

}  // namespace

TEST_CASE("Activations in double match their textbook formulas", "[host][epilogue]") {
  for (double v = -12.0; v <= 12.0; v += 0.01) {
    check_close(gemm::act::GeluTanh{}(v), gelu_tanh_textbook(v), v);
    check_close(gemm::act::GeluErf{}(v), gelu_erf_textbook(v), v);
    check_close(gemm::act::SiLU{}(v), silu_textbook(v), v);
    CHECK(gemm::act::ReLU{}(v) == (v < 0 ? 0.0 : v));
    CHECK(gemm::act::Identity{}(v) == v);
    CHECK(gemm::act::Clamp{-1.5f, 2.0f}(v) == std::fmin(std::fmax(v, -1.5), 2.0));
  }
  // Large magnitudes: GELU and SiLU tend to v for v > 0 and to -0 for v < 0.
  CHECK(gemm::act::GeluTanh{}(1e6) == 1e6);
  CHECK(std::fabs(gemm::act::GeluTanh{}(-1e6)) == 0.0);
  CHECK(gemm::act::SiLU{}(1e6) == 1e6);
  CHECK(std::fabs(gemm::act::SiLU{}(-1e6)) == 0.0);
  // NaN passes through; GELU(+inf) = inf as the formula's limit.
  CHECK(std::isnan(gemm::act::GeluTanh{}(std::nan(""))));
  CHECK(std::isnan(gemm::act::SiLU{}(std::nan(""))));
  CHECK(std::isnan(gemm::act::ReLU{}(std::nan(""))));
  CHECK(gemm::act::GeluTanh{}(INFINITY) == INFINITY);
}
