#pragma once
// Warp-level tensor-core instructions of sm_80 and newer: ldmatrix (shared memory -> mma fragments)
// and mma.sync, in the shapes the mma family uses. Fragment layouts (g = lane / 4, t = lane % 4),
// from the PTX ISA's "Matrix Fragments for mma.m16n8k16 / m16n8k8 / m8n8k4":
//
//   m16n8k16 (bf16, fp16), A 16x16 row-major: a[0] = A[g][2t, 2t+1], a[1] = A[g+8][2t, 2t+1],
//            a[2] = A[g][2t+8, 2t+9], a[3] = A[g+8][2t+8, 2t+9] (two 16-bit values per register);
//            B 16x8 ("col": k runs along a register): b[0] = B[2t, 2t+1][g], b[1] = B[2t+8, 2t+9][g].
//   m16n8k8 (tf32): a[0] = A[g][t], a[1] = A[g+8][t], a[2] = A[g][t+4], a[3] = A[g+8][t+4];
//            b[0] = B[t][g], b[1] = B[t+4][g].
//   both:    D 16x8 fp32: d[0], d[1] = D[g][2t, 2t+1], d[2], d[3] = D[g+8][2t, 2t+1].
//   m8n8k4 (f64): a = A[g][t], b = B[t][g], d[0], d[1] = D[g][2t, 2t+1].
//   m16n8k4 (f64, sm_90): a[0] = A[g][t], a[1] = A[g+8][t], b = B[t][g], D as for m16n8k16.
//
// ldmatrix.x4 loads four 8x8 matrices of 16-bit elements: lanes 8i .. 8i+7 give the shared
// addresses of matrix i's eight 16-byte rows, and register i of lane l receives row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1 of matrix i (.trans: column l / 4, rows 2 (l % 4) and
// 2 (l % 4) + 1). A 16-byte row of tf32 is four 32-bit elements, so the non-transposing form hands
// lane l element l % 4 of row l / 4: the tf32 fragments' layout. There is no 32-bit .trans.
//
// Outside sm_80+ device code these compile to nothing (the host refuses older devices first).
#include <cstdint>

namespace gemm::ptx {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GEMM_PTX_MMA_SM80 1
#endif

// Four 8x8 matrices of 16-bit elements (or 8x4 of 32-bit ones); addr: this lane's row, a shared address.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#else
  (void)addr;
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

// The same, each matrix delivered transposed (16-bit elements only).
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#else
  (void)addr;
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

// d += a * b, m16n8k16, bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                                  const std::uint32_t (&b)[2]) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
#endif
}

// d += a * b, m16n8k16, fp16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const std::uint32_t (&a)[4],
                                                 const std::uint32_t (&b)[2]) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
#endif
}

// d += a * b, m16n8k8, tf32 inputs (registers already rounded by to_tf32), fp32 accumulators.
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                                 const std::uint32_t (&b)[2]) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
#endif
}

// d += a * b, m8n8k4, fp64 throughout (DMMA: the FP64 tensor cores of sm_80 and sm_90).
__device__ __forceinline__ void mma_m8n8k4_f64(double (&d)[2], double a, double b) {
#ifdef GEMM_PTX_MMA_SM80
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#else
  (void)d, (void)a, (void)b;
#endif
}

// d += a * b for a 16x8 fp64 tile, k = 4, given as two 8x8 tiles (rows g and g + 8): top/bottom.
// sm_90 has mma.m16n8k4.f64 (the H100's FP64 tensor cores do twice the A100's work per SM and cycle;
// its A fragment is a[0] = A[g][t], a[1] = A[g+8][t], B's b = B[t][g], D's d[0..1] = D[g][2t, 2t+1],
// d[2..3] = D[g+8][2t, 2t+1]); sm_80 issues the two m8n8k4 halves. The fragments are the same.
__device__ __forceinline__ void mma_m16n8k4_f64(double (&top)[2], double (&bottom)[2], double a_top, double a_bottom,
                                                double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+d"(top[0]), "+d"(top[1]), "+d"(bottom[0]), "+d"(bottom[1])
               : "d"(a_top), "d"(a_bottom), "d"(b));
#else
  mma_m8n8k4_f64(top, a_top, b);
  mma_m8n8k4_f64(bottom, a_bottom, b);
#endif
}

// fp32 bits -> tf32 bits, rounded to nearest (ties away from zero), as mma's tf32 operands expect.
__device__ __forceinline__ std::uint32_t to_tf32(std::uint32_t bits) {
#ifdef GEMM_PTX_MMA_SM80
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(bits)));
  return r;
#else
  return bits;
#endif
}

#undef GEMM_PTX_MMA_SM80

}  // namespace gemm::ptx
