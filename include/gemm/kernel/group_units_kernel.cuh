#pragma once
// Before a grouped call's kernel: each group's tiles counted from its rows in device memory, and
// their running sum (units[g]: the group's first work unit; units[groups]: all of them), so that the
// persistent kernel shares out exactly the tiles that exist without the host ever seeing the group
// sizes. One block; rows the buffers cannot hold (negative, decreasing offsets, past max_rows) are
// clamped and flagged through GroupedArgs' own checks (grouped_args.cuh), as every kernel sees them.
#include "../detail/launch.cuh"
#include "../grouped_args.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

inline constexpr int kGroupUnitsThreads = 1024;

// (units: args.units, which the kernels read as const, written here; args.claims zeroed for the kernel
// that claims the units: sm90/scheduler.cuh.)
template <class Args>
__global__ void __launch_bounds__(kGroupUnitsThreads)
    group_units_kernel(const Args args, int tile_rows, int tiles_n, int* units) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (threadIdx.x == 0 && args.claims != nullptr) *args.claims = 0;
  __shared__ int sums[kGroupUnitsThreads];
  const int groups = static_cast<int>(args.batch);
  const int t = threadIdx.x;
  const int per = (groups + kGroupUnitsThreads - 1) / kGroupUnitsThreads;
  const int g0 = min(groups, t * per), g1 = min(groups, g0 + per);
  // Group g's tiles, its rows clamped as the kernels clamp them.
  const auto tiles_of = [&](int g) { return (args.group_rows(g) + tile_rows - 1) / tile_rows * tiles_n; };
  int mine = 0;
  bool any_bad = false;
  for (int g = g0; g < g1; ++g) {
    mine += tiles_of(g);
    any_bad = any_bad || !args.group_in_range(g);
  }
  if (any_bad) *args.error = 1u;  // (a store: every writer writes 1; mapped host memory)
  // Inclusive scan of the threads' sums (Hillis-Steele), then each thread writes its groups' starts.
  sums[t] = mine;
  __syncthreads();
  for (int d = 1; d < kGroupUnitsThreads; d *= 2) {
    const int v = t >= d ? sums[t - d] : 0;
    __syncthreads();
    sums[t] += v;
    __syncthreads();
  }
  int start = sums[t] - mine;
  for (int g = g0; g < g1; ++g) {
    units[g] = start;
    start += tiles_of(g);
  }
  if (t == kGroupUnitsThreads - 1) units[groups] = sums[t];
}

// Counts args' units into `units` (groups + 1 ints of device memory) for tiles of tile_rows x tile_cols,
// and zeroes args.claims (where not null).
template <class Args>
Status count_group_units(const Args& args, int tile_rows, int tile_cols, int* units, const DeviceInfo& dev,
                         cudaStream_t stream) {
  const int tiles_n = static_cast<int>(ceil_div(args.n, tile_cols));
  return launch_kernel<&group_units_kernel<Args>>(Grid(1), kGroupUnitsThreads, 0, stream, dev, args, tile_rows,
                                                  tiles_n, units);
}

}  // namespace gemm::detail
