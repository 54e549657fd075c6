// GPU correctness of preset::Dmma (double on the FP64 tensor cores, mma.m8n8k4.f64, sm_80+): the
// composition preset::Tuned runs for double on sm_80 and newer. Every layout, both entry points,
// 16-byte copies for 16-byte rows and 8-byte copies for any other (odd leading dimensions, pointers
// one element off).
#include "check.cuh"

namespace {
using gemm_test::Case;
using gemm_test::Op;
using P = gemm::preset::Dmma;
}  // namespace

TEST_CASE("Dmma<double> matches the fp64 reference on ragged, padded and misaligned input, every layout",
          "[gpu][Dmma][double]") {
  gemm_test::check_preset<P, double>();
}

TEST_CASE("Dmma<double> is correct on larger ragged shapes, both copy widths, every layout", "[gpu][Dmma][double]") {
  // Many 128x128 tiles with ragged edges and k ranges over many 16-deep stages; aligned rows (even
  // leading dimensions, 16-byte copies) and odd ones (8-byte copies).
  const Case cases[] = {
      Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
      Case{1531, 2821, 1000, 0.5, -1.0, 3, 1, 1, 1, 0, 1},
      Case{2053, 1037, 77, -1.0, 1.0, 0, 0, 3},
      Case{777, 1290, 515, 1.5, 0.25, 8, 8, 2},
      Case{1024, 1024, 1024, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
      Case{129, 4099, 2049, 1.0, 1.0, 1, 2, 0, 0, 1, 0},
      Case{4100, 130, 17, -0.5, 0.5, 2, 1, 1},
  };
  int i = 0;
  for (const Case& c : cases) {
    const Op a = i % 2 ? Op::T : Op::N, b = i % 4 < 2 ? Op::N : Op::T;
    gemm_test::run_case<P, double>(c);
    gemm_test::run_case<P, double>(c.with_ops(a, b, i % 3 == 2));
    ++i;
  }
}
