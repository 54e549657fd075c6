// Scratch memory of the calls that copy operands first (bf16 rows TMA cannot read, 3xTF32 splits, fp32
// rows not 16-byte aligned):
// from the stream-ordered pool or from a caller's buffer (gemm::CallerWorkspace), sized by
// gemm::plan, refused before any launch when too small, the same after CUDA graph capture, and not
// growing over repeated calls. The copy kernel itself: rows short and long, in one launch.
#include <cmath>
#include <cstring>
#include <vector>
#include "check.cuh"

namespace {
using bf16 = __nv_bfloat16;

// 301 x 257 x 199 with every leading dimension odd: A, B and C are all staged on sm_90.
struct OddProblem {
  static constexpr int m = 301, n = 257, k = 199, lda = 201, ldb = 259, ldc = 263;
  gemm_test::DeviceBuffer<bf16> a{static_cast<size_t>(m) * lda}, b{static_cast<size_t>(k) * ldb},
      c{static_cast<size_t>(m) * ldc};
  std::vector<bf16> poison = std::vector<bf16>(c.count, __float2bfloat16(std::nanf("")));

  OddProblem() {
    std::vector<bf16> ha(a.count), hb(b.count);
    gemm_test::fill_random(ha);
    gemm_test::fill_random(hb);
    CUDA_REQUIRE(cudaMemcpy(a.ptr, ha.data(), ha.size() * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(b.ptr, hb.data(), hb.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  }
  // Synchronised: a pageable cudaMemcpy may still be in flight when it returns, and a non-blocking
  // stream (the graph test's) would not wait for it.
  void poison_c() {
    CUDA_REQUIRE(cudaMemcpy(c.ptr, poison.data(), poison.size() * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  gemm::Status call(cudaStream_t stream = 0) {
    return gemm::gemm<bf16>(m, n, k, 1.0f, a.ptr, lda, b.ptr, ldb, 0.0f, c.ptr, ldc, stream);
  }
  gemm::Plan plan() { return gemm::plan<bf16>(m, n, k, 1.0f, a.ptr, lda, b.ptr, ldb, 0.0f, c.ptr, ldc); }
  std::vector<unsigned short> bits() {  // C as raw bits, so that equal means bitwise equal (NaN included)
    CUDA_REQUIRE(cudaDeviceSynchronize());
    std::vector<unsigned short> h(c.count);
    CUDA_REQUIRE(cudaMemcpy(h.data(), c.ptr, h.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    return h;
  }
};

cudaMemPool_t scratch_pool() {
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  CUDA_REQUIRE(cudaGetDevice(&dev));
  REQUIRE(gemm::scratch_memory_pool(dev, pool) == gemm::Status::Success);
  return pool;
}
unsigned long long pool_attribute(cudaMemPoolAttr attr) {
  cuuint64_t v = 0;
  CUDA_REQUIRE(cudaMemPoolGetAttribute(scratch_pool(), attr, &v));
  return v;
}
void reset_pool_high_watermark() {
  cuuint64_t zero = 0;
  CUDA_REQUIRE(cudaMemPoolSetAttribute(scratch_pool(), cudaMemPoolAttrUsedMemHigh, &zero));
}

}  // namespace

TEST_CASE("a caller's workspace replaces the pool; one too small is refused before any launch",
          "[gpu][workspace]") {
  if (!gemm_test::is_sm90()) {
    WARN("skipped: staging runs on sm_90 only");
    return;
  }
  OddProblem p;
  const gemm::Plan plan = p.plan();
  INFO(plan.describe());
  REQUIRE(plan.status == gemm::Status::Success);
  REQUIRE(plan.workspace_bytes > 0);

  p.poison_c();
  REQUIRE(p.call() == gemm::Status::Success);
  const auto from_pool = p.bits();

  gemm_test::DeviceBuffer<unsigned char> buffer(plan.workspace_bytes);
  {
    gemm::CallerWorkspace workspace(buffer.ptr, plan.workspace_bytes);
    p.poison_c();
    CUDA_REQUIRE(cudaDeviceSynchronize());
    reset_pool_high_watermark();
    REQUIRE(p.call() == gemm::Status::Success);
    CHECK(p.bits() == from_pool);
    CHECK(pool_attribute(cudaMemPoolAttrUsedMemHigh) == 0);  // nothing came from the pool
  }
  {
    gemm::CallerWorkspace workspace(buffer.ptr, plan.workspace_bytes - 1);
    p.poison_c();
    const auto launches = gemm::kernel_launches();
    CHECK(p.call() == gemm::Status::WorkspaceTooSmall);
    CHECK(gemm::kernel_launches() == launches);
    std::vector<unsigned short> poisoned(p.poison.size());
    std::memcpy(poisoned.data(), p.poison.data(), poisoned.size() * sizeof(bf16));
    CHECK(p.bits() == poisoned);  // nothing written
    // A call that needs no scratch is unaffected by a workspace of any size.
    gemm_test::DeviceBuffer<bf16> a(64 * 64), b(64 * 64), c(64 * 64);
    CHECK(gemm::plan<bf16>(64, 64, 64, 1.0f, a.ptr, 64, b.ptr, 64, 0.0f, c.ptr, 64).workspace_bytes == 0);
    CHECK(gemm::gemm<bf16>(64, 64, 64, 1.0f, a.ptr, 64, b.ptr, 64, 0.0f, c.ptr, 64) == gemm::Status::Success);
  }
  // The workspace's scope has ended: the pool again.
  reset_pool_high_watermark();
  p.poison_c();
  REQUIRE(p.call() == gemm::Status::Success);
  CHECK(p.bits() == from_pool);
  CHECK(pool_attribute(cudaMemPoolAttrUsedMemHigh) >= plan.workspace_bytes);
}

// Captured before any uncaptured call: run alone (ctest's gpu_tests.captured_first), the first capture
// is its process's first staging call, made before the library's scratch pool exists (none can be
// created during a capture; the device's default pool serves it). In the whole suite the pool exists.
TEST_CASE("staged calls captured into CUDA graphs (the first before any other call) replay with the pool or a "
          "caller's workspace",
          "[gpu][workspace][graph][captured_first]") {
  if (!gemm_test::is_sm90()) {
    WARN("skipped: staging runs on sm_90 only");
    return;
  }
  OddProblem p;
  const gemm::Plan plan = p.plan();
  REQUIRE(plan.workspace_bytes > 0);  // (the call takes scratch memory)
  gemm_test::DeviceBuffer<unsigned char> buffer(plan.workspace_bytes);
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graphs[2];
  cudaGraphExec_t execs[2];
  for (const bool caller_buffer : {false, true}) {
    INFO("caller's workspace: " << caller_buffer);
    CUDA_REQUIRE(cudaStreamBeginCapture(stream, caller_buffer ? cudaStreamCaptureModeThreadLocal
                                                              : cudaStreamCaptureModeGlobal));
    gemm::Status s;
    if (caller_buffer) {
      gemm::CallerWorkspace workspace(buffer.ptr, plan.workspace_bytes);
      s = p.call(stream);
    } else {
      s = p.call(stream);  // allocation and free nodes in the graph
    }
    CUDA_REQUIRE(cudaStreamEndCapture(stream, &graphs[caller_buffer]));
    REQUIRE(s == gemm::Status::Success);
    CUDA_REQUIRE(cudaGraphInstantiate(&execs[caller_buffer], graphs[caller_buffer], 0));
  }
  p.poison_c();
  REQUIRE(p.call() == gemm::Status::Success);
  const auto expected = p.bits();
  for (const bool caller_buffer : {false, true}) {
    INFO("caller's workspace: " << caller_buffer);
    for (int replay = 0; replay < 3; ++replay) {
      p.poison_c();
      CUDA_REQUIRE(cudaGraphLaunch(execs[caller_buffer], stream));
      CUDA_REQUIRE(cudaStreamSynchronize(stream));
      CHECK(p.bits() == expected);
    }
    CUDA_REQUIRE(cudaGraphExecDestroy(execs[caller_buffer]));
    CUDA_REQUIRE(cudaGraphDestroy(graphs[caller_buffer]));
  }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("repeated staged calls hold no memory afterwards and reuse one block", "[gpu][workspace]") {
  if (!gemm_test::is_sm90()) {
    WARN("skipped: staging runs on sm_90 only");
    return;
  }
  OddProblem p;
  const gemm::Plan plan = p.plan();
  REQUIRE(p.call() == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  size_t free_before = 0, total = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free_before, &total));
  reset_pool_high_watermark();
  for (int i = 0; i < 100; ++i) REQUIRE(p.call() == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(pool_attribute(cudaMemPoolAttrUsedMemCurrent) == 0);  // every block freed
  // Each call frees its block (in stream order) before the next allocates: the pool reuses it.
  CHECK(pool_attribute(cudaMemPoolAttrUsedMemHigh) <= 2 * plan.workspace_bytes);
  size_t free_after = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free_after, &total));
  CHECK(free_after + (64u << 20) >= free_before);  // within the pool's granularity of where it was
}

TEST_CASE("the scratch pool keeps its memory between calls up to the cache limit, and returns it on request",
          "[gpu][workspace]") {
  if (!gemm_test::is_sm90()) {
    WARN("skipped: staging runs on sm_90 only");
    return;
  }
  OddProblem p;
  const gemm::Plan plan = p.plan();
  p.poison_c();
  REQUIRE(p.call() == gemm::Status::Success);
  const auto expected = p.bits();  // synchronises: the device's default pool would release here
  CHECK(pool_attribute(cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK(pool_attribute(cudaMemPoolAttrReservedMemCurrent) >= plan.workspace_bytes);  // kept

  gemm::set_scratch_cache_limit(0);
  gemm::release_scratch_memory();
  CHECK(pool_attribute(cudaMemPoolAttrReservedMemCurrent) == 0);
  // With a limit of 0 a call still runs (and maps its scratch), and gives it back at the next
  // synchronisation.
  p.poison_c();
  REQUIRE(p.call() == gemm::Status::Success);
  CHECK(p.bits() == expected);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(pool_attribute(cudaMemPoolAttrReservedMemCurrent) == 0);

  gemm::set_scratch_cache_limit(std::size_t(1) << 30);  // the default, for the tests that follow
  REQUIRE(p.call() == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(pool_attribute(cudaMemPoolAttrReservedMemCurrent) >= plan.workspace_bytes);
}

// fp32 rows copied for 16-byte alignment (PackedRows): the copy is an optimisation, so a caller's
// workspace too small for it runs the composition's element-by-element path instead of refusing.
// 1024 x 1024 x 1021: only A's rows (lda 1021) are misaligned; Tuned copies A and runs whole 64x64
// tiles on the copy (no k split, so both paths sum in the same order: bitwise equal results).
TEST_CASE("fp32 alignment copies take a caller's workspace, and run uncopied where it is too small",
          "[gpu][workspace][float]") {
  constexpr int m = 1024, n = 1024, k = 1021;
  gemm_test::DeviceBuffer<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n),
      c(static_cast<size_t>(m) * n);
  {
    std::vector<float> ha(a.count), hb(b.count);
    gemm_test::fill_random(ha);
    gemm_test::fill_random(hb);
    gemm_test::upload(a, ha);
    gemm_test::upload(b, hb);
  }
  const gemm::Plan plan = gemm::plan<float>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.0f, c.ptr, n);
  INFO(plan.describe());
  REQUIRE(plan.composition.find("PackedRows<") != std::string::npos);
  REQUIRE(plan.composition.find("SplitK") == std::string::npos);
  REQUIRE(plan.workspace_bytes == static_cast<size_t>(m) * 1024 * sizeof(float));  // A with 64-byte rows

  struct Result {
    std::vector<unsigned> bits;
    unsigned long long launches;
  };
  const std::vector<float> poison(c.count, std::nanf(""));
  const auto run = [&] {
    CUDA_REQUIRE(cudaMemcpy(c.ptr, poison.data(), poison.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto before = gemm::kernel_launches();
    REQUIRE(gemm::gemm<float>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.0f, c.ptr, n) == gemm::Status::Success);
    Result r{std::vector<unsigned>(c.count), gemm::kernel_launches() - before};
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CUDA_REQUIRE(cudaMemcpy(r.bits.data(), c.ptr, r.bits.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return r;
  };
  const Result pooled = run();
  CHECK(pooled.launches == 2);  // A's copy, the GEMM
  size_t nans = 0;
  for (unsigned x : pooled.bits) nans += std::isnan(*reinterpret_cast<const float*>(&x)) ? 1 : 0;
  CHECK(nans == 0);
  gemm_test::DeviceBuffer<unsigned char> buffer(plan.workspace_bytes);
  {
    gemm::CallerWorkspace workspace(buffer.ptr, plan.workspace_bytes);
    reset_pool_high_watermark();
    const Result caller = run();
    CHECK(caller.launches == 2);
    CHECK(caller.bits == pooled.bits);
    CHECK(pool_attribute(cudaMemPoolAttrUsedMemHigh) == 0);  // nothing came from the pool
  }
  {
    gemm::CallerWorkspace workspace(buffer.ptr, 1024);
    const Result uncopied = run();
    CHECK(uncopied.launches == 1);  // the GEMM alone, on the caller's rows
    CHECK(uncopied.bits == pooled.bits);
  }
}

// The copy that stages operands (detail::copy_rows): a warp per row where rows are short, blocks per
// span of a row where they are long, both kinds in one launch; every element of every row lands
// where it belongs, and nothing past a row's end (the padding TMA never reads) is written.
TEST_CASE("operand copies: short and long rows in one launch, each element once, no padding written",
          "[gpu][workspace]") {
  using gemm::detail::RowCopy;
  struct Part {
    int rows, cols, ld_src, src_offset;
  };
  // (1 x 51 x 2450's two operands; one-element rows; rows of exactly a warp's loads and one more;
  // row counts not a multiple of a block's rows; rows of one, two and three spans; an empty copy.)
  const std::pair<Part, Part> cases[] = {
      {{2450, 51, 51, 0}, {1, 2450, 2450, 0}}, {{7, 1, 3, 1}, {9, 256, 259, 0}},
      {{17, 257, 300, 3}, {1000, 2049, 2051, 1}}, {{3, 4097, 4099, 0}, {0, 0, 0, 0}},
      {{0, 0, 0, 0}, {33, 255, 255, 5}},       {{4101, 8, 9, 0}, {5, 6144, 6147, 2}}};
  gemm::detail::DeviceInfo dev;
  REQUIRE(gemm::detail::query_device(dev) == gemm::Status::Success);
  for (const auto& [p1, p2] : cases) {
    INFO(p1.rows << " x " << p1.cols << " and " << p2.rows << " x " << p2.cols);
    const auto ld_dst = [](const Part& p) { return (p.cols + 7) / 8 * 8 + 8; };  // 16-byte rows, a padding
    const auto src_count = [](const Part& p) { return static_cast<size_t>(p.rows) * p.ld_src + p.src_offset + 1; };
    const auto dst_count = [&](const Part& p) { return static_cast<size_t>(p.rows) * ld_dst(p) + 1; };
    gemm_test::DeviceBuffer<unsigned short> s1(src_count(p1)), s2(src_count(p2)), d1(dst_count(p1)),
        d2(dst_count(p2));
    std::vector<unsigned short> h1(s1.count), h2(s2.count);
    for (size_t i = 0; i < h1.size(); ++i) h1[i] = static_cast<unsigned short>(i * 2654435761u >> 7);
    for (size_t i = 0; i < h2.size(); ++i) h2[i] = static_cast<unsigned short>(i * 40503u + 17);
    gemm_test::upload(s1, h1);
    gemm_test::upload(s2, h2);
    CUDA_REQUIRE(cudaMemset(d1.ptr, 0xff, d1.count * sizeof(unsigned short)));
    CUDA_REQUIRE(cudaMemset(d2.ptr, 0xff, d2.count * sizeof(unsigned short)));
    const gemm::detail::RowCopies<unsigned short> copies{
        RowCopy<unsigned short>{s1.ptr + p1.src_offset, p1.ld_src, p1.rows, p1.cols, d1.ptr, ld_dst(p1)},
        RowCopy<unsigned short>{s2.ptr + p2.src_offset, p2.ld_src, p2.rows, p2.cols, d2.ptr, ld_dst(p2)}};
    REQUIRE(gemm::detail::copy_rows(copies, dev, 0) == gemm::Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto check = [&](const Part& p, const std::vector<unsigned short>& src,
                           gemm_test::DeviceBuffer<unsigned short>& d) {
      std::vector<unsigned short> got(d.count);
      CUDA_REQUIRE(cudaMemcpy(got.data(), d.ptr, got.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
      long long wrong = 0, padding_written = 0;
      for (int r = 0; r < p.rows; ++r)
        for (int c = 0; c < ld_dst(p); ++c) {
          const unsigned short v = got[static_cast<size_t>(r) * ld_dst(p) + c];
          if (c < p.cols)
            wrong += v != src[static_cast<size_t>(r) * p.ld_src + p.src_offset + c];
          else
            padding_written += v != 0xffff;
        }
      CHECK(wrong == 0);
      CHECK(padding_written == 0);
      CHECK(got.back() == 0xffff);  // past the last row
    };
    check(p1, h1, d1);
    check(p2, h2, d2);
  }
}
