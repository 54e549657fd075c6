// double: every algorithm and layout.
#include "harness.cuh"

using namespace dist_test;

TEST_CASE("double: every algorithm and layout matches the single-GPU result", "[distributed][double]") {
  check_cases<double, double>(group(), standard_cases());
}

TEST_CASE("double: small cases for compute-sanitizer", "[distributed][double][memcheck]") {
  for (const Case& c : memcheck_cases()) {
    const Data<double, double> d(c, Op::T, Op::T);
    for (gd::Algorithm alg : gd::kAlgorithms) run_and_check(group(), d, alg);
  }
}
