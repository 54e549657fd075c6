// Every invalid call returns its status before any CUDA call, launches nothing and writes nothing.
// The matrices here are host memory: had anything been launched on them, the kernel would fault.
#include <cmath>
#include <cstring>
#include <vector>
#include <gemm/gemm.cuh>
#include "../catch.hpp"

namespace validation_policies {

// A policy that refuses misaligned input instead of taking a scalar path.
struct RejectingPolicy
    : gemm::TiledPolicy<gemm::TileShape<64, 64, 8, 4, 4>, gemm::BlockThreadMap,
                        gemm::VectorLoader<gemm::Misaligned::Reject>,
                        gemm::SmemLayout<gemm::Transposed<4>, gemm::RowMajor<0>>, gemm::SingleStage,
                        gemm::OuterProduct, gemm::VectorEpilogue>,
      gemm::Named<RejectingPolicy> {
  static const char* name() { return "RejectingPolicy"; }
};

}  // namespace validation_policies

namespace {
using validation_policies::RejectingPolicy;

struct Buffers {
  // 16-byte aligned host storage with room for offsets.
  alignas(16) float a[256];
  alignas(16) float b[256];
  alignas(16) float c[256];
  Buffers() {
    for (int i = 0; i < 256; ++i) a[i] = b[i] = c[i] = 1.0f + static_cast<float>(i);
  }
};

template <class Policy = gemm::preset::MultiStage>
gemm::Status call(Buffers& buf, int m, int n, int k, int lda, int ldb, int ldc, const float* A, const float* B,
                  float* C, float alpha = 1.0f) {
  return gemm::gemm<float, Policy>(m, n, k, alpha, A, lda, B, ldb, 0.5f, C, ldc);
}

void expect_rejected(gemm::Status expected, gemm::Status got, const Buffers& before, const Buffers& after,
                     unsigned long long launches_before) {
  INFO("expected: " << gemm::to_string(expected) << "\ngot: " << gemm::to_string(got));
  CHECK(got == expected);
  CHECK(gemm::kernel_launches() == launches_before);
  CHECK(std::memcmp(&before, &after, sizeof(Buffers)) == 0);
}

}  // namespace

