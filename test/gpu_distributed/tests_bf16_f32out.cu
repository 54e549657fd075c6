// bf16 inputs with float C: every algorithm and layout.
#include "harness.cuh"

using namespace dist_test;
using T = __nv_bfloat16;

TEST_CASE("bf16 with float C: every algorithm and layout matches the single-GPU result", "[distributed][bf16_f32out]") {
  check_cases<T, float>(group(), standard_cases());
}

TEST_CASE("bf16 with float C: small cases for compute-sanitizer", "[distributed][bf16_f32out][memcheck]") {
  check_cases<T, float>(group(), memcheck_cases(), {{Op::T, Op::N}});
}
