// Kernels that do their work on threads of their own, as kernels using std::thread or OpenMP do.  A crash on
// one of those threads (segfault, an exception escaping the thread) must not take the interpreter down.
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

// y = 2 * x, the elements split over `workers` threads; a thread whose slice starts with a value above 10
// dereferences null (the "big input" bug of CustomSegfaultWhenBig, but on a worker thread).
void DoubleOnThreads(const float *x, float *y, int64_t size, int workers, bool throw_when_big) {
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([=]() {
      int64_t begin = size * w / workers, end = size * (w + 1) / workers;
      for (int64_t i = begin; i < end; ++i) {
        if (x[i] > 10.0f) {
          if (throw_when_big) throw std::runtime_error("value out of range on a worker thread");
          volatile int *nowhere = nullptr;
          *nowhere = 1;
        }
        y[i] = 2.0f * x[i];
      }
    });
  }
  for (auto &thread : threads) thread.join();
}

}  // namespace

extern "C" int CustomThreadSegfault(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                    void *stream, void *extra) {
  DoubleOnThreads(static_cast<float *>(params[0]), static_cast<float *>(params[1]), shapes[0][0], 2, false);
  return 0;
}

extern "C" int CustomThreadThrows(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                  void *stream, void *extra) {
  DoubleOnThreads(static_cast<float *>(params[0]), static_cast<float *>(params[1]), shapes[0][0], 2, true);
  return 0;
}
