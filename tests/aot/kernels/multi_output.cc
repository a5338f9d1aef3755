// Three outputs of two dtypes: x + y, x * y (float32) and x > y (bool), plus an in-place variant that negates its
// input (showing inputs are passed without copies) and counts the elements into an int64 output.
#include <cstdint>

extern "C" int CustomAddMulGreater(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                   void *stream, void *extra) {
  if (nparam != 5) return 1;
  auto *x = static_cast<float *>(params[0]);
  auto *y = static_cast<float *>(params[1]);
  auto *sum = static_cast<float *>(params[2]);
  auto *product = static_cast<float *>(params[3]);
  auto *greater = static_cast<bool *>(params[4]);
  int64_t size = 1;
  for (int i = 0; i < ndims[0]; ++i) size *= shapes[0][i];
  for (int64_t i = 0; i < size; ++i) {
    sum[i] = x[i] + y[i];
    product[i] = x[i] * y[i];
    greater[i] = x[i] > y[i];
  }
  return 0;
}

extern "C" int CustomNegateInPlace(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                   void *stream, void *extra) {
  auto *x = static_cast<float *>(params[0]);
  auto *count = static_cast<int64_t *>(params[1]);
  int64_t size = 1;
  for (int i = 0; i < ndims[0]; ++i) size *= shapes[0][i];
  for (int64_t i = 0; i < size; ++i) x[i] = -x[i];
  count[0] = size;
  return 0;
}
