// npusim AICPU compatibility header: KERNEL_LOG_* and KERNEL_CHECK_* macros.
// Kernels are written against two families of these headers (canndev's utils/log.h, MindSpore's kernel_log.h) and
// rely on each macro's statement shape: canndev's check macros are bare `if` blocks and brace blocks that need no
// `;` (kernels write `KERNEL_HANDLE_ERROR(...)` directly before `}`), its KERNEL_CHECK_ERROR / KERNEL_CHECK_RET are
// do/while(0) statements (used with `;`, also as the body of an unbraced if/else), MindSpore's AICPU_LOG* end in
// their own `;`.  Each macro here keeps that shape; where the two families differ (KERNEL_HANDLE_ERROR,
// KERNEL_CHECK_ASSIGN_64S_MULTI) a brace block accepts the usages of both.  KERNEL_LOG_* are expressions.
#ifndef NPUSIM_AICPU_LOG_H
#define NPUSIM_AICPU_LOG_H

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "npusim_aicpu/log_sink.h"
#include "status.h"

#define KERNEL_LOG_DEBUG(fmt, ...) NPUSIM_AICPU_LOG_AT(::aicpu::npusim_log::kDebug, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_INFO(fmt, ...) NPUSIM_AICPU_LOG_AT(::aicpu::npusim_log::kInfo, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_WARN(fmt, ...) NPUSIM_AICPU_LOG_AT(::aicpu::npusim_log::kWarn, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_ERROR(fmt, ...) NPUSIM_AICPU_LOG_AT(::aicpu::npusim_log::kError, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_EVENT(fmt, ...) NPUSIM_AICPU_LOG_AT(::aicpu::npusim_log::kEvent, fmt, ##__VA_ARGS__)

#ifndef AICPU_LOGD
#define AICPU_LOGD(fmt, ...) KERNEL_LOG_DEBUG(fmt, ##__VA_ARGS__);
#define AICPU_LOGI(fmt, ...) KERNEL_LOG_INFO(fmt, ##__VA_ARGS__);
#define AICPU_LOGW(fmt, ...) KERNEL_LOG_WARN(fmt, ##__VA_ARGS__);
#define AICPU_LOGE(fmt, ...) KERNEL_LOG_ERROR(fmt, ##__VA_ARGS__);
#define AICPU_EVENT(fmt, ...) KERNEL_LOG_EVENT(fmt, ##__VA_ARGS__);
#endif

// The calling thread's kernel thread id (log prefixes; kernels call it as GetTid() and aicpu::GetTid()).
inline int64_t GetTid(void) {
  thread_local static const int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
  return tid;
}
namespace aicpu {
using ::GetTid;
}  // namespace aicpu

#define KERNEL_CHECK_NULLPTR_VOID(value, ...)                                                       \
  if ((value) == nullptr) {                                                                         \
    KERNEL_LOG_ERROR(__VA_ARGS__);                                                                  \
    return;                                                                                         \
  }

#define KERNEL_CHECK_NULLPTR(value, errorCode, ...)                                                 \
  if ((value) == nullptr) {                                                                         \
    KERNEL_LOG_ERROR(__VA_ARGS__);                                                                  \
    return errorCode;                                                                               \
  }

#define KERNEL_CHECK_FALSE(condition, errorCode, ...)                                               \
  if (!(condition)) {                                                                               \
    KERNEL_LOG_ERROR(__VA_ARGS__);                                                                  \
    return errorCode;                                                                               \
  }

#define KERNEL_CHECK_FALSE_VOID(condition, ...)                                                     \
  if (!(condition)) {                                                                               \
    KERNEL_LOG_ERROR(__VA_ARGS__);                                                                  \
    return;                                                                                         \
  }

#define KERNEL_CHECK_FALSE_EXEC(condition, ...)                                                     \
  if (!(condition)) {                                                                               \
    __VA_ARGS__;                                                                                    \
  }

#define KERNEL_CHECK_FALSE_RUN_INFO(condition, errorCode, ...)                                      \
  if (!(condition)) {                                                                               \
    KERNEL_LOG_EVENT(__VA_ARGS__);                                                                  \
    return errorCode;                                                                               \
  }

// Returns a non-zero status of `expression` from the enclosing function, after logging the message.
#define KERNEL_HANDLE_ERROR(expression, ...)                                                        \
  {                                                                                                 \
    const uint32_t npusim_handle_status_ = static_cast<uint32_t>(expression);                       \
    if (npusim_handle_status_ != 0U) {                                                              \
      KERNEL_LOG_ERROR(__VA_ARGS__);                                                                \
      return npusim_handle_status_;                                                                 \
    }                                                                                               \
  }

// Returns a non-zero status of `expression` from the enclosing function (nothing logged).
#define KERNEL_CHECK_ERROR(expression)                                                              \
  do {                                                                                              \
    const uint32_t npusim_check_status_ = static_cast<uint32_t>(expression);                        \
    if (npusim_check_status_ != 0U) {                                                               \
      return npusim_check_status_;                                                                  \
    }                                                                                               \
  } while (0)

#define KERNEL_CHECK_RET(condition, errorCode)                                                      \
  do {                                                                                              \
    if (condition) {                                                                                \
      return errorCode;                                                                             \
    }                                                                                               \
  } while (0)

// result = A * B, or log and return errorCode when the product of the two (non-negative) values overflows int64.
#define KERNEL_CHECK_ASSIGN_64S_MULTI(A, B, result, errorCode)                                      \
  {                                                                                                 \
    if ((A) != 0 && (B) != 0 && ((INT64_MAX) / (A)) <= (B)) {                                       \
      KERNEL_LOG_ERROR("Integer overflow: %lld * %lld", static_cast<long long>(A),                  \
                       static_cast<long long>(B));                                                  \
      return errorCode;                                                                             \
    }                                                                                               \
    (result) = ((A) * (B));                                                                         \
  }

#define AICPU_CHECK_NULLPTR(value, errorCode, ...) KERNEL_CHECK_NULLPTR(value, errorCode, __VA_ARGS__)
#define AICPU_CHECK_NULLPTR_VOID(value, ...) KERNEL_CHECK_NULLPTR_VOID(value, __VA_ARGS__)
#define AICPU_CHECK_FALSE(condition, errorCode, ...) KERNEL_CHECK_FALSE(condition, errorCode, __VA_ARGS__)

#endif  // NPUSIM_AICPU_LOG_H
