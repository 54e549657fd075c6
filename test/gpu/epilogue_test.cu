// Fused epilogues (gemm::Epilogue) on presets of every kernel family: every activation and bias kind
// (float and output-typed bias), D distinct from C and in place, NaN and Inf through the activations,
// a CUDA graph replay, and refused arguments. epilogue_tuned_test.cu: Tuned for every type, its
// k-splitting and staging paths, and the column-major entry point.
#include "epilogue_check.cuh"

using namespace epilogue_test;  // its helpers, and BiasKind, Op, Status, Case, DeviceBuffer, act

TEST_CASE("fused epilogue: every activation and bias kind, CUDA cores (float) and mma.sync (bf16)",
          "[gpu][epilogue]") {
  check_all_activations<gemm::preset::MultiStage, float, float>();
  check_activation<gemm::preset::MmaSync, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(8);
}

TEST_CASE("fused epilogue: a bias of the output type", "[gpu][epilogue]") {
  check_family<gemm::preset::MmaSync, __nv_bfloat16, __nv_bfloat16, act::GeluTanh, __nv_bfloat16>(8);
  check_family<gemm::preset::MultiStage, double, double, act::GeluErf, double>();
}

TEST_CASE("fused epilogue: CUDA-core presets", "[gpu][epilogue]") {
  check_family<gemm::preset::Naive, float, float>();
  check_family<gemm::preset::MultiStage, float, float, act::SiLU>();
}

TEST_CASE("fused epilogue: warp-level tensor-core presets", "[gpu][epilogue]") {
  check_family<gemm::preset::Wmma, __half, float>(8);
  check_family<gemm::preset::MmaSync, __nv_bfloat16, __nv_bfloat16>(8);
  check_family<gemm::preset::Dmma, double, double>();
}

