#pragma once
// The tile scheduler of the warp-specialised Hopper kernels: which work units a block takes, and in
// which order. A unit is one BM x BN tile of C of one batch entry, or, with split-K, one of `splits`
// k slices of it (a tile's slices adjacent, so that they run at the same time and the last one to
// finish reduces them: split_k.cuh). The producer and the consumers of a block walk the same units.
// Split-K may start after `whole` whole tiles (the tail split: whole rounds of the SMs first, then
// the tiles of the last, partial round in slices that fill it); the split tiles are then numbered
// from 0 (`slot`) in the partial tiles' scratch.
//
//   kPersistent: one block per SM, block i taking units i, i + gridDim.x, ... (the raster orders the
//                tiles so that the blocks running at once share rows of A and columns of B in L2);
//   otherwise:   one block per unit (a batch's entries along the grid's y and z; detail/batch.cuh).
//   grouped:     one block per SM, each claiming its next unit from a counter when it is ready for
//                it (GroupedScheduler, below).
//
// Every role of a block walks the units the same way: `for (w = sched.begin<kFetch>(c); w < sched.count;
// w = sched.next<kFetch>(w, c))`, kFetch for the thread that decides them (the producer's issuer);
// the others (math warpgroups, the factor warp) follow it through a queue in shared memory where the
// units are claimed at run time, and step on by themselves where they are not.
#include <cstdint>
#include <type_traits>
#include "../detail/batch.cuh"
#include "../ptx/mbarrier.cuh"
#include "ring.cuh"

namespace gemm::sm90 {

struct WorkUnit {
  int b;                  // batch entry (0 without a batch)
  int tile;               // the tile's index in its entry, before rasterisation
  int tile_m, tile_n;     // the tile's place in C, in tiles
  int split;              // the k slice (0 without split-K)
  int slot;               // a split tile's place among the split tiles (-1: a whole tile)
  int k_begin, k_blocks;  // k blocks [k_begin, k_begin + k_blocks) of BK each
};

// Where a block's claimed units pass from the thread that claims them to the rest of the block: a ring
// of kUnitSlots words in shared memory (Stages::unit_queue), each with a full barrier (the claiming
// thread's arrival) and an empty one (every reader's). UnitCursor: a role's place in the ring.
inline constexpr int kUnitSlots = 4;
struct UnitQueue {
  int* slots = nullptr;
  std::uint64_t* full = nullptr;
  std::uint64_t* empty = nullptr;
};
using UnitCursor = RingPosition<kUnitSlots>;

template <class Raster, bool kPersistent, bool kBatched>
struct TileScheduler {
  // Unit indices: 64-bit where a batch multiplies the tile count.
  using Work = std::conditional_t<kBatched, long long, int>;
  int tiles_m, tiles_n, tiles;
  int splits, k_blocks, k_per_split;
  int whole;    // tiles computed whole before the split ones (split-K only)
  Work count;   // units in the whole launch
  Work first;   // this block's first unit
  Work stride;  // from one of this block's units to its next

  // BM, BN, BK: the tile; splits: k slices per split tile (1: none), at most the k blocks; whole:
  // the tiles before the split ones (0 with splits == 1 or a batch).
  template <class Args>
  __device__ TileScheduler(const Args& params, int bm, int bn, int bk, int splits_, int whole_ = 0, UnitQueue = {})
      : tiles_m((params.m + bm - 1) / bm),
        tiles_n((params.n + bn - 1) / bn),
        tiles(tiles_m * tiles_n),
        splits(splits_),
        k_blocks((params.k + bk - 1) / bk),
        k_per_split(splits_ > 1 ? (k_blocks + splits_ - 1) / splits_ : k_blocks),
        whole(splits_ > 1 ? whole_ : 0) {
    const Work per_entry = whole + static_cast<Work>(tiles - whole) * splits;
    count = kBatched ? per_entry * params.batch : per_entry;
    if constexpr (kPersistent) {
      first = static_cast<Work>(blockIdx.x);
      stride = static_cast<Work>(gridDim.x);
    } else {
      first = static_cast<Work>(blockIdx.x) + (kBatched ? per_entry * detail::block_batch<Args>() : 0);
      stride = count;  // one unit per block
    }
  }

  // The units are fixed by the block's index: every role steps on by itself.
  template <bool kFetch>
  __device__ Work begin(UnitCursor&) const {
    return first;
  }
  template <bool kFetch>
  __device__ Work next(Work w, UnitCursor&) const {
    return w + stride;
  }

