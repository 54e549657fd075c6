#pragma once
// Rasterisation: the order in which block tiles are handed out. Blocks launched together share
// the L2 cache, so the order decides how often A and B tiles are re-read from device memory.
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

// Tile after tile along a row of C, then the next row: the straightforward order.
struct RowMajorRaster {
  static std::string describe() { return "RowMajorRaster"; }
  __device__ static void tile(int block, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    (void)tiles_m;
    tile_m = block / tiles_n;
    tile_n = block % tiles_n;
  }
};

// Groups of G tile rows, walked column by column inside a group: the blocks in flight touch
// G rows of A and few columns of B, so both stay in L2 while they are reused.
template <int G>
struct SwizzledRaster {
  static_assert(G >= 1, "SwizzledRaster: the group height G must be at least 1.");
  static std::string describe() { return detail::templated("SwizzledRaster", G); }
  __device__ static void tile(int block, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int group_size = G * tiles_n;
    const int group = block / group_size;
    const int first_m = group * G;
    const int height = min(G, tiles_m - first_m);
    const int in_group = block - group * group_size;
    tile_m = first_m + in_group % height;
    tile_n = in_group / height;
  }
};

}  // namespace gemm
