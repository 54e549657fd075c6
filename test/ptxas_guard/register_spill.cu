// A kernel of namespace gemm::sm90 that must spill (64 values live at once in a 32-register budget)
// and is not in cmake/ptxas-spills.txt: cmake/ptxas-guard.sh must turn that into a failed compile.
namespace gemm::sm90 {
__global__ void __launch_bounds__(1024, 2) spill_probe(const float* in, float* out) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 1024];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i] + v[(i * 7) % 64];
  out[threadIdx.x] = s;
}
}  // namespace gemm::sm90
