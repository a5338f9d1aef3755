// Guard zones around the outputs handed to aot kernels.
//
// Each output lives in a block [front zone | data | tail zone] whose zones are filled with kGuardByte before the
// call and checked after it.  A kernel writing a little past the end of an output (a loop bound off by some
// elements) or before its start thus writes into memory npusim owns instead of the heap's bookkeeping, and the
// bridge reports which output it overran and by how many bytes.  The tail zone is as large as the output itself
// (between kMinTailGuardBytes and kMaxTailGuardBytes), so even a kernel writing an output twice over stays inside
// its block while small; writes further out than the zones reach are detected (the zone changed) but may already
// have damaged other memory, which the error message says.
#ifndef NPUSIM_AOT_OUTPUT_GUARD_H_
#define NPUSIM_AOT_OUTPUT_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace npusim_aot {

constexpr unsigned char kGuardByte = 0xA5;
constexpr size_t kFrontGuardBytes = 64;
constexpr size_t kMinTailGuardBytes = 64;
constexpr size_t kMaxTailGuardBytes = 64 * 1024;

// Bytes of the tail zone after an output of `data_bytes` bytes (a multiple of 64).
inline size_t TailGuardBytes(size_t data_bytes) {
  size_t tail = data_bytes < kMinTailGuardBytes ? kMinTailGuardBytes
                : data_bytes > kMaxTailGuardBytes ? kMaxTailGuardBytes : data_bytes;
  return (tail + 63) / 64 * 64;
}

inline void FillGuard(unsigned char *zone, size_t size) { std::memset(zone, kGuardByte, size); }

// Whether every byte of the zone still holds kGuardByte (word-wise: fast for the 64 KiB tail zones).
inline bool GuardIntact(const unsigned char *zone, size_t size) {
  uint64_t pattern;
  std::memset(&pattern, kGuardByte, sizeof(pattern));
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, zone + i, sizeof(word));
    if (word != pattern) return false;
  }
  for (; i < size; ++i) {
    if (zone[i] != kGuardByte) return false;
  }
  return true;
}

// How far past the end of the data the writes reached: 1 + the index of the last changed byte of the tail zone.
inline size_t BytesWrittenAfter(const unsigned char *tail, size_t size) {
  for (size_t i = size; i > 0; --i) {
    if (tail[i - 1] != kGuardByte) return i;
  }
  return 0;
}

// How far before the start of the data the writes reached: distance from the first changed byte of the front
// zone to the data.
inline size_t BytesWrittenBefore(const unsigned char *front, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (front[i] != kGuardByte) return size - i;
  }
  return 0;
}

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_OUTPUT_GUARD_H_
