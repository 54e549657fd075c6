#pragma once
// One operand's tile in shared memory, as TMA writes it and wgmma reads it.
//
// TMA with the 128-byte swizzle writes boxes whose rows are 128 bytes (64 bf16/fp16, 32 tf32, 128 fp8);
// wgmma reads them through a descriptor. Which dimension runs along those rows depends on how the
// operand is stored in global memory, which TMA cannot change:
//   K-major  (A with op N, B with op T: k contiguous): one box of kMN rows, each row = the tile's kBK
//            k values of one m (or n). wgmma steps along k by moving the start address 32 bytes.
//   MN-major (A with op T, B with op N: m or n contiguous): kMN / 64 boxes of kBK rows, each row =
//            64 consecutive m (or n) of one k. wgmma reads it transposed (imm-trans = 1); steps along
//            k move the start address 16 rows; LBO is the distance between boxes.
// Every tile starts on a 1024-byte boundary (the swizzle pattern's period), so the descriptors'
// base-offset field stays 0.
#include <cstdint>
#include <type_traits>
#include <cuda.h>
#include "../ptx/ld_shared.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../status.cuh"
#include "tensor_map.cuh"

namespace gemm::sm90 {

// Where an operand's tiles come from: its tensor map, and where in the map the matrix lies (the
// entry of a strided batch, the address of a pointer array's entry).
struct OperandSource {
  const CUtensorMap* map;
  MapPlace at{};
};

// kThroughRegisters: an MN-major TF32 A that the math warpgroups read into registers
// (RegisterFragments below) instead of through a descriptor.
template <class In, int kMN, bool kKMajor, bool kThroughRegisters = false>
struct OperandTile {
  static constexpr int kRowElems = 128 / static_cast<int>(sizeof(In));  // elements per 128-byte row
  static constexpr int kBK = kRowElems;                                  // k per stage: one row's worth
  static_assert(kKMajor || sizeof(In) == 2 || (kThroughRegisters && sizeof(In) == 4),
                "wgmma reads tf32 (and fp8) operands K-major only: a tf32 operand must be stored with k contiguous "
                "(A row-major, B transposed), or, for A, read through registers (WgmmaRegisterA).");
  static_assert(kMN >= 64 || kKMajor, "An MN-major operand tile is at least one 64-element box wide.");
  static_assert(!kKMajor || kMN <= 256, "TMA boxes hold at most 256 rows: a K-major tile is at most 256 wide.");
  static constexpr bool kKMajorTile = kKMajor;
  // (An MN-major tile of 96 takes two whole boxes, wgmma reading 96 of their 128 columns.)
  static constexpr int kBoxes = kKMajor ? 1 : (kMN + kRowElems - 1) / kRowElems;
  static constexpr int kBoxRows = kKMajor ? kMN : kBK;
  static constexpr int kBytes = (kKMajor ? kMN : kBoxes * kRowElems) * kBK * static_cast<int>(sizeof(In));
  static constexpr int kBoxBytes = kBytes / kBoxes;
  static_assert(kBytes % 1024 == 0, "Operand tiles must fill whole 1024-byte swizzle periods.");

  // The tensor map of the whole operand: K-major, rows = m (or n) and k contiguous; MN-major,
  // rows = k and m (or n) contiguous.
  // batch > 0: a batch of such operands, stride elements apart (a 3-D map).
  static Status make_map(CUtensorMap& map, const In* base, int mn, int k, int ld, long long batch = 0,
                         long long stride = 0) {
    return kKMajor ? make_tensor_map(map, base, mn, k, ld, kBoxRows, kRowElems, batch, stride)
                   : make_tensor_map(map, base, k, mn, ld, kBoxRows, kRowElems, batch, stride);
  }

  // An address map of such operands (pointer-array entries; tensor_map.cuh).
  static Status make_address_map(CUtensorMap& map, int mn, int k, int ld) {
    return kKMajor ? sm90::make_address_map<In>(map, mn, k, ld, kBoxRows, kRowElems)
                   : sm90::make_address_map<In>(map, k, mn, ld, kBoxRows, kRowElems);
  }

  // How many of the tile's boxes at mn0 hold any of the operand's mn_size rows (or columns): the
  // copies through an address map skip the others, since TMA faults on a box wholly outside an
  // address map's matrix (measured; a 2-D or 3-D map just fills it with zeros). A skipped box's
  // stale contents meet only rows or columns of C outside the matrix, which are never stored.
  __device__ static int boxes_within(int mn0, int mn_size) {
    if constexpr (kKMajor) return 1;  // (its one box starts inside the matrix)
    else return min(kBoxes, (mn_size - mn0 + kRowElems - 1) / kRowElems);
  }

  // The tile at (mn0, k0) of the operand into dst, through a map of kRank dimensions, its first
  // `boxes` boxes (all by default); their bytes count on bar.
  template <int kRank>
  __device__ static void load(void* dst, const OperandSource& src, int mn0, int k0, std::uint64_t* bar,
                              int boxes = kBoxes) {
    if constexpr (kKMajor) {
      tma_load<kRank>(dst, src.map, k0, mn0, src.at, bar), (void)boxes;
    } else {
#pragma unroll
      for (int j = 0; j < kBoxes; ++j)
        if (j < boxes)
          tma_load<kRank>(static_cast<char*>(dst) + j * kBoxBytes, src.map, mn0 + j * kRowElems, k0, src.at, bar);
    }
  }