TEST_CASE("invalid calls return their status, launch nothing and write nothing", "[host][validation]") {
  Buffers buf;
  const Buffers pristine = buf;
  const auto launches = gemm::kernel_launches();
  float* A = buf.a;
  float* B = buf.b;
  float* C = buf.c;

  SECTION("negative sizes") {
    expect_rejected(gemm::Status::InvalidSize, call(buf, -1, 4, 4, 4, 4, 4, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::InvalidSize, call(buf, 4, -1, 4, 4, 4, 4, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::InvalidSize, call(buf, 4, 4, -7, 4, 4, 4, A, B, C), pristine, buf, launches);
  }
  SECTION("leading dimensions smaller than the rows they hold") {
    expect_rejected(gemm::Status::InvalidLeadingDimensionA, call(buf, 4, 4, 5, 4, 4, 4, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::InvalidLeadingDimensionB, call(buf, 4, 6, 4, 4, 5, 6, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::InvalidLeadingDimensionC, call(buf, 4, 6, 4, 4, 6, 5, A, B, C), pristine, buf, launches);
    // k == 0 still needs lda >= 1, as in BLAS
    expect_rejected(gemm::Status::InvalidLeadingDimensionA, call(buf, 4, 4, 0, 0, 4, 4, A, B, C), pristine, buf, launches);
  }
  SECTION("null pointers where the sizes need them") {
    expect_rejected(gemm::Status::NullPointerA, call(buf, 4, 4, 4, 4, 4, 4, nullptr, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::NullPointerB, call(buf, 4, 4, 4, 4, 4, 4, A, nullptr, C), pristine, buf, launches);
    expect_rejected(gemm::Status::NullPointerC, call(buf, 4, 4, 4, 4, 4, 4, A, B, nullptr), pristine, buf, launches);
  }
  SECTION("pointers not aligned to the element type") {
    auto off = [](float* p) { return reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 2); };
    expect_rejected(gemm::Status::MisalignedA, call(buf, 4, 4, 4, 4, 4, 4, off(A), B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::MisalignedB, call(buf, 4, 4, 4, 4, 4, 4, A, off(B), C), pristine, buf, launches);
    expect_rejected(gemm::Status::MisalignedC, call(buf, 4, 4, 4, 4, 4, 4, A, B, off(C)), pristine, buf, launches);
  }
  SECTION("a policy that rejects what its 16-byte loads cannot handle") {
    auto r = [&](int lda, int ldb, int ldc, const float* a, const float* b, float* c) {
      return call<RejectingPolicy>(buf, 4, 4, 4, lda, ldb, ldc, a, b, c);
    };
    expect_rejected(gemm::Status::MisalignedA, r(5, 4, 4, A, B, C), pristine, buf, launches);      // lda * 4 bytes % 16
    expect_rejected(gemm::Status::MisalignedA, r(4, 4, 4, A + 1, B, C), pristine, buf, launches);  // pointer % 16
    expect_rejected(gemm::Status::MisalignedB, r(4, 6, 4, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::MisalignedB, r(4, 4, 4, A, B + 2, C), pristine, buf, launches);
    expect_rejected(gemm::Status::MisalignedC, r(4, 4, 7, A, B, C), pristine, buf, launches);
    expect_rejected(gemm::Status::MisalignedC, r(4, 4, 4, A, B, C + 3), pristine, buf, launches);
  }
}

TEST_CASE("tensor-core presets refuse A or B rows their copies cannot read, before touching a device",
          "[host][validation]") {
  // Host memory again: had anything been launched, it would fault. Rows of bf16 with an odd leading
  // dimension or a pointer 2 bytes off cannot be copied 4 bytes at a time (MmaSync); Wmma copies
  // 16 bytes only.
  alignas(16) __nv_bfloat16 a[256], b[256], c[256];
  for (int i = 0; i < 256; ++i) a[i] = b[i] = c[i] = __float2bfloat16(1.0f + static_cast<float>(i % 7));
  std::vector<unsigned char> before(reinterpret_cast<unsigned char*>(c), reinterpret_cast<unsigned char*>(c) + sizeof(c));
  const auto launches = gemm::kernel_launches();
  using gemm::Status;
  using gemm::preset::MmaSync;
  using gemm::preset::Wmma;
  using BF = __nv_bfloat16;
  CHECK(gemm::gemm<BF, MmaSync>(4, 4, 5, 1.f, a, 5, b, 4, 0.f, c, 4) == Status::MisalignedA);
  CHECK(gemm::gemm<BF, MmaSync>(4, 4, 4, 1.f, a + 1, 4, b, 4, 0.f, c, 4) == Status::MisalignedA);
  CHECK(gemm::gemm<BF, MmaSync>(4, 7, 4, 1.f, a, 4, b, 7, 0.f, c, 7) == Status::MisalignedB);
  CHECK(gemm::gemm<BF, MmaSync>(4, 4, 4, 1.f, a, 4, b + 3, 4, 0.f, c, 4) == Status::MisalignedB);
  CHECK(gemm::gemm<BF, MmaSync>(gemm::Op::T, gemm::Op::N, 3, 4, 4, 1.f, a, 3, b, 4, 0.f, c, 4) == Status::MisalignedA);
  // Column-major: the caller's A is the kernel's B; the status names the caller's operand.
  CHECK(gemm::blas::gemm<BF, MmaSync>(gemm::Op::N, gemm::Op::N, 5, 4, 4, 1.f, a, 5, b, 4, 0.f, c, 5) ==
        Status::MisalignedA);
  CHECK(gemm::gemm<BF, Wmma>(4, 4, 4, 1.f, a, 4, b, 8, 0.f, c, 4) == Status::MisalignedA);  // 8-byte rows
  CHECK(gemm::gemm<BF, Wmma>(8, 8, 8, 1.f, a, 8, b + 2, 8, 0.f, c, 8) == Status::MisalignedB);
  CHECK(gemm::gemm<BF, Wmma>(8, 8, 8, 1.f, a, 8, b, 12, 0.f, reinterpret_cast<float*>(c), 8) ==
        Status::MisalignedB);
  CHECK(gemm::kernel_launches() == launches);
  CHECK(std::memcmp(before.data(), c, sizeof(c)) == 0);
}

TEST_CASE("an empty C is a successful no-op that touches nothing", "[host][validation]") {
  Buffers buf;
  const Buffers pristine = buf;
  const auto launches = gemm::kernel_launches();
  // Null pointers are fine when nothing is read or written.
  CHECK(gemm::gemm<float>(0, 5, 5, 1.0f, nullptr, 5, nullptr, 5, 1.0f, nullptr, 5) == gemm::Status::Success);
  CHECK(gemm::gemm<float>(5, 0, 5, 1.0f, nullptr, 5, nullptr, 1, 1.0f, nullptr, 1) == gemm::Status::Success);
  CHECK(gemm::gemm<double, gemm::preset::Naive>(0, 0, 0, 1.0, nullptr, 1, nullptr, 1, 0.0, nullptr, 1) ==
        gemm::Status::Success);
  CHECK(call(buf, 0, 4, 4, 4, 4, 4, buf.a, buf.b, buf.c) == gemm::Status::Success);
  CHECK(gemm::kernel_launches() == launches);
  CHECK(std::memcmp(&pristine, &buf, sizeof(Buffers)) == 0);
}

TEST_CASE("A and B may be null when the product term vanishes", "[host][validation]") {
  // k == 0 or alpha == 0: C = beta * C, so A and B are not needed. The call passes validation and
  // only then needs a device; on a machine without one it says so instead of launching.
  const auto launches = gemm::kernel_launches();
  int devices = 0;
  const bool have_device = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  cudaGetLastError();
  if (have_device) {
    SUCCEED("a device is present; covered by the GPU suite");
    return;
  }
  float c[4] = {1, 2, 3, 4};
  CHECK(gemm::gemm<float>(2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 2.0f, c, 2) == gemm::Status::NoDevice);
  CHECK(gemm::gemm<float>(2, 2, 3, 0.0f, nullptr, 3, nullptr, 2, 2.0f, c, 2) == gemm::Status::NoDevice);
  CHECK(gemm::kernel_launches() == launches);
  CHECK((c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4));
}

TEST_CASE("every status has a distinct message", "[host][status]") {
  using gemm::Status;
  const Status all[] = {Status::Success, Status::InvalidSize, Status::InvalidLeadingDimensionA,
                        Status::InvalidLeadingDimensionB, Status::InvalidLeadingDimensionC, Status::NullPointerA,
                        Status::NullPointerB, Status::NullPointerC, Status::MisalignedA, Status::MisalignedB,
                        Status::MisalignedC, Status::NoDevice, Status::UnsupportedArchitecture,
                        Status::SharedMemoryTooLarge, Status::CudaError, Status::LaunchFailed,
                        Status::TensorMapFailed, Status::NotHostMemoryA, Status::NotHostMemoryB,
                        Status::NotHostMemoryC, Status::DeviceBudgetTooSmall, Status::InvalidOption,
                        Status::CommunicatorError, Status::InvalidCommunicator, Status::DeviceMismatch,
                        Status::ShardMismatchA, Status::ShardMismatchB, Status::ShardMismatchC, Status::RanksDisagree,
                        Status::PeerRejected, Status::NvlsNotDisabled, Status::InvalidLeadingDimensionD,
                        Status::NullPointerD, Status::MisalignedD, Status::NullPointerBias, Status::MisalignedBias,
                        Status::OverlappingOutput};
  for (Status a : all) {
    CHECK(std::strlen(gemm::to_string(a)) > 5);
    CHECK(std::string(gemm::to_string(a)) != "unknown status");
    for (Status b : all)
      if (a != b) CHECK(std::string(gemm::to_string(a)) != gemm::to_string(b));
  }
}

TEST_CASE("leading dimensions are checked per layout, and statuses name the caller's operand", "[host][validation]") {
  Buffers buf;
  const Buffers pristine = buf;
  const auto launches = gemm::kernel_launches();
  float* A = buf.a;
  float* B = buf.b;
  float* C = buf.c;
  using gemm::Op;
  using gemm::Status;
  // Row-major call, m = 6, n = 4, k = 5: a stored row of A is k long (op N) or m long (op T); of B,
  // n long (op N) or k long (op T); of C, n long.
  auto rm = [&](Op a, Op b, int lda, int ldb, int ldc) {
    return gemm::gemm<float, gemm::preset::MultiStage>(a, b, 6, 4, 5, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
  };
  expect_rejected(Status::InvalidLeadingDimensionA, rm(Op::N, Op::N, 4, 4, 4), pristine, buf, launches);  // lda < k
  expect_rejected(Status::InvalidLeadingDimensionA, rm(Op::T, Op::N, 5, 4, 4), pristine, buf, launches);  // lda < m
  expect_rejected(Status::InvalidLeadingDimensionB, rm(Op::N, Op::N, 5, 3, 4), pristine, buf, launches);  // ldb < n
  expect_rejected(Status::InvalidLeadingDimensionB, rm(Op::T, Op::T, 6, 4, 4), pristine, buf, launches);  // ldb < k
  expect_rejected(Status::InvalidLeadingDimensionC, rm(Op::T, Op::T, 6, 5, 3), pristine, buf, launches);  // ldc < n
  expect_rejected(Status::NullPointerB, gemm::gemm<float>(Op::T, Op::N, 6, 4, 5, 1.0f, A, 6, nullptr, 4, 0.0f, C, 4),
                  pristine, buf, launches);

  // Column-major (BLAS) call, m = 6, n = 4, k = 5: lda >= m (N) or k (T); ldb >= k (N) or n (T);
  // ldc >= m. The library swaps A and B internally; the statuses still name the caller's operand.
  auto cm = [&](Op ta, Op tb, int lda, int ldb, int ldc, const float* a = nullptr, const float* b = nullptr) {
    return gemm::blas::gemm<float, gemm::preset::MultiStage>(ta, tb, 6, 4, 5, 1.0f, a ? a : A, lda, b ? b : B, ldb,
                                                             0.0f, C, ldc);
  };
  expect_rejected(Status::InvalidLeadingDimensionA, cm(Op::N, Op::N, 5, 5, 6), pristine, buf, launches);  // lda < m
  expect_rejected(Status::InvalidLeadingDimensionA, cm(Op::T, Op::N, 4, 5, 6), pristine, buf, launches);  // lda < k
  expect_rejected(Status::InvalidLeadingDimensionB, cm(Op::N, Op::N, 6, 4, 6), pristine, buf, launches);  // ldb < k
  expect_rejected(Status::InvalidLeadingDimensionB, cm(Op::N, Op::T, 6, 3, 6), pristine, buf, launches);  // ldb < n
  expect_rejected(Status::InvalidLeadingDimensionC, cm(Op::N, Op::N, 6, 5, 5), pristine, buf, launches);  // ldc < m
  auto off = [](const float* p) { return reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + 2); };
  expect_rejected(Status::MisalignedA, cm(Op::N, Op::N, 6, 5, 6, off(A)), pristine, buf, launches);
  expect_rejected(Status::MisalignedB, cm(Op::N, Op::N, 6, 5, 6, nullptr, off(B)), pristine, buf, launches);
  expect_rejected(Status::NullPointerA,
                  gemm::blas::gemm<float>(Op::N, Op::N, 6, 4, 5, 1.0f, nullptr, 6, B, 5, 0.0f, C, 6), pristine, buf,
                  launches);
}

TEST_CASE("16-bit types: statuses before any launch, for the row-major and column-major entry points", "[host][validation]") {
  alignas(16) static __nv_bfloat16 a[256], b[256];
  alignas(16) static float c[256];
  const auto launches = gemm::kernel_launches();
  using gemm::Op;
  using gemm::Status;
  CHECK(gemm::gemm<__nv_bfloat16>(4, 4, 8, 1.0f, a, 7, b, 4, 0.0f, c, 4) == Status::InvalidLeadingDimensionA);
  CHECK(gemm::gemm<__nv_bfloat16>(Op::N, Op::T, 4, 4, 8, 1.0f, a, 8, b, 7, 0.0f, c, 4) ==
        Status::InvalidLeadingDimensionB);
  CHECK(gemm::blas::gemm<__nv_bfloat16>(Op::T, Op::N, 4, 4, 8, 1.0f, a, 8, b, 8, 0.0f, c, 3) ==
        Status::InvalidLeadingDimensionC);
  const auto odd = reinterpret_cast<float*>(reinterpret_cast<char*>(c) + 2);
  CHECK(gemm::gemm<__nv_bfloat16>(4, 4, 8, 1.0f, a, 8, b, 4, 0.0f, odd, 4) == Status::MisalignedC);
  CHECK(gemm::kernel_launches() == launches);
}
