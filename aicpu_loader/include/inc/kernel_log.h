// npusim AICPU compatibility header (MindSpore path inc/kernel_log.h): context-taking log and check macros.
#ifndef NPUSIM_AICPU_INC_KERNEL_LOG_H
#define NPUSIM_AICPU_INC_KERNEL_LOG_H

#include <cstdint>

#include "../cust_cpu_utils.h"
#include "../log.h"
#include "../status.h"

#define CUST_AICPU_LOGD(ctx, fmt, ...) CUST_KERNEL_LOG_DEBUG(ctx, fmt, ##__VA_ARGS__)
#define CUST_AICPU_LOGI(ctx, fmt, ...) CUST_KERNEL_LOG_INFO(ctx, fmt, ##__VA_ARGS__)
#define CUST_AICPU_LOGW(ctx, fmt, ...) CUST_KERNEL_LOG_WARNING(ctx, fmt, ##__VA_ARGS__)
#define CUST_AICPU_LOGE(ctx, fmt, ...) CUST_KERNEL_LOG_ERROR(ctx, fmt, ##__VA_ARGS__)

#define CUST_KERNEL_CHECK_NULLPTR_VOID(ctx, value, ...) \
  if ((value) == nullptr) {                             \
    CUST_AICPU_LOGE(ctx, __VA_ARGS__);                  \
    return;                                             \
  }

#define CUST_KERNEL_CHECK_NULLPTR(ctx, value, errorCode, ...) \
  if ((value) == nullptr) {                                   \
    CUST_AICPU_LOGE(ctx, __VA_ARGS__);                        \
    return errorCode;                                         \
  }

#define CUST_KERNEL_CHECK_FALSE(ctx, condition, errorCode, ...) \
  if (!(condition)) {                                           \
    CUST_AICPU_LOGE(ctx, __VA_ARGS__);                          \
    return errorCode;                                           \
  }

#define CUST_KERNEL_CHECK_FALSE_VOID(ctx, condition, ...) \
  if (!(condition)) {                                     \
    CUST_AICPU_LOGE(ctx, __VA_ARGS__);                    \
    return;                                               \
  }

#define CUST_KERNEL_HANDLE_ERROR(ctx, expression, ...)  \
  ;                                                     \
  do {                                                  \
    uint32_t npusim_status_ = (expression);             \
    if (npusim_status_ != static_cast<uint32_t>(0)) {   \
      CUST_AICPU_LOGE(ctx, __VA_ARGS__);                \
      return npusim_status_;                            \
    }                                                   \
  } while (0)

#define CUST_KERNEL_CHECK_ASSIGN_64S_MULTI(ctx, A, B, result, errorCode)                         \
  do {                                                                                           \
    if ((A) != 0 && (B) != 0 && ((INT64_MAX) / (A)) <= (B)) {                                    \
      CUST_AICPU_LOGE(ctx, "Integer overflow: %lld * %lld", (long long)(A), (long long)(B));     \
      return errorCode;                                                                          \
    }                                                                                            \
    (result) = ((A) * (B));                                                                      \
  } while (0)

#ifndef RETURN_IF_FAILURE
#define RETURN_IF_FAILURE(expr)                                      \
  do {                                                               \
    auto npusim_status_ = (expr);                                    \
    if (npusim_status_ != ::aicpu::KERNEL_STATUS_OK) {               \
      return npusim_status_;                                         \
    }                                                                \
  } while (0)
#endif

#endif  // NPUSIM_AICPU_INC_KERNEL_LOG_H
