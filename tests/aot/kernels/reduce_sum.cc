// Sum over one axis, with the output shape computed by CustomReduceSumInferShape from the attributes "axis" and
// "keep_dim" (declared the way MindSpore's aot_test_files/kernel.cc declares its InferShape function).
#include <cstdint>
#include <vector>
#include "custom_aot_extra.h"

class ReduceState : public AotKernelData {
 public:
  int64_t axis = 0;
};

extern "C" std::vector<int64_t> CustomReduceSumInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
  int64_t axis = extra->Attr<int64_t>("axis");
  bool keep_dim = extra->Attr<bool>("keep_dim");
  std::vector<int64_t> out_shape;
  for (int d = 0; d < ndims[0]; ++d) {
    if (d != axis) {
      out_shape.push_back(shapes[0][d]);
    } else if (keep_dim) {
      out_shape.push_back(1);
    }
  }
  return out_shape;
}

extern "C" int CustomReduceSumInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  auto *state = new ReduceState;
  state->axis = extra->Attr<int64_t>("axis");
  extra->SetKernelData(state);
  return state->axis < ndims[0] ? 0 : 5;
}

extern "C" int CustomReduceSum(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra_void) {
  auto *extra = static_cast<AotExtra *>(extra_void);
  int64_t axis = static_cast<ReduceState *>(extra->KernelData())->axis;
  auto *in = static_cast<float *>(params[0]);
  auto *out = static_cast<float *>(params[1]);
  int64_t outer = 1, inner = 1, extent = shapes[0][axis];
  for (int d = 0; d < axis; ++d) outer *= shapes[0][d];
  for (int d = static_cast<int>(axis) + 1; d < ndims[0]; ++d) inner *= shapes[0][d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float sum = 0;
      for (int64_t k = 0; k < extent; ++k) sum += in[(o * extent + k) * inner + i];
      out[o * inner + i] = sum;
    }
  return 0;
}
