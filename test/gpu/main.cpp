// GPU tests: skip with a visible reason (exit code 77, which ctest reports as skipped) when no
// CUDA device is usable, so a GPU-less CI machine builds them and says why they did not run.
#include <cstdio>
#include <cuda_runtime.h>
#include "../catch_session.hpp"

int main(int argc, char** argv) {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: the GPU tests need a CUDA device, and none is usable here (%s).\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("GPU tests on %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  return run_catch_session(argc, argv);
}
