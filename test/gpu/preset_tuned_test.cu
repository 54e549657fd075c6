// GPU correctness of preset::Tuned (one file per preset so the suite compiles in parallel).
#include "check.cuh"

GEMM_PRESET_GPU_TESTS(Tuned)

// Tuned picks a composition by shape: cover each path (large, small, skinny split-K) with ragged,
// padded and misaligned cases.
TEST_CASE("Tuned<float> is correct on every path it dispatches to", "[gpu][Tuned][float]") {
  using gemm_test::Case;
  const Case cases[] = {
      Case{2049, 1537, 67, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // large: 9 x 13 tiles of 256x128
      Case{2051, 1601, 45, -0.5, 1.5, 3, 1, 2, 1, 0, 3},       // large, misaligned
      Case{2048, 1536, 64, 1.0, 1.0},                          // large, aligned, whole tiles
      Case{16, 4099, 1031, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // skinny split-K, NaN in C
      Case{7, 300, 2048, 2.0, -1.0, 4, 4, 4},                  // skinny, aligned
      Case{13, 129, 1500, 0.5, 0.25, 1, 3, 1, 1, 1, 1},        // skinny but misaligned: small-C path
      Case{16, 4096, 1024, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // skinny split-K, aligned, NaN in C
      Case{5, 260, 3000, 1.5, -0.5},                           // skinny, ragged n
      Case{100, 100, 100, 1.0, 0.5},                           // small
      Case{100, 6200, 2048, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, // few large tiles, long k: split-K
      Case{96, 6144, 2052, -1.0, 0.5, 4, 8, 4},                // the same with padded leading dimensions
  };
  for (const Case& c : cases) gemm_test::run_case<gemm::preset::Tuned, float>(c);
}
