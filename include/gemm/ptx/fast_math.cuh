#pragma once
// The special-function unit's approximations, for the epilogue's activations (epilogue.cuh), which
// run once per element of D on the same warps that feed the tensor cores.
//
// ex2.approx.ftz.f32: 2^x, at most 2 ulp from the exact value (PTX ISA); a result below 2^-126
// flushes to 0. Without .ftz the compiler wraps each ex2 in a range test and two multiplies that keep
// denormal results (measured: 4 of the 14 instructions of a GELU element), which no activation here
// needs: 1 + 2^x is 1 for any such x.
namespace gemm::ptx {

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// tanh.approx.f32 (sm_75 and newer): tanh(x), one special-function instruction, with a maximum
// relative error of about 2^-11 (PTX ISA): an absolute error up to about 2^-11 near +-1. Older
// architectures take tanhf.
__device__ __forceinline__ float tanh_approx(float x) {
#if __CUDA_ARCH__ >= 750
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return tanhf(x);
#endif
}

}  // namespace gemm::ptx
