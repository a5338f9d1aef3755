// A kernel whose worker thread never finishes (a deadlocked OpenMP/std::thread kernel): the call hangs.
#include <chrono>
#include <cstdint>
#include <thread>

extern "C" int CustomThreadHangs(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                 void *stream, void *extra) {
  std::thread worker([]() {
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  worker.join();
  return 0;
}
