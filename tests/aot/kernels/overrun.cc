// Kernels that write outside their output: past its end (an off-by-some loop bound) or before its start.
#include <cstdint>

extern "C" int CustomWritesPastEnd(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                   void *stream, void *extra) {
  const float *x = static_cast<const float *>(params[0]);
  float *y = static_cast<float *>(params[1]);
  const int64_t size = shapes[0][0];
  for (int64_t i = 0; i < size + 3; ++i) y[i] = x[i < size ? i : 0] + 1.0f;  // three elements too many
  return 0;
}

extern "C" int CustomWritesBeforeStart(int nparam, void **params, int *ndims, int64_t **shapes,
                                       const char **dtypes, void *stream, void *extra) {
  float *y = static_cast<float *>(params[1]);
  for (int64_t i = -1; i < shapes[0][0]; ++i) y[i] = 0.0f;
  return 0;
}

// Two outputs; the second is written correctly, the first one element too far.
extern "C" int CustomFirstOfTwoOverruns(int nparam, void **params, int *ndims, int64_t **shapes,
                                         const char **dtypes, void *stream, void *extra) {
  const float *x = static_cast<const float *>(params[0]);
  float *first = static_cast<float *>(params[1]);
  float *second = static_cast<float *>(params[2]);
  const int64_t size = shapes[0][0];
  for (int64_t i = 0; i < size; ++i) second[i] = x[i];
  for (int64_t i = 0; i < size + 1; ++i) first[i] = x[i < size ? i : 0];
  return 0;
}
