// Fused epilogues through preset::Tuned for every type, its split-K, stream-K and Hopper staging
// paths (the epilogue applied once, to the complete sums), and column-major calls: a bias per row of
// the caller's D is a bias per column of the row-major problem the blas path computes.
#include "epilogue_check.cuh"

using namespace epilogue_test;  // its helpers, and BiasKind, Op, Status, Case, DeviceBuffer, act

TEST_CASE("fused epilogue: Tuned for every type", "[gpu][epilogue]") {
  using gemm::preset::Tuned;
  check_family<Tuned, float, float>();
  check_family<Tuned, gemm::tf32, float>();
  check_family<Tuned, gemm::tf32x3, float>();
  check_family<Tuned, double, double>();
  check_family<Tuned, __nv_bfloat16, __nv_bfloat16>();
  check_family<Tuned, __half, __half>();
  check_family<Tuned, __nv_bfloat16, float>();
}

TEST_CASE("fused epilogue: split-K, stream-K and Hopper staging apply it once, to the complete sums",
          "[gpu][epilogue]") {
  using gemm::preset::Tuned;
  // Skinny (m <= 16, k >= 1024): SplitK<16>; 1024 x 1024, k = 2048: LargeSplitK (32 large tiles in 4
  // slices: one round of the SMs); 1024 x 768, k = 2048: 24 large tiles in 5 slices; 512 x 512, k =
  // 4096: 4 slices of 64x64 tiles (64 tiles); 384 x 384, k = 9000: 11 slices of them.
  run_fused<Tuned, float, float, act::GeluTanh>({Case{16, 512, 1024, 1.0, 0.5}, BiasKind::PerRow, false, true});
  run_fused<Tuned, float, float, act::GeluTanh>({Case{1024, 1024, 2048, 1.0, -1.0}, BiasKind::PerColumn, true});
  run_fused<Tuned, float, float, act::GeluTanh>({Case{1024, 768, 2048, 1.0, -1.0}, BiasKind::PerColumn, true});
  run_fused<Tuned, float, float, act::GeluTanh>({Case{512, 512, 4096, 1.0, -1.0}, BiasKind::PerColumn, true});
  run_fused<Tuned, float, float, act::GeluTanh>({Case{384, 384, 9000, 0.5, 0.0}, BiasKind::PerRow, true});
  // Stream-K: whole waves one tile per block, the leftover tiles shared out.
  const auto over = gemm_test::rows_past_a_wave<Tuned::Large, float>(10);
  INFO("wave " << over.wave << " tiles_m " << over.tiles_m);
  run_fused<Tuned, float, float, act::GeluTanh>({Case{over.tiles_m * 128 - 5, 2560, 64, 1.0, 0.5}, BiasKind::PerColumn});
  run_fused<Tuned, float, float, act::GeluTanh>({Case{over.tiles_m * 128, 2560, 40, 1.0, 0.0}, BiasKind::PerRow, true});
  // 3xTF32 with k past one slice of the large term (two slices, the epilogue on the last only).
  if (gemm_test::is_sm90())
    run_fused<Tuned, gemm::tf32x3, float, act::GeluTanh>({Case{96, 80, 4500, 1.0, 0.5}, BiasKind::PerColumn, true});
  // Many rounds of 128x256 tiles with a short k: the ping-pong kernel (fused_pingpong_max_k), ragged
  // edges, a k of less than one k block, each block looping over about ten tiles of 128x128. (Not
  // under the sanitizers' quick lists: the shape must be this large for the rule; epilogue_test.cu
  // runs the same kernel on smaller ones.)
  if (gemm_test::is_sm90() && !gemm_test::quick()) {
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>({Case{4095, 5119, 40, 1.0, 0.5}, BiasKind::PerColumn});
    run_fused<Tuned, __half, __half, act::GeluTanh>({Case{4096, 5120, 72, 0.5, 0.0}, BiasKind::PerRow, false, true});
  }
  // Hopper kernels load a tile's column bias in pairs where the tile lies inside C and the bias is
  // aligned to pairs (sm90::ColumnBias), else column by column: whole tiles with a bias one float into
  // its buffer (the ping-pong and the cooperative kernel), and ragged ones with an aligned bias.
  if (gemm_test::is_sm90()) {
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{1024, 1024, 256, 1.0, 0.0}, BiasKind::PerColumn, false, false, false, 1});
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{2048, 2048, 256, 1.0, 0.0}, BiasKind::PerColumn, false, false, false, 1});
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>({Case{1000, 1000, 256, 1.0, 0.0}, BiasKind::PerColumn});
  }
  // Hopper with a C whose rows TMA cannot store (odd ldd of bf16, >= 2^22 elements): with beta == 0
  // stored by the consumers in row order, else computed in an aligned copy and copied back.
  if (gemm_test::is_sm90()) {
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{2048, 2049, 24, 1.0, 0.0, 0, 0, 0}, BiasKind::PerColumn, false, true});
    run_fused<Tuned, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{2048, 2049, 24, 1.0, 1.0, 0, 0, 0}, BiasKind::PerRow, true});
  }
}

TEST_CASE("fused epilogue: column-major calls (bias per row of the caller's D) and every layout", "[gpu][epilogue]") {
  // The bias and the functor's coordinates are turned around above the kernels (FusedEpilogue), so
  // any preset shows it; the functor sees the caller's (row, column).
  for (const FusedCase& base : family_cases(1)) {
    for (int i = 0; i < 4; ++i) {
      FusedCase f = base;
      f.c = base.c.with_ops(i % 2 ? Op::T : Op::N, i / 2 ? Op::T : Op::N, i != 1);
      run_fused<gemm::preset::MultiStage, float, float, RowColumnRamp, float, Entries::Every>(f);
      f.c = gemm_test::rows_aligned_to(f.c, 8);
      run_fused<gemm::preset::MmaSync, __nv_bfloat16, __nv_bfloat16, act::GeluTanh, float, Entries::Every>(f);
    }
  }
}

