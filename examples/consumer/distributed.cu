// Smallest downstream user of gemm::distributed: find_package(gemm COMPONENTS distributed) +
// gemm::distributed. With two or more CUDA devices, multiplies a small float matrix on all of them
// with the all-gather algorithm (the Coalesced preset for the local multiplies, which compiles
// fast) and checks one element; otherwise says why it did nothing.
#include <gemm/distributed/gemm.cuh>

#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

namespace gd = gemm::distributed;

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
    std::printf("fewer than 2 CUDA devices: nothing to distribute\n");
    return 0;
  }
  gd::LocalGroup group;
  if (gemm::Status s = group.init(); s != gemm::Status::Success) {
    std::printf("LocalGroup::init: %s\n", gemm::to_string(s));
    return 1;
  }
  const int p = group.size(), m = 100, n = 70, k = 50;
  const auto algorithm = gd::Algorithm::AllGather;
  std::vector<gd::Shard<const float>> A, B;
  std::vector<gd::Shard<float>> C;
  std::vector<float*> buffers;
  for (int r = 0; r < p; ++r) {
    // Every element of A and B is 1, so every element of C is k.
    const gd::Block a = gd::stored_block(algorithm, gd::Operand::A, gemm::Op::N, m, n, k, p, r);
    const gd::Block b = gd::stored_block(algorithm, gd::Operand::B, gemm::Op::N, m, n, k, p, r);
    const gd::Block c = gd::stored_block(algorithm, gd::Operand::C, gemm::Op::N, m, n, k, p, r);
    cudaSetDevice(group.device(r));
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    cudaMalloc(&da, sizeof(float) * (a.rows * a.cols + 1));
    cudaMalloc(&db, sizeof(float) * (b.rows * b.cols + 1));
    cudaMalloc(&dc, sizeof(float) * (c.rows * c.cols + 1));
    std::vector<float> ones(static_cast<size_t>(std::max(a.rows * a.cols, b.rows * b.cols)) + 1, 1.0f);
    cudaMemcpy(da, ones.data(), sizeof(float) * a.rows * a.cols, cudaMemcpyHostToDevice);
    cudaMemcpy(db, ones.data(), sizeof(float) * b.rows * b.cols, cudaMemcpyHostToDevice);
    A.emplace_back(da, a.rows, a.cols, std::max(1, a.cols));
    B.emplace_back(db, b.rows, b.cols, std::max(1, b.cols));
    C.emplace_back(dc, c.rows, c.cols, std::max(1, c.cols));
    buffers.insert(buffers.end(), {da, db, dc});
  }
  const gemm::Status s = gd::gemm<float, gemm::preset::Coalesced>(group, algorithm, gemm::Op::N, gemm::Op::N, m, n, k,
                                                                    1.0f, A, B, 0.0f, C);
  group.synchronize();
  float corner = 0;
  if (s == gemm::Status::Success) {
    cudaSetDevice(group.device(p - 1));
    cudaMemcpy(&corner, C[p - 1].data, sizeof(float), cudaMemcpyDeviceToHost);
  }
  std::printf("gemm::distributed on %d GPUs: %s, C[%d][0] = %g (expected %d)\n", p, gemm::to_string(s),
              gd::partition(m, p, p - 1).offset, corner, k);
  for (float* f : buffers) cudaFree(f);
  return s == gemm::Status::Success && corner == static_cast<float>(k) ? 0 : 1;
}