TEST_CASE("fused epilogue: Hopper presets (register and TMA-store epilogues)", "[gpu][epilogue][sm90]") {
  if (!gemm_test::is_sm90()) {
    WARN("not an sm_90 GPU: the Hopper presets are not run");
    return;
  }
  check_family<gemm::preset::Wgmma, __nv_bfloat16, __nv_bfloat16>(8);
  check_family<gemm::preset::WarpSpecialized, __nv_bfloat16, __nv_bfloat16>(8);
  check_family<gemm::preset::Persistent, __nv_bfloat16, __nv_bfloat16>(8);
  check_family<gemm::preset::Persistent, __nv_bfloat16, float>(8);
  // Several persistent tiles per block, TMA stores into a distinct D and in place.
  for (bool in_place : {false, true})
    run_fused<gemm::preset::Persistent, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{1100, 2104, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, BiasKind::PerColumn, in_place, true});
  // Tuned's ping-pong composition (fused calls of a wave of 128x256 tiles or more): the consumers
  // take turns over whole 128x128 tiles. The family's cases (one tile, or none, for the second
  // consumer), then blocks of two to three tiles each, odd counts included (the first consumer has
  // the last turn), ragged edges, every bias kind and the heavier activations.
  using PingPong = gemm::preset::Tuned::HopperPingPong;
  check_family<PingPong, __nv_bfloat16, __nv_bfloat16>(8);
  check_family<PingPong, __half, float>(8);
  for (bool in_place : {false, true})
    run_fused<PingPong, __nv_bfloat16, __nv_bfloat16, act::GeluTanh>(
        {Case{2100, 2104, 200, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, BiasKind::PerColumn, in_place, true});
  run_fused<PingPong, __nv_bfloat16, __nv_bfloat16, act::GeluErf>(
      {Case{1500, 2900, 300, -0.5, 0.0, 0, 0, 0, 0, 0, 0, true}, BiasKind::PerRow});
  run_fused<PingPong, __half, __half, act::SiLU>({Case{1037, 1541, 130, 1.0, 0.5}, BiasKind::PerColumn, true});
  // The GELU through the hardware's tanh, within its stated absolute error (kActAbsolute).
  run_fused<PingPong, __nv_bfloat16, __nv_bfloat16, act::GeluTanhFast>(
      {Case{2100, 2104, 200, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, BiasKind::PerColumn, false, true});
}

TEST_CASE("fused epilogue: a CUDA graph of a fused call replays correctly", "[gpu][epilogue]") {
  using T = __nv_bfloat16;
  const int m = 300, n = 264, k = 72;
  std::vector<T> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), c(static_cast<size_t>(m) * n);
  std::vector<float> bias(n);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  gemm_test::fill_random(c);
  gemm_test::fill_random(bias);
  DeviceBuffer<T> da(a.size()), db(b.size()), dc(c.size()), dd(c.size());
  DeviceBuffer<float> dbias(n);
  CUDA_REQUIRE(cudaMemcpy(da.ptr, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dc.ptr, c.data(), c.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dbias.ptr, bias.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  const gemm::Epilogue<T, act::GeluTanh> epi{dd.ptr, n, dbias.ptr, BiasKind::PerColumn};
  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status s = gemm::gemm<T, gemm::preset::MmaSync>(m, n, k, 1.0f, da.ptr, k, db.ptr, n, 0.5f, dc.ptr, n, epi, stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  REQUIRE(s == Status::Success);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<double> ref(c.size());
  gemm::reference::gemm<T, T>(false, false, m, n, k, 1.0, a.data(), k, b.data(), n, 0.5, c.data(), n, ref.data(), n);
  for (int replay = 0; replay < 2; ++replay) {
    CUDA_REQUIRE(cudaMemset(dd.ptr, 0xff, c.size() * sizeof(T)));  // NaN: every element must be rewritten
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    std::vector<T> d(c.size());
    CUDA_REQUIRE(cudaMemcpy(d.data(), dd.ptr, d.size() * sizeof(T), cudaMemcpyDeviceToHost));
    long long wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const double want = act::GeluTanh{}(ref[static_cast<size_t>(i) * n + j] + bias[j]);
        const double got = gemm_test::to_double(d[static_cast<size_t>(i) * n + j]);
        if (!(std::fabs(got - want) <= 0.02 * (1 + std::fabs(want)))) ++wrong;  // bf16 of k = 72 sums
      }
    INFO("replay " << replay);
    CHECK(wrong == 0);
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("fused epilogue: invalid epilogue arguments are refused before any launch, nothing written",
          "[gpu][epilogue][validation]") {
  constexpr int m = 40, n = 24, k = 16;
  DeviceBuffer<float> a(m * k), b(k * n), c(m * n + 64), d(m * n + 64), bias(n + 1);
  std::vector<float> ones(m * n + 64, 1.0f);
  CUDA_REQUIRE(cudaMemcpy(c.ptr, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(d.ptr, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  const auto launches = gemm::kernel_launches();
  using E = gemm::Epilogue<float, act::ReLU>;
  using P = gemm::preset::MultiStage;
  const auto call = [&](const E& e, const float* C = nullptr, int ldc = 24) {
    return gemm::gemm<float, P>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.5f, C ? C : c.ptr, ldc, e);
  };
  CHECK(call(E{d.ptr, n - 1}) == Status::InvalidLeadingDimensionD);
  CHECK(call(E{nullptr, n}) == Status::NullPointerD);
  CHECK(call(E{reinterpret_cast<float*>(reinterpret_cast<char*>(d.ptr) + 2), n}) == Status::MisalignedD);
  CHECK(call(E{d.ptr, n, nullptr, BiasKind::PerRow}) == Status::NullPointerBias);
  CHECK(call(E{d.ptr, n, reinterpret_cast<const float*>(reinterpret_cast<const char*>(bias.ptr) + 1),
               BiasKind::PerColumn}) == Status::MisalignedBias);
  CHECK(call(E{c.ptr + 5, n}) == Status::OverlappingOutput);
  CHECK(call(E{c.ptr + 5, n}, c.ptr, n - 1) == Status::InvalidLeadingDimensionC);
  CHECK(gemm::gemm<float, P>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.5f, nullptr, n, E{d.ptr, n}) ==
        Status::NullPointerC);  // beta != 0 reads C
  CHECK(gemm::blas::gemm<float, P>(Op::N, Op::N, n, m, k, 1.0f, b.ptr, n, a.ptr, k, 0.5f, c.ptr, n, E{d.ptr, n - 1}) ==
        Status::InvalidLeadingDimensionD);  // the caller's D is n x m column-major: ldd >= n
  CHECK(gemm::kernel_launches() == launches);
  std::vector<float> c_after(ones.size()), d_after(ones.size());
  CUDA_REQUIRE(cudaMemcpy(c_after.data(), c.ptr, c_after.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(d_after.data(), d.ptr, d_after.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(c_after == ones);
  CHECK(d_after == ones);
  // An empty D is a successful no-op, and D = C computes in place.
  CHECK(gemm::gemm<float, P>(0, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.5f, c.ptr, n, E{nullptr, n}) == Status::Success);
  CHECK(gemm::kernel_launches() == launches);
}
