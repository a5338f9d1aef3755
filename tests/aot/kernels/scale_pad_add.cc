// Mirrors how MindSpore's add_with_attr test kernel behaves (written independently): Init stores "scale" and
// "paddings" in kernel data and declares its workspace as an element count, although the launch writes floats
// into it -- an under-declared workspace that works on MindSpore because its pool rounds blocks to 512 bytes.
// out = (x + y * scale + paddings[0]) + y * scale + paddings[1].
#include <cstdint>
#include <vector>
#include "custom_aot_extra.h"

class ScalePadState : public AotKernelData {
 public:
  float scale = 0;
  std::vector<float> paddings;
};

extern "C" int CustomScalePadAddInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  size_t count = 1;
  for (int i = 0; i < ndims[0]; ++i) count *= static_cast<size_t>(shapes[0][i]);
  extra->SetWorkSpace(std::vector<size_t>{count});
  auto *state = new ScalePadState;
  state->scale = extra->Attr<float>("scale");
  state->paddings = extra->Attr<std::vector<float>>("paddings");
  extra->SetKernelData(state);
  return 0;
}

extern "C" int CustomScalePadAdd(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                 void *stream, void *extra_void) {
  auto *extra = static_cast<AotExtra *>(extra_void);
  auto *state = static_cast<ScalePadState *>(extra->KernelData());
  auto *x = static_cast<float *>(params[0]);
  auto *y = static_cast<float *>(params[1]);
  auto *out = static_cast<float *>(params[2]);
  auto *tmp = static_cast<float *>(params[3]);
  int size = 1;
  for (int i = 0; i < ndims[2]; ++i) size *= static_cast<int>(shapes[2][i]);
  for (int i = 0; i < size; ++i) tmp[i] = x[i] + y[i] * state->scale + state->paddings[0];
  for (int i = 0; i < size; ++i) out[i] = tmp[i] + y[i] * state->scale + state->paddings[1];
  return 0;
}
