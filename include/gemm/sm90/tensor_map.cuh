#pragma once
// TMA's tensor maps: describing A, B and C to the copy engine (host), and copying through them by
// rank (device). cuTensorMapEncodeTiled is a driver function; it is fetched through the runtime
// (cudaGetDriverEntryPointByVersion), so the library needs no link to libcuda. Encoding touches no
// device: it only fills the 128-byte CUtensorMap, which travels to the kernel as a __grid_constant__
// parameter.
#include <cstdint>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <type_traits>
#include "../ptx/tma.cuh"
#include "../status.cuh"
#include "../types.cuh"

namespace gemm::sm90 {

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

template <class T>
constexpr CUtensorMapDataType tensor_map_type() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, double>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  else if constexpr (sizeof(T) == 1) return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // FP8: TMA moves bytes
  else return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

// What TMA needs of a matrix's rows: a stride of whole multiples of 16 bytes.
template <class T>
bool tma_rows(int ld) {
  return (static_cast<long long>(ld) * sizeof(T)) % 16 == 0;
}
// What TMA needs of a matrix: a 16-byte-aligned base and rows as tma_rows.
template <class T>
bool tma_compatible(const T* base, int ld) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && tma_rows<T>(ld);
}

// Encodes a map of `rank` dimensions (dims and byte strides innermost first; rank >= 2) read in
// boxes of box_rows x box_cols (x 1 x 1) with the swizzle of a box row (128 or 64 bytes); elements
// outside it read as zeros.
// L2 promotion (how much L2 fetches from DRAM per miss): 256 bytes where rows start on 64-byte
// multiples, 128 where they do not, since each 128-byte box row then spans two lines more often and
// wider fetches bring in more that no box asks for. Measured on the H100, bf16 NN, 128x256 tiles:
// 5000 x 3000 x 2000 (rows of 4000 and 6000 bytes) 126.6 us against 143.6 with 256, 3000 x 2000 x
// 1000 29.5 against 31.9; 4000^3 (rows of 8000 bytes, every other one on a 128-byte line) 175.6 with
// 256 against 184.7 with 128.
template <class T>
Status encode_map(CUtensorMap& map, const void* base, cuuint32_t rank, const cuuint64_t* dims,
                  const cuuint64_t* strides, int box_rows, int box_cols) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return Status::TensorMapFailed;
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows), 1, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUtensorMapL2promotion promotion =
      strides[0] % 64 == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  // The swizzle spans a box row: 128 bytes (the operand tiles, C's stores) or 64 (C's stores of
  // tiles whose rows are an odd number of 64-byte halves: StoreChunk).
  const int row_bytes = box_cols * static_cast<int>(sizeof(T));
  const CUtensorMapSwizzle swizzle = row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B;
  const CUresult r = encode(&map, tensor_map_type<T>(), rank, const_cast<void*>(base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? Status::Success : Status::TensorMapFailed;
}

// A row-major matrix of rows x cols elements (row stride ld), copied in boxes of box_rows x
// box_cols with the swizzle of a box row (box_cols * sizeof(T) must be 128, or 64 for C's stores).
// Elements past the matrix read as zeros. With batch > 0, a 3-D tensor of `batch` such matrices
// `stride` elements apart (a multiple of 16 bytes), each box within one matrix.
template <class T>
Status make_tensor_map(CUtensorMap& map, const T* base, long long rows, long long cols, long long ld, int box_rows,
                       int box_cols, long long batch = 0, long long stride = 0) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * sizeof(T), static_cast<cuuint64_t>(stride) * sizeof(T)};
  return encode_map<T>(map, base, batch > 0 ? 3 : 2, dims, strides, box_rows, box_cols);
}

// An address map: one map for every rows x cols matrix of leading dimension ld in device memory,
// wherever it lies (the entries of a pointer array, known only on the device). Two more dimensions
// place the matrix: element (c, r) of the matrix at address p is element (c, r, u, v) of the map,
// where p = kAddressBase + 16 u + 2^35 v (address_place). Their strides (16 bytes, 2^35 bytes) are
// smaller than the rows', which the encoder accepts and TMA follows: it bounds each coordinate by its
// own dimension, so the rows' and columns' bounds still clip every box at the matrix's edges
// (measured on the H100 with matrices ending where mapped memory ends; negative coordinates, which
// the kernels never use, fault). Only 16-byte-aligned matrices have a place.
inline constexpr unsigned long long kAddressBase = 16;   // (the encoder wants a nonzero, aligned base)
inline constexpr int kAddressLowBits = 35;                // u: 2^31 steps of 16 bytes
inline constexpr unsigned long long kAddressHigh = 1ull << 16;  // v: 2^16 steps of 2^35 bytes (to 2^51)

template <class T>
Status make_address_map(CUtensorMap& map, long long rows, long long cols, long long ld, int box_rows, int box_cols) {
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                              1ull << (kAddressLowBits - 4), kAddressHigh};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(ld) * sizeof(T), 16, 1ull << kAddressLowBits};
  return encode_map<T>(map, reinterpret_cast<const void*>(kAddressBase), 4, dims, strides, box_rows, box_cols);
}

// Where a matrix lies in its map beyond the matrix's own two coordinates: nowhere (a 2-D map),
// entry z of a batch (3-D), or its address (z, w) = (u, v) in an address map (4-D); row: rows of the
// map before the matrix's first (a group of a contiguous grouped call: its first row in A and C).
struct MapPlace {
  int z = 0, w = 0;
  int row = 0;
};

// The place of the matrix at p in an address map; false if it has none (p not 16-byte aligned).
__device__ __forceinline__ bool address_place(const void* p, MapPlace& place) {
  const unsigned long long a = reinterpret_cast<unsigned long long>(p);
  const unsigned long long offset = a - kAddressBase;
  if (a % 16 != 0 || a < kAddressBase || (offset >> kAddressLowBits) >= kAddressHigh) return false;
  place.z = static_cast<int>((offset >> 4) & ((1ull << (kAddressLowBits - 4)) - 1));
  place.w = static_cast<int>(offset >> kAddressLowBits);
  return true;
}

// A box at (c0, c1) of the matrix at `at` in a map of kRank dimensions, and the same for stores.
template <int kRank>
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, int c0, int c1, MapPlace at,
                                         std::uint64_t* bar) {
  static_assert(kRank >= 2 && kRank <= 4, "Tensor maps here have 2, 3 or 4 dimensions.");
  if constexpr (kRank == 2) ptx::tma_load_2d(dst, map, c0, c1 + at.row, bar);
  else if constexpr (kRank == 3) ptx::tma_load_3d(dst, map, c0, c1 + at.row, at.z, bar);
  else ptx::tma_load_4d(dst, map, c0, c1 + at.row, at.z, at.w, bar);
}
template <int kRank>
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int c0, int c1, MapPlace at) {
  static_assert(kRank >= 2 && kRank <= 4, "Tensor maps here have 2, 3 or 4 dimensions.");
  if constexpr (kRank == 2) ptx::tma_store_2d(map, src, c0, c1 + at.row);
  else if constexpr (kRank == 3) ptx::tma_store_3d(map, src, c0, c1 + at.row, at.z);
  else ptx::tma_store_4d(map, src, c0, c1 + at.row, at.z, at.w);
}

}  // namespace gemm::sm90