  // The tile at (mn0, k0) of an operand TMA cannot read (a pointer-array entry not 16-byte aligned),
  // written by thread t of `threads` with ordinary loads, in the layout TMA writes: the tile's rows
  // of 128 bytes (box after box), the 16-byte piece p of row r at piece p ^ (r % 8), zeros outside
  // the matrix. The matrix: mn_size x k_size, stored K-major (element (mn, k) at base[mn * ld + k])
  // or MN-major (at base[k * ld + mn]). The caller fences before the tensor cores read the tile.
  __device__ static void fill(void* dst, const In* base, int ld, int mn_size, int k_size, int mn0, int k0, int t,
                              int threads) {
    using Bits = std::conditional_t<sizeof(In) == 1, unsigned char,
                                    std::conditional_t<sizeof(In) == 2, unsigned short, unsigned>>;
    constexpr int kPerPiece = 16 / static_cast<int>(sizeof(In));
    const Bits* bits = reinterpret_cast<const Bits*>(base);
    for (int q = t; q < kBytes / 16; q += threads) {
      const int row = q / 8, piece = q % 8;
      // K-major: a row is one mn, the piece runs along k; MN-major: a row is one k of box row / kBK,
      // the piece runs along mn.
      const int mn = kKMajor ? mn0 + row : mn0 + (row / kBK) * kRowElems + piece * kPerPiece;
      const int k = kKMajor ? k0 + piece * kPerPiece : k0 + row % kBK;
      alignas(16) Bits v[kPerPiece];
#pragma unroll
      for (int e = 0; e < kPerPiece; ++e) {
        const int me = kKMajor ? mn : mn + e, ke = kKMajor ? k + e : k;
        v[e] = me < mn_size && ke < k_size
                   ? bits[kKMajor ? static_cast<long long>(me) * ld + ke : static_cast<long long>(ke) * ld + me]
                   : Bits(0);
      }
      *reinterpret_cast<uint4*>(static_cast<char*>(dst) + row * 128 + (piece ^ (row % 8)) * 16) =
          *reinterpret_cast<const uint4*>(v);
    }
  }

  // Where the slice starting at m (or n) offset mn (a multiple of 64) and k offset kk lies in the
  // tile, in bytes from its start.
  __host__ __device__ static constexpr int offset(int mn, int kk) {
    return kKMajor ? mn * 128 + kk * static_cast<int>(sizeof(In)) : (mn / kRowElems) * kBoxBytes + kk * 128;
  }

  // wgmma's view of the slice starting at m (or n) offset mn (a multiple of 64), k offset kk.
  __device__ static std::uint64_t descriptor(const void* tile, int mn, int kk) {
    return ptx::smem_descriptor(static_cast<const char*>(tile) + offset(mn, kk), kKMajor ? 16 : kBoxBytes,
                                kDescriptorSbo, ptx::Swizzle::B128);
  }
  // The descriptors' high word, the same for every slice of every tile of this kind.
  static constexpr int kDescriptorSbo = 1024;
  static constexpr unsigned kDescriptorHigh = ptx::smem_descriptor_high(kDescriptorSbo, ptx::Swizzle::B128);
};

// The wgmma fragments of an MN-major TF32 tile (OperandTile<float, kMN, false, true>), which tf32
// descriptors cannot read (they read K-major only): a math warpgroup loads them into registers from
// the tile as TMA wrote it, and its wgmmas read A from there (WgmmaRs). Lane l of warp w holds, for
// each k step s (8 k) and register e, A(row + 16 w + l / 4 + 8 (e % 2), 8 s + l % 4 + 4 (e / 2))
// (ptx/wgmma_ops.cuh). In the swizzled layout that is element (m, k) at box m / 32, row k, 16-byte
// piece ((m % 32) / 4) ^ (k % 8), word m % 4: a warp's load of one register reads 8 m of 4 k rows,
// 2 lanes to a bank. (Boxes 8 m wide and unswizzled put the 32 lanes in 32 banks, but TMA moved
// their 32-byte rows too slowly: the kernel ran 15% slower.)
template <class Tile>
struct RegisterFragments {
  static_assert(!Tile::kKMajorTile && Tile::kRowElems == 32, "RegisterFragments: an MN-major tile of 4-byte elements.");
  static constexpr int kSteps = Tile::kBK / 8;
  unsigned at[4];  // register e's address for k step 0 of stage 0's tile (shared window)
  __device__ RegisterFragments(const void* tile0, int row) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int m = row + 16 * warp + lane / 4, c = lane % 4;
    // Register e adds 8 rows (piece + 2: m % 32 / 4 is 0, 1, 4 or 5 here, so without a carry) and
    // 4 k (row + 4, and the swizzle's piece ^ 4).
#pragma unroll
    for (int e = 0; e < 4; ++e)
      at[e] = detail::smem_address(tile0) + (m / 32) * Tile::kBoxBytes + (c + 4 * (e / 2)) * 128 +
              ((((m % 32) / 4 + 2 * (e % 2)) ^ (c + 4 * (e / 2))) << 4) + (m % 4) * 4;
  }
  // The fragments of the tile `stage_offset` bytes after stage 0's: its kSteps k steps.
  __device__ __forceinline__ void load(unsigned (&a)[kSteps][4], unsigned stage_offset) const {
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int e = 0; e < 4; ++e) a[s][e] = ptx::ld_shared_b32(at[e] + stage_offset + s * 8 * 128);
  }
};

}  // namespace gemm::sm90
