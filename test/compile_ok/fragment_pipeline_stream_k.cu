// The fragment pipeline and stream-K compose with both math parts and both element types
// (Tuned uses them for float only, so this is where double and the other combinations compile).
#include <gemm/gemm.cuh>
using namespace gemm;

template <class Shape, class Map, class ALayout, class Math>
struct Pipelined : TiledPolicy<Shape, Map, VectorLoader<>, SmemLayout<ALayout, RowMajor<0>>, CpAsyncFragmentPipeline<3>,
                               Math, VectorEpilogue, RowMajorRaster, StreamK>,
                   Named<Pipelined<Shape, Map, ALayout, Math>> {
  static const char* name() { return "Pipelined"; }
};
using AlongM = Pipelined<TileShape<64, 64, 16, 4, 4>, WarpThreadMap<32, 32, 2, 1>, Transposed<4>, OuterProduct>;
using AlongK = Pipelined<TileShape<64, 64, 16, 1, 4>, WarpThreadMap<32, 32, 8, 1>, RowMajor<4>, OuterProductAlongK>;

template <class T>
void f(T* p) {
  gemm::gemm<T, AlongM>(1, 1, 1, T(1), p, 1, p, 1, T(0), p, 1);
  gemm::gemm<T, AlongK>(1, 1, 1, T(1), p, 1, p, 1, T(0), p, 1);
}
template void f<float>(float*);
template void f<double>(double*);
