// GPU correctness of preset::Tuned (one file per preset so the suite compiles in parallel).
#include "check.cuh"

using gemm::Op;

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
      Case{128, 1024, 1024, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, // few small tiles, long k: k slices, NaN in C
      Case{101, 517, 1031, -0.5, 1.5, 4, 4, 4},                // the same, ragged and padded
  };
  for (const Case& c : cases) gemm_test::run_case<gemm::preset::Tuned, float>(c);
}

// Few 64x64 tiles and a long k: k in the slice count that spreads the blocks most evenly over the
// SMs (SplitKToFill: 4 to 32, at least 256 long), every layout (B stored transposed on its own padded
// tiles), slices that end past k (5000 in 19 slices of 288 on 132 SMs), padded and misaligned rows,
// beta over NaN and not.
TEST_CASE("Tuned<float> splits few tiles' k into slices that fill the SMs", "[gpu][Tuned][float][kslices]") {
  using gemm_test::Case;
  using T = gemm::preset::Tuned;
  const int sms = gemm_test::device_sms();
  CHECK(T::SmallKSlices::slices(36, 9000, sms) >= 4);
  const Case cases[] = {
      Case{384, 384, 9000, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // 36 tiles: 11 slices on 132 SMs, NaN in C
      Case{130, 70, 5000, -0.5, 1.5, 4, 4, 4},                 // 6 tiles: 19 slices, the last one empty
      Case{64, 64, 20000, 2.0, -1.0},                          // 1 tile: 32 slices
      Case{255, 257, 4099, 0.5, 0.25, 1, 3, 1, 1, 1, 1},       // rows not 16-byte aligned: 20 tiles, 13 slices
      Case{576, 512, 7168, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // 72 tiles: 11 slices
  };
  for (const Case& c : cases)
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) {
        const Case l = c.with_ops(a, b);
        INFO(l.str());
        gemm_test::DeviceBuffer<float> probe(4);
        const std::string composition = gemm_test::tuned_composition<float>(probe.ptr, a, b, c.m, c.n, c.k);
        INFO(composition);
        CHECK(composition.find("SplitKToFill") != std::string::npos);
        CHECK(composition.find(b == Op::T ? "RowMajor<1>>" : "RowMajor<0>>") != std::string::npos);
        gemm_test::run_case<T, float>(l);
      }
  // The compositions on their own over the standard cases of B stored transposed.
  for (const Case& c : gemm_test::layout_cases()) {
    gemm_test::run_case<T::SmallTransposedBSplitK, float>(c.with_ops(Op::N, Op::T));
    gemm_test::run_case<T::SmallTransposedBSplitK, float>(c.with_ops(Op::T, Op::T));
  }
}

// Each composition Tuned dispatches to, called directly on the standard cases (sizes 1 and primes,
// k = 0, padded and misaligned input): dispatch alone only reaches them with large shapes.
// Compositions that refuse misaligned input get each case made 16-byte aligned (leading dimensions
// rounded up to a multiple of 4, offsets of 0 or 4 elements), with the same m, n and k.
namespace {
gemm_test::Case aligned_version(gemm_test::Case c) {
  const auto pad_to_4 = [](int width, int pad) { return (4 - std::max(1, width) % 4) % 4 + (pad >= 4 ? 4 : 0); };
  c.pad_a = pad_to_4(c.k, c.pad_a);
  c.pad_b = pad_to_4(c.n, c.pad_b);
  c.pad_c = pad_to_4(c.n, c.pad_c);
  c.offset_a = c.offset_a ? 4 : 0;
  c.offset_b = c.offset_b ? 4 : 0;
  c.offset_c = c.offset_c ? 4 : 0;
  return c;
}

template <class Policy>
void check_part(const char* label, bool aligned_only) {
  for (const gemm_test::Case& c : gemm_test::standard_cases()) {
    INFO("Tuned::" << label);
    gemm_test::run_case<Policy, float>(aligned_only ? aligned_version(c) : c);
  }
}
}  // namespace

TEST_CASE("Each of Tuned's float compositions is correct on its own", "[gpu][Tuned][float]") {
  using T = gemm::preset::Tuned;
  check_part<T::Large>("Large", true);
  check_part<T::LargeSplitK>("LargeSplitK", true);
  check_part<T::BatchMedium>("BatchMedium", true);
  check_part<T::Skinny>("Skinny", true);
  check_part<T::LargeMisaligned>("LargeMisaligned", false);
  check_part<T::Small>("Small", false);
  check_part<T::SmallSplitK>("SmallSplitK", false);
}

// PackedRows: Tuned's fp32 compositions on copies of the operands with 16-byte-aligned rows, where
// the caller's rows are not (pads of 3 and 1, offsets of 1 element among the standard cases; Large
// alone refuses them). Every layout on the compositions Tuned copies for (B as stored or transposed).
TEST_CASE("PackedRows runs Tuned's fp32 compositions on aligned copies of misaligned rows",
          "[gpu][Tuned][float][packed]") {
  using T = gemm::preset::Tuned;
  check_part<gemm::PackedRows<T::Small>>("PackedRows<Small>", false);
  check_part<gemm::PackedRows<T::SmallSplitK>>("PackedRows<SmallSplitK>", false);
  check_part<gemm::PackedRows<T::Large>>("PackedRows<Large>", false);
  check_part<gemm::PackedRows<T::LargeSplitK>>("PackedRows<LargeSplitK>", false);
  for (const gemm_test::Case& c : gemm_test::layout_cases()) {
    gemm_test::run_case<gemm::PackedRows<T::Small>, float>(c.with_ops(gemm::Op::T, gemm::Op::N));
    gemm_test::run_case<gemm::PackedRows<T::SmallTransposedB>, float>(c.with_ops(gemm::Op::N, gemm::Op::T));
    gemm_test::run_case<gemm::PackedRows<T::SmallTransposedB>, float>(c.with_ops(gemm::Op::T, gemm::Op::T));
  }
  // The copies are made (kernel launches: A's and B's copies in one, C's in, the GEMM, C's out).
  gemm_test::DeviceBuffer<float> a(130 * 132), b(130 * 132), c(130 * 132);
  for (float* p : {a.ptr, b.ptr, c.ptr}) CUDA_REQUIRE(cudaMemset(p, 0, 130 * 132 * sizeof(float)));
  const auto launches = gemm::kernel_launches();
  REQUIRE(gemm::gemm<float, gemm::PackedRows<T::Small>>(129, 131, 129, 1.0f, a.ptr + 1, 130, b.ptr, 131, 0.5f, c.ptr,
                                                        131) == gemm::Status::Success);
  CHECK(gemm::kernel_launches() - launches == 4);
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

// Tuned copies misaligned fp32 rows where its 64x64 tiles take more than a round of the SMs and k
// >= 512, for B not stored transposed (gemm::plan says so; the host tests check where): every layout,
// through both entry points, copied or not.
TEST_CASE("Tuned<float> on misaligned rows it copies first, every layout", "[gpu][Tuned][float][packed]") {
  using gemm_test::Case;
  using gemm::Op;
  const bool q = gemm_test::quick();
  const Case cases[] = {
      Case{777, 779, q ? 515 : 771, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // odd rows everywhere, NaN in C
      Case{777, 780, 771, -0.5, 1.5, 3, 4, 1, 1, 0, 3},                 // padded, offset, C misaligned
  };
  for (const Case& base : cases) {
    for (const Case& c : {base, base.with_ops(Op::N, Op::T), base.with_ops(Op::T, Op::N), base.with_ops(Op::T, Op::T),
                          base.with_ops(Op::N, Op::N, true)}) {
      gemm_test::DeviceBuffer<float> probe(1);
      const gemm::Plan plan = gemm::plan<float>(c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, probe.ptr + c.offset_a, c.lda(),
                                                probe.ptr + c.offset_b, c.ldb(), 1.0f, probe.ptr + c.offset_c, c.ldc());
      INFO(c.str() << ": " << plan.describe());
      // (169 small tiles: split k on the copies, so A stored transposed is copied too)
      CHECK((plan.composition.find("PackedRows<") != std::string::npos) == (c.op_b == Op::N));
      gemm_test::run_case<gemm::preset::Tuned, float>(c);
    }
  }
}

// Stream-K only runs when the tiles overflow whole waves of the GPU, so these shapes are built from
// the device: more 128x256 (Large) or 256x128 (LargeMisaligned) tiles than one wave holds, and not a
// multiple of it. k covers a long ragged range (blocks share tiles), one BK step (blocks cover
// several whole tiles each) and beta = 0 over NaN (the leftover tiles' beta pass must zero C).
TEST_CASE("Tuned's stream-K compositions are correct when the last wave is shared out", "[gpu][Tuned][float]") {
  using gemm_test::Case;
  using T = gemm::preset::Tuned;
  {
    const auto rows = gemm_test::rows_past_a_wave<T::Large, float>(12);
    const int m = rows.tiles_m * 128 - 5, n = 12 * 256 - 3;
    INFO("Tuned::Large with stream-K, " << rows.tiles_m * 12 << " tiles, " << rows.wave << " per wave");
    gemm_test::run_case<T::Large, float>(aligned_version(Case{m, n, 150, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
    gemm_test::run_case<T::Large, float>(aligned_version(Case{m, n, 150, 0.5, -1.5, 4, 4, 4}));
    gemm_test::run_case<T::Large, float>(aligned_version(Case{m, n, 16, -1.0, 1.0}));
    gemm_test::run_case<T::Large, float>(aligned_version(Case{m, n, 13, 2.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  }
  {
    const auto rows = gemm_test::rows_past_a_wave<T::LargeMisaligned, float>(13);
    const int m = rows.tiles_m * 256 - 7, n = 13 * 128 - 1;
    INFO("Tuned::LargeMisaligned with stream-K, " << rows.tiles_m * 13 << " tiles, " << rows.wave << " per wave");
    gemm_test::run_case<T::LargeMisaligned, float>(Case{m, n, 45, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true});
    gemm_test::run_case<T::LargeMisaligned, float>(Case{m, n, 67, -0.5, 0.75, 3, 1, 2, 1, 0, 3});
    gemm_test::run_case<T::LargeMisaligned, float>(Case{m, n, 8, 1.0, 1.0, 1, 1, 1});
  }
}

// gemm::tf32 and gemm::tf32x3: the Hopper kernels on sm_90 (operands transposed or split first);
// for tf32 mma.sync on sm_80-89; strict fp32 elsewhere (within both bounds).
TEST_CASE("Tuned<tf32> and Tuned<tf32x3> match the fp64 reference within their bounds", "[gpu][Tuned][tf32][tf32x3]") {
  gemm_test::check_preset<gemm::preset::Tuned, gemm::tf32>();
  gemm_test::check_preset<gemm::preset::Tuned, gemm::tf32x3>();
}

// TF32 with a few rows of C against a row-major B: strict fp32 on CUDA cores (Skinny) on sm_90,
// where TF32 wgmma would first copy B transposed; A either way, ragged n, padded rows, beta over NaN.
TEST_CASE("Tuned<tf32> runs a few rows against a row-major B as strict fp32", "[gpu][Tuned][tf32][skinny]") {
  using gemm_test::Case;
  const Case cases[] = {
      Case{8, 4096, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
      Case{16, 1001, 1024, -0.5, 1.5, 4, 4, 4},
      Case{1, 700, 3000, 2.0, -1.0},
      Case{13, 4099, 1500, 0.5, 0.25, 0, 0, 0, 0, 0, 0, false},
  };
  gemm_test::DeviceBuffer<float> probe(4);
  for (const Case& c : cases)
    for (Op a : {Op::N, Op::T}) {
      const Case l = c.with_ops(a, Op::N);
      INFO(l.str());
      if (gemm_test::is_sm90() && l.lda() % 4 == 0 && l.ldb() % 4 == 0 && l.ldc() % 4 == 0) {
        const std::string composition = gemm_test::tuned_composition<gemm::tf32>(probe.ptr, a, Op::N, c.m, c.n, c.k);
        INFO(composition);
        CHECK(composition.find("TileShape<16,512") != std::string::npos);
      }
      gemm_test::run_case<gemm::preset::Tuned, gemm::tf32, float>(l);
    }
}
