#pragma once
// Compositions of the fragment pipeline and stream-K outside Tuned, with both math parts:
// compiled for sm_80 by test/compile_ok and run on the GPU by test/gpu/parts_test.cu.
#include <gemm/gemm.cuh>

namespace gemm_test {

template <class Shape, class Map, class ALayout, class Math>
struct Pipelined : gemm::TiledPolicy<Shape, Map, gemm::VectorLoader<>, gemm::SmemLayout<ALayout, gemm::RowMajor<0>>,
                                     gemm::CpAsyncFragmentPipeline<3>, Math, gemm::VectorEpilogue,
                                     gemm::RowMajorRaster, gemm::StreamK>,
                   gemm::Named<Pipelined<Shape, Map, ALayout, Math>> {
  static const char* name() { return "Pipelined"; }
};
using PipelinedAlongM = Pipelined<gemm::TileShape<64, 64, 16, 4, 4>, gemm::WarpThreadMap<32, 32, 2, 1>,
                                  gemm::Transposed<4>, gemm::OuterProduct>;
using PipelinedAlongK = Pipelined<gemm::TileShape<64, 64, 16, 1, 4>, gemm::WarpThreadMap<32, 32, 8, 1>,
                                  gemm::RowMajor<4>, gemm::OuterProductAlongK>;

}  // namespace gemm_test
