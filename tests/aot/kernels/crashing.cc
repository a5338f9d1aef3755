// Kernels that crash: npusim must turn the signal into AotKernelCrash and keep the process alive.
#include <cstdint>
#include <cstdlib>

extern "C" int CustomSegfaultWhenBig(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                     void *stream, void *extra) {
  float *x = static_cast<float *>(params[0]);
  float *y = static_cast<float *>(params[1]);
  if (x[0] > 10.0f) {
    volatile int *nowhere = nullptr;
    *nowhere = 1;
  }
  for (int64_t i = 0; i < shapes[0][0]; ++i) y[i] = 2.0f * x[i];
  return 0;
}

extern "C" int CustomAborts(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                            void *stream, void *extra) {
  std::abort();
}

static int Recurse(volatile int depth) { return depth > 0 ? Recurse(depth + 1) + 1 : 0; }

extern "C" int CustomOverflowsStack(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                    void *stream, void *extra) {
  return Recurse(1);
}
