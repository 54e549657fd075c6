// GPU correctness of preset::MmaSync (mma.sync + ldmatrix, sm_80+): bf16 and fp16 with C in the input
// type or float, and tf32, every layout, both entry points, both copy widths.
//
// MmaSync copies rows 16 bytes at a time where A and B allow it and 4 bytes at a time otherwise, so
// bf16 and fp16 rows must be 4-byte aligned: those cases run twice, with 16-byte rows (the 16-byte
// kernel) and with 4-byte rows (even leading dimensions and offsets: mostly the 4-byte kernel). tf32
// (float) rows are always 4-byte aligned, so its cases run as they are, misaligned ones included.
#include "check.cuh"

namespace {
using gemm_test::Case;
using gemm_test::Op;
using P = gemm::preset::MmaSync;

template <class T>
Case rows_16(const Case& c) {
  return gemm_test::rows_aligned_to(c, 16 / static_cast<int>(sizeof(gemm::storage_t<T>)));
}
Case rows_4_bytes(const Case& c) { return gemm_test::rows_aligned_to(c, 2); }

// Shapes past the standard ones: many 128x256 tiles with ragged edges, long k ranges over many stages,
// every layout; rewritten as the preset needs (see the callers).
template <class Policy, class T, class Out, class Rewrite>
void check_large(Rewrite rewrite) {
  gemm_test::run_case<Policy, T, Out>(rewrite(Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  gemm_test::run_case<Policy, T, Out>(rewrite(Case{1531, 2821, 1000, 0.5, -1.0, 3, 1, 1, 0, 0, 1}.with_ops(Op::T, Op::T)));
  gemm_test::run_case<Policy, T, Out>(rewrite(Case{2053, 1037, 77, -1.0, 1.0, 0, 0, 3}.with_ops(Op::T, Op::N)));
  gemm_test::run_case<Policy, T, Out>(rewrite(Case{777, 1290, 515, 1.5, 0.25, 8, 8, 2}.with_ops(Op::N, Op::T)));
}

template <class T, class Out>
void check_16bit() {
  gemm_test::check_preset<P, T, Out>(rows_16<T>);
  gemm_test::check_preset<P, T, Out>(rows_4_bytes);
  check_large<P, T, Out>(rows_16<T>);
  check_large<P, T, Out>([](Case c) {  // leading dimensions 2 mod 8 elements: 4-byte rows, the 4-byte kernel
    c = rows_16<T>(c);
    c.pad_a += 2, c.pad_b += 2;
    return c;
  });
}
}  // namespace

TEST_CASE("MmaSync<bf16> matches the fp64 reference on ragged, padded and 4-byte-aligned input, every layout",
          "[gpu][MmaSync][bf16]") {
  check_16bit<__nv_bfloat16, __nv_bfloat16>();
  check_16bit<__nv_bfloat16, float>();
}

TEST_CASE("MmaSync<fp16> matches the fp64 reference on ragged, padded and 4-byte-aligned input, every layout",
          "[gpu][MmaSync][fp16]") {
  check_16bit<__half, __half>();
  check_16bit<__half, float>();
}

TEST_CASE("MmaSync<tf32> matches the fp64 reference within TF32's bound on any input, every layout",
          "[gpu][MmaSync][tf32]") {
  gemm_test::check_preset<P, gemm::tf32>();
  check_large<P, gemm::tf32, float>(gemm_test::AsIs{});
  check_large<P, gemm::tf32, float>([](Case c) {  // odd leading dimensions and pointers: 4-byte copies
    c.pad_a = 1, c.pad_b = 3, c.offset_a = 1, c.offset_b = 3;
    return c;
  });
}

TEST_CASE("MmaSync refuses bf16 and fp16 rows that are not 4-byte aligned, launching nothing", "[gpu][MmaSync]") {
  gemm_test::DeviceBuffer<__half> a(64 * 72), b(64 * 72), c(64 * 72);
  const auto launches = gemm::kernel_launches();
  using gemm::Status;
  CHECK(gemm::gemm<__half, P>(64, 64, 63, 1.f, a.ptr, 63, b.ptr, 64, 0.f, c.ptr, 64) == Status::MisalignedA);
  CHECK(gemm::gemm<__half, P>(64, 64, 64, 1.f, a.ptr + 1, 64, b.ptr, 64, 0.f, c.ptr, 64) == Status::MisalignedA);
  CHECK(gemm::gemm<__half, P>(64, 65, 64, 1.f, a.ptr, 64, b.ptr, 65, 0.f, c.ptr, 65) == Status::MisalignedB);
  CHECK(gemm::gemm<__half, P>(Op::T, Op::T, 64, 64, 64, 1.f, a.ptr, 64, b.ptr + 3, 64, 0.f, c.ptr, 64) ==
        Status::MisalignedB);
  CHECK(gemm::blas::gemm<__half, P>(Op::N, Op::N, 63, 64, 64, 1.f, a.ptr, 63, b.ptr, 64, 0.f, c.ptr, 63) ==
        Status::MisalignedA);
  CHECK(gemm::kernel_launches() == launches);
}

// C of any alignment: an odd ldc and a C pointer one element into its allocation (single-element
// stores instead of pairs), with beta != 0 and beta = 0 over NaN.
TEST_CASE("MmaSync stores any C: odd leading dimension and pointer", "[gpu][MmaSync][bf16][tf32]") {
  for (Case c : {Case{300, 301, 64, 1.0, 0.5, 0, 0, 1, 0, 0, 1}, Case{129, 255, 40, -1.0, 0.0, 0, 0, 3, 0, 0, 3, true}}) {
    gemm_test::run_case<P, __nv_bfloat16>(rows_16<__nv_bfloat16>(c));
    gemm_test::run_case<P, __nv_bfloat16, float>(rows_16<__nv_bfloat16>(c));
    gemm_test::run_case<P, gemm::tf32>(c.with_ops(Op::T, Op::N));
  }
}
