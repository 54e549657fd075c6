// EXPECT: BM must be a multiple of TM
#include <gemm/gemm.cuh>
using Bad = gemm::TileShape<100, 128, 8, 8, 8>;
static_assert(Bad::BM == 100, "instantiate");
