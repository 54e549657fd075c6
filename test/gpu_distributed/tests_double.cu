// double: every algorithm and layout.
#include "harness.cuh"

using namespace dist_test;

TEST_CASE("double: every algorithm and layout matches the single-GPU result", "[distributed][double]") {
  check_cases<double, double>(group(), standard_cases());
}

TEST_CASE("double: small cases for compute-sanitizer", "[distributed][double][memcheck]") {
  check_cases<double, double>(group(), memcheck_cases(), {{Op::T, Op::T}});
}
