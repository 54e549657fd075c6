// GPU correctness of preset::Wmma (nvcuda::wmma on tensor cores, sm_80+): bf16 and fp16 with C in the
// input type or float, and tf32, every layout, both entry points. Wmma copies A and B 16 bytes at a
// time, so every case gets 16-byte rows (leading dimensions and offsets rounded up, same m, n, k);
// the refusals of other rows are checked below and in the host tests.
#include "check.cuh"

namespace {
using gemm_test::Case;
using gemm_test::Op;
using P = gemm::preset::Wmma;

template <class T>
Case rows_16(const Case& c) {
  return gemm_test::rows_aligned_to(c, 16 / static_cast<int>(sizeof(gemm::storage_t<T>)));
}

template <class T, class Out>
void check_wmma() {
  gemm_test::check_preset<P, T, Out>(rows_16<T>);
  // Many tiles (12 x 23 of 128x128) with a ragged edge, a long k over many stages, and every layout.
  gemm_test::run_case<P, T, Out>(rows_16<T>(Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  gemm_test::run_case<P, T, Out>(rows_16<T>(Case{1531, 2821, 1000, 0.5, -1.0, 3, 1, 1, 0, 0, 1}.with_ops(Op::T, Op::T)));
  gemm_test::run_case<P, T, Out>(rows_16<T>(Case{2053, 1037, 77, -1.0, 1.0, 0, 0, 3}.with_ops(Op::T, Op::N)));
  gemm_test::run_case<P, T, Out>(rows_16<T>(Case{777, 1290, 515, 1.5, 0.25, 8, 8, 2}.with_ops(Op::N, Op::T)));
}
}  // namespace

TEST_CASE("Wmma<bf16, fp16> matches the fp64 reference on ragged and padded input, every layout",
          "[gpu][Wmma][bf16][fp16]") {
  check_wmma<__nv_bfloat16, __nv_bfloat16>();
  check_wmma<__nv_bfloat16, float>();
  check_wmma<__half, __half>();
  check_wmma<__half, float>();
}

TEST_CASE("Wmma<tf32> matches the fp64 reference within TF32's bound, every layout", "[gpu][Wmma][tf32]") {
  check_wmma<gemm::tf32, float>();
}

TEST_CASE("Wmma refuses A or B rows that are not 16-byte aligned, launching nothing", "[gpu][Wmma]") {
  gemm_test::DeviceBuffer<__nv_bfloat16> a(64 * 72), b(64 * 72), c(64 * 72);
  gemm_test::DeviceBuffer<float> f(64 * 72);
  const auto launches = gemm::kernel_launches();
  using gemm::Status;
  CHECK(gemm::gemm<__nv_bfloat16, P>(64, 64, 60, 1.f, a.ptr, 60, b.ptr, 64, 0.f, c.ptr, 64) == Status::MisalignedA);
  CHECK(gemm::gemm<__nv_bfloat16, P>(64, 64, 64, 1.f, a.ptr + 4, 64, b.ptr, 64, 0.f, c.ptr, 64) == Status::MisalignedA);
  CHECK(gemm::gemm<__nv_bfloat16, P>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 68, 0.f, c.ptr, 64) == Status::MisalignedB);
  CHECK(gemm::gemm<__nv_bfloat16, P>(Op::N, Op::T, 64, 64, 64, 1.f, a.ptr, 64, b.ptr + 2, 64, 0.f, c.ptr, 64) ==
        Status::MisalignedB);
  CHECK(gemm::gemm<gemm::tf32, P>(64, 64, 62, 1.f, f.ptr, 62, f.ptr, 64, 0.f, f.ptr, 64) == Status::MisalignedA);
  // Column-major: the caller's A is the kernel's B, and the status names the caller's operand.
  CHECK(gemm::blas::gemm<__nv_bfloat16, P>(Op::N, Op::N, 64, 64, 64, 1.f, a.ptr + 1, 64, b.ptr, 64, 0.f, c.ptr, 64) ==
        Status::MisalignedA);
  CHECK(gemm::kernel_launches() == launches);
}
