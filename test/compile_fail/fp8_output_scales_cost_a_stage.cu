// EXPECT: output scales' slots cost this block shape a stage
// A Hopper block shape whose six FP8 stages fit beside its epilogue buffers only without the FP8 row
// scales' slots (its buffers 200 bytes larger than the 128x128 tile's): the kernels' OutputScales
// refuses it rather than run it a stage short.
#include <gemm/gemm.cuh>

using Shape = gemm::sm90::BlockShape<__nv_fp8_e4m3, 128, 128, 6, 2, gemm::Op::N, gemm::Op::T, 16584>;
int slot_floats() { return gemm::sm90::OutputScales<Shape>::kFloats; }  // (16384-byte buffers: the FP8 kernels' own)
