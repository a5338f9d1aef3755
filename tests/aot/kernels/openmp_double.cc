// An OpenMP kernel (built by its user with -fopenmp): y = 2 * x, null dereference on an element above 10.
#include <cstdint>

extern "C" int CustomOmpDouble(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra) {
  const float *x = static_cast<const float *>(params[0]);
  float *y = static_cast<float *>(params[1]);
  const int64_t size = shapes[0][0];
#pragma omp parallel for num_threads(2)
  for (int64_t i = 0; i < size; ++i) {
    if (x[i] > 10.0f) {
      volatile int *nowhere = nullptr;
      *nowhere = 1;
    }
    y[i] = 2.0f * x[i];
  }
  return 0;
}
