// npusim's logging entry points behind the KERNEL_LOG_* / CUST_KERNEL_LOG_* macros (not part of the CANN API).
// Lines logged during a call are captured for that call and travel back to Python with its result.
#ifndef NPUSIM_AICPU_LOG_SINK_H
#define NPUSIM_AICPU_LOG_SINK_H

#include <cstdarg>
#include <cstring>

namespace aicpu {
namespace npusim_log {
enum Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kEvent = 4 };

// Formats one line "[LEVEL] file:line func: message" and appends it to the current call's log.
void Write(int level, const char *file, int line, const char *func, const char *fmt, ...);
// Same with a ready va_list and no location prefix (used by CustCpuKernelUtils).
void WriteV(int level, const char *fmt, va_list args);
// The file name part of a path (__FILE__ in log lines).
inline const char *BaseName(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash == nullptr ? path : slash + 1;
}
}  // namespace npusim_log
}  // namespace aicpu

#define NPUSIM_AICPU_LOG_AT(level, fmt, ...) \
  ::aicpu::npusim_log::Write(level, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)

#endif  // NPUSIM_AICPU_LOG_SINK_H