  __device__ WorkUnit unit(Work w) const {
    WorkUnit u;
    Work t = w;
    u.split = 0, u.slot = -1;
    if (splits > 1 && w >= whole) {  // (split-K runs single products only: no batch entry to find)
      const int q = static_cast<int>((w - whole) / splits);
      u.slot = q, u.split = static_cast<int>(w - whole) - q * splits, t = whole + q;
    }
    u.b = kBatched ? static_cast<int>(t / tiles) : 0;
    u.tile = static_cast<int>(t - static_cast<Work>(u.b) * tiles);
    Raster::tile(u.tile, tiles_m, tiles_n, u.tile_m, u.tile_n);
    u.k_begin = u.slot >= 0 ? u.split * k_per_split : 0;
    u.k_blocks = u.slot >= 0 ? min(k_per_split, k_blocks - u.k_begin) : k_blocks;
    return u;
  }
};

// The grouped scheduler (grouped_args.cuh): the units are every group's tiles, counted on the device
// before the kernel (units[g]: group g's first unit, units[groups]: all of them), so that empty groups
// cost nothing and no host ever sees the group sizes. Unit w belongs to the group g with
// units[g] <= w < units[g + 1] (a binary search over a few hundred cached words); within a group the
// tiles go down the tile rows of one column of tiles, then the next column. Persistent, one k slice
// per tile.
//
// Claimed, not striped: block i starts at unit i, then its producer takes the next unclaimed one
// from a counter (`claims`, zeroed by the kernel that counts the units) when it is about to load it.
// A group's units differ in cost (a last tile row of a few rows, a consumer with no rows skipping its
// wgmmas), so blocks that each took every gridDim.x-th unit drifted apart: the tiles of one column,
// meant to run at once and read its weight from DRAM once, ran far apart and read it once each
// (DeepSeek-V3's up projection moved 1.6 times its 14 GB of weights). Claimed, the units running at
// once are always a window of consecutive ones.
template <class Raster>
struct GroupedScheduler {
  using Work = int;
  int tiles_n, groups, k_blocks, bm;
  const int* units;
  int* claims;
  UnitQueue queue;
  Work count;

  template <class Args>
  __device__ GroupedScheduler(const Args& params, int bm_, int bn, int bk, int /*splits*/, int /*whole*/ = 0,
                              UnitQueue queue_ = {})
      : tiles_n((params.n + bn - 1) / bn),
        groups(params.batch),
        k_blocks((params.k + bk - 1) / bk),
        bm(bm_),
        units(params.units),
        claims(params.claims),
        queue(queue_),
        count(0) {}
  // The unit count the counting kernel wrote: read once the previous grid is waited for (the rest
  // of the scheduler is built before that wait: cooperative_kernel).
  template <class Args>
  __device__ void read_count(const Args& params) { count = params.units[params.batch]; }

  // The claiming thread publishes each unit it takes (one past the last, count or more, ends every
  // role's walk); the others read them in turn.
  template <bool kFetch>
  __device__ Work begin(UnitCursor& c) const {
    return kFetch ? publish(static_cast<Work>(blockIdx.x), c) : receive(c);
  }
  template <bool kFetch>
  __device__ Work next(Work, UnitCursor& c) const {
    return kFetch ? publish(static_cast<Work>(gridDim.x) + atomicAdd(claims, 1), c) : receive(c);
  }

  __device__ Work publish(Work w, UnitCursor& c) const {
    ptx::mbarrier_wait(queue.empty + c.stage, c.phase ^ 1);  // (the first pass finds every slot free)
    queue.slots[c.stage] = w;
    ptx::mbarrier_arrive(queue.full + c.stage);
    c.advance();
    return w;
  }
  __device__ Work receive(UnitCursor& c) const {
    ptx::mbarrier_wait(queue.full + c.stage, c.phase);
    const Work w = *static_cast<volatile int*>(queue.slots + c.stage);
    ptx::mbarrier_arrive(queue.empty + c.stage);
    c.advance();
    return w;
  }

  __device__ WorkUnit unit(Work w) const {
    int lo = 0, hi = groups;  // the last g with units[g] <= w
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (__ldg(units + mid) <= w) lo = mid;
      else hi = mid;
    }
    // Down the group's tile rows first: the blocks running at once share its B columns, which then
    // come from DRAM once (a Mixtral expert's weight, 117 MB, does not fit in L2), while its rows of A
    // stay in L2.
    WorkUnit u;
    u.b = lo;
    u.tile = w;
    const int begin = __ldg(units + lo), tiles_m = (__ldg(units + lo + 1) - begin) / tiles_n;
    const int local = w - begin;
    u.tile_n = local / tiles_m;
    u.tile_m = local - u.tile_n * tiles_m;
    u.split = 0;
    u.slot = -1;
    u.k_begin = 0;
    u.k_blocks = k_blocks;
    return u;
  }
};

}  // namespace gemm::sm90
