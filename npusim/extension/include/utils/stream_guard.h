/**
 * npusim's `utils/stream_guard.h`: `mindspore::CurrentStream` (npusim runs every launch in order on stream 0)
 * and the extension API.
 */
#ifndef NPUSIM_UTILS_STREAM_GUARD_H_
#define NPUSIM_UTILS_STREAM_GUARD_H_

#include "ms_extension/all.h"

namespace mindspore {
/// Runs its scope on a stream (npusim has one stream, so nothing changes).
class StreamGuard {
 public:
  explicit StreamGuard(size_t) {}
};
}  // namespace mindspore

#endif  // NPUSIM_UTILS_STREAM_GUARD_H_
