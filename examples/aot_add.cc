// A MindSpore aot kernel: float32 element-wise add (see examples/custom_add.py).
#include <cstdint>
#include <cstring>

extern "C" int CustomAdd(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                         void *stream, void *extra) {
  if (nparam != 3) return 1;
  for (int i = 0; i < nparam; i++) {
    if (std::strcmp(dtypes[i], "float32") != 0) return 2;
  }
  const float *a = static_cast<const float *>(params[0]);
  const float *b = static_cast<const float *>(params[1]);
  float *out = static_cast<float *>(params[2]);
  int64_t size = 1;
  for (int i = 0; i < ndims[2]; i++) size *= shapes[2][i];
  for (int64_t i = 0; i < size; i++) out[i] = a[i] + b[i];
  return 0;
}
