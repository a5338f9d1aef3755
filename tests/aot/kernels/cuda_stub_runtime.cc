// A stand-in for the CUDA runtime (built as libcudart.so.12): on a machine without a GPU the real one reports
// cudaErrorNoDevice (100) and leaves device buffers unallocated.
#include <cstddef>

extern "C" int cudaGetDeviceCount(int *count) {
  *count = 0;
  return 100;
}

extern "C" int cudaMalloc(void **pointer, size_t size_bytes) {
  *pointer = nullptr;
  return 100;
}
