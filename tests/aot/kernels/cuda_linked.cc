// An aot kernel linked against the CUDA runtime: it copies through a device buffer and ignores the error codes,
// so without a GPU its output would be whatever the memory held.
#include <cstddef>
#include <cstdint>

extern "C" int cudaMalloc(void **pointer, size_t size_bytes);

extern "C" int CustomCudaCopy(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                              void *stream, void *extra) {
  void *device = nullptr;
  cudaMalloc(&device, static_cast<size_t>(shapes[0][0]) * sizeof(float));
  return 0;
}
