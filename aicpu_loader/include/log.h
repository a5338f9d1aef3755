// npusim AICPU compatibility header: KERNEL_LOG_* and KERNEL_CHECK_* macros.
// The check macros expand to a bare `if` (not do/while) because kernels use them with and without a semicolon.
#ifndef NPUSIM_AICPU_LOG_H
#define NPUSIM_AICPU_LOG_H

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
#define AICPU_LOGD(fmt, ...) KERNEL_LOG_DEBUG(fmt, ##__VA_ARGS__)
#define AICPU_LOGI(fmt, ...) KERNEL_LOG_INFO(fmt, ##__VA_ARGS__)
#define AICPU_LOGW(fmt, ...) KERNEL_LOG_WARN(fmt, ##__VA_ARGS__)
#define AICPU_LOGE(fmt, ...) KERNEL_LOG_ERROR(fmt, ##__VA_ARGS__)
#define AICPU_EVENT(fmt, ...) KERNEL_LOG_EVENT(fmt, ##__VA_ARGS__)
#endif

#define KERNEL_CHECK_NULLPTR_VOID(value, ...) \
  if ((value) == nullptr) {                   \
    KERNEL_LOG_ERROR(__VA_ARGS__);            \
    return;                                   \
  }

#define KERNEL_CHECK_NULLPTR(value, errorCode, ...) \
  if ((value) == nullptr) {                         \
    KERNEL_LOG_ERROR(__VA_ARGS__);                  \
    return errorCode;                               \
  }

#define KERNEL_CHECK_FALSE(condition, errorCode, ...) \
  if (!(condition)) {                                 \
    KERNEL_LOG_ERROR(__VA_ARGS__);                    \
    return errorCode;                                 \
  }

#define KERNEL_CHECK_FALSE_VOID(condition, ...) \
  if (!(condition)) {                           \
    KERNEL_LOG_ERROR(__VA_ARGS__);              \
    return;                                     \
  }

#define KERNEL_CHECK_FALSE_EXEC(condition, ...) \
  if (!(condition)) {                           \
    __VA_ARGS__;                                \
  }

#define KERNEL_HANDLE_ERROR(expression, ...)                      \
  ;                                                               \
  do {                                                            \
    uint32_t npusim_status_ = (expression);                       \
    if (npusim_status_ != static_cast<uint32_t>(0)) {             \
      KERNEL_LOG_ERROR(__VA_ARGS__);                              \
      return npusim_status_;                                      \
    }                                                             \
  } while (0)

#define KERNEL_CHECK_ASSIGN_64S_MULTI(A, B, result, errorCode)                               \
  do {                                                                                       \
    if ((A) != 0 && (B) != 0 && ((INT64_MAX) / (A)) <= (B)) {                                \
      KERNEL_LOG_ERROR("Integer overflow: %lld * %lld", (long long)(A), (long long)(B));     \
      return errorCode;                                                                      \
    }                                                                                        \
    (result) = ((A) * (B));                                                                  \
  } while (0)

#define AICPU_CHECK_NULLPTR(value, errorCode, ...) KERNEL_CHECK_NULLPTR(value, errorCode, __VA_ARGS__)
#define AICPU_CHECK_NULLPTR_VOID(value, ...) KERNEL_CHECK_NULLPTR_VOID(value, __VA_ARGS__)
#define AICPU_CHECK_FALSE(condition, errorCode, ...) KERNEL_CHECK_FALSE(condition, errorCode, __VA_ARGS__)

#endif  // NPUSIM_AICPU_LOG_H
