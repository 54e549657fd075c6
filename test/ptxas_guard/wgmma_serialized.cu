// Touching an accumulator between two wgmmas of one group makes ptxas serialise them (C7511 and
// injected waits); cmake/ptxas-guard.sh must turn that into a failed compile.
#include <gemm/ptx/wgmma.cuh>
__global__ void serialised(float* out, unsigned long long desc_a, unsigned long long desc_b) {
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  gemm::ptx::wgmma_fence();
  gemm::ptx::Wgmma<gemm::ptx::WgmmaBf16, 128, false, false>::mma(acc, desc_a, desc_b);
  acc[3] += 1.0f;
  gemm::ptx::Wgmma<gemm::ptx::WgmmaBf16, 128, false, false>::mma(acc, desc_a, desc_b);
  gemm::ptx::wgmma_commit();
  gemm::ptx::wgmma_wait<0>();
  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = acc[i];
}
