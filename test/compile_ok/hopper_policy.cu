// A custom Hopper composition (128x192 tiles, 4 stages, persistent, TMA stores) compiles, also for
// sm_80 (the kernels' bodies are sm_90a-only and the host refuses other devices).
#include <gemm/gemm.cuh>
struct Custom : gemm::HopperPolicy<gemm::BlockTile<128, 192>, 4, gemm::PersistentProducerConsumer<2>,
                                   gemm::SwizzledRaster<4>, gemm::TmaStoreEpilogue>,
                gemm::Named<Custom> {
  static const char* name() { return "Custom"; }
};
void f(__half* p, float* c) {
  gemm::gemm<__half, Custom>(gemm::Op::T, gemm::Op::N, 1, 1, 1, 1.f, p, 8, p, 8, 0.f, c, 4);
}
