#pragma once
// Before a grouped call's kernel: each group's tiles counted from its rows in device memory, and
// their running sum (units[g]: the group's first work unit; units[groups]: all of them), so that the
// persistent kernel shares out exactly the tiles that exist without the host ever seeing the group
// sizes. One block; rows the buffers cannot hold (negative, decreasing offsets, past max_rows) are
// clamped as the kernel clamps them (grouped_args.cuh) and flagged in *error.
#include "../detail/launch.cuh"
#include "../grouped_args.cuh"

namespace gemm::detail {

inline constexpr int kGroupUnitsThreads = 1024;

// (A template, as every kernel in these headers: each program that includes them gets one copy.)
template <int = 0>
__global__ void __launch_bounds__(kGroupUnitsThreads)
    group_units_kernel(const int* rows, int groups, GroupedForm form, int max_rows, int tile_rows, int tiles_n,
                       int* units, unsigned* error) {
  __shared__ int sums[kGroupUnitsThreads];
  const int t = threadIdx.x;
  const int per = (groups + kGroupUnitsThreads - 1) / kGroupUnitsThreads;
  const int g0 = min(groups, t * per), g1 = min(groups, g0 + per);
  // Group g's tiles, and whether its rows were out of range.
  const auto tiles_of = [&](int g, bool& bad) {
    int n_rows;
    if (form == GroupedForm::Masked) {
      const int c = rows[g];
      bad = c < 0 || c > max_rows;
      n_rows = c < 0 ? 0 : (c > max_rows ? max_rows : c);
    } else {
      const int b = rows[g], e = rows[g + 1];
      bad = b < 0 || e < b || e > max_rows;
      const int cb = b < 0 ? 0 : (b > max_rows ? max_rows : b);
      const int ce = e > max_rows ? max_rows : e;
      n_rows = ce > cb ? ce - cb : 0;
    }
    return (n_rows + tile_rows - 1) / tile_rows * tiles_n;
  };
  int mine = 0;
  bool any_bad = false;
  for (int g = g0; g < g1; ++g) {
    bool bad;
    mine += tiles_of(g, bad);
    any_bad = any_bad || bad;
  }
  if (any_bad) atomicOr(error, 1u);
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
    bool bad;
    start += tiles_of(g, bad);
  }
  if (t == kGroupUnitsThreads - 1) units[groups] = sums[t];
}

template <class Args>
Status count_group_units(const Args& args, int tile_rows, int tile_cols, int* units, const DeviceInfo& dev,
                         cudaStream_t stream) {
  const int tiles_n = static_cast<int>(ceil_div(args.n, tile_cols));
  return launch_kernel<&group_units_kernel<>>(Grid(1), kGroupUnitsThreads, 0, stream, dev, args.rows, args.batch,
                                            args.form, args.max_rows, tile_rows, tiles_n, units, args.error);
}

}  // namespace gemm::detail
