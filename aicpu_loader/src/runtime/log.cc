// Per-call log capture of npusim's AICPU runtime: KERNEL_LOG_* / CUST_KERNEL_LOG_* lines go to the log buffer
// of the call in progress (a region of the shared memory, readable by Python even if the kernel then crashes).
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "cust_cpu_utils.h"
#include "rt_internal.h"

namespace aicpu {
namespace {

constexpr size_t kLineBytes = 4096;
constexpr const char kTruncatedNote[] = "[npusim] log truncated\n";

struct LogState {
  std::mutex mu;
  char *text = nullptr;
  uint64_t capacity = 0;
  uint64_t *size = nullptr;
  bool truncated = false;
};

LogState &State() {
  static LogState *state = new LogState();  // never destroyed: kernel threads may log during exit
  return *state;
}

const char *LevelName(int level) {
  switch (level) {
    case npusim_log::kDebug: return "DEBUG";
    case npusim_log::kInfo: return "INFO";
    case npusim_log::kWarn: return "WARN";
    case npusim_log::kError: return "ERROR";
    default: return "EVENT";
  }
}

void AppendLocked(LogState &state, const char *line) {
  size_t length = std::strlen(line);
  uint64_t used = *state.size;
  uint64_t reserve = sizeof(kTruncatedNote);
  if (used + length + 1 + reserve > state.capacity) {
    if (!state.truncated && used + reserve <= state.capacity) {
      std::memcpy(state.text + used, kTruncatedNote, sizeof(kTruncatedNote) - 1);
      *state.size = used + sizeof(kTruncatedNote) - 1;
    }
    state.truncated = true;
    return;
  }
  std::memcpy(state.text + used, line, length);
  state.text[used + length] = '\n';
  *state.size = used + length + 1;
}

void EmitLine(int level, const char *prefix, const char *message) {
  char line[kLineBytes + 256];
  std::snprintf(line, sizeof(line), "[%s] %s%s", LevelName(level), prefix, message);
  npusim_rt::AppendLogLine(line);
}

}  // namespace

namespace npusim_rt {

void AppendLogLine(const char *line) {
  LogState &state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.text == nullptr || state.size == nullptr) {
    std::fprintf(stderr, "[npusim aicpu] %s\n", line);
    return;
  }
  AppendLocked(state, line);
}

LogCapture::LogCapture(NpusimAicpuCall &call) {
  LogState &state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.text = call.log_text;
  state.capacity = call.log_capacity;
  state.size = call.log_size;
  state.truncated = false;
}

LogCapture::~LogCapture() {
  LogState &state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.text = nullptr;
  state.size = nullptr;
  state.capacity = 0;
}

}  // namespace npusim_rt

namespace npusim_log {

void Write(int level, const char *file, int line, const char *func, const char *fmt, ...) {
  char message[kLineBytes];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  char prefix[512];
  std::snprintf(prefix, sizeof(prefix), "%s:%d %s: ", BaseName(file), line, func);
  EmitLine(level, prefix, message);
}

void WriteV(int level, const char *fmt, va_list args) {
  char message[kLineBytes];
  std::vsnprintf(message, sizeof(message), fmt, args);
  EmitLine(level, "", message);
}

}  // namespace npusim_log

#define NPUSIM_CUST_LOG_BODY(level)   \
  va_list args;                       \
  va_start(args, fmt);                \
  npusim_log::WriteV(level, fmt, args); \
  va_end(args)

void CustCpuKernelUtils::CustLogDebug(const CpuKernelContext &, const char *fmt, ...) {
  NPUSIM_CUST_LOG_BODY(npusim_log::kDebug);
}
void CustCpuKernelUtils::CustLogInfo(const CpuKernelContext &, const char *fmt, ...) {
  NPUSIM_CUST_LOG_BODY(npusim_log::kInfo);
}
void CustCpuKernelUtils::CustLogWarning(const CpuKernelContext &, const char *fmt, ...) {
  NPUSIM_CUST_LOG_BODY(npusim_log::kWarn);
}
void CustCpuKernelUtils::CustLogError(const CpuKernelContext &, const char *fmt, ...) {
  NPUSIM_CUST_LOG_BODY(npusim_log::kError);
}

}  // namespace aicpu
