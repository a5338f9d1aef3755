// npusim AICPU compatibility header (MindSpore path inc/kernel_log.h): context-taking log and check macros.
#ifndef NPUSIM_AICPU_INC_KERNEL_LOG_H
#define NPUSIM_AICPU_INC_KERNEL_LOG_H

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <utility>

#include "../common/kernel_errcode.h"
#include "../cust_cpu_utils.h"
#include "../log.h"
#include "../status.h"

// GetTid() (MindSpore's log prefix helper, which kernels call too) comes with ../log.h.

#ifndef AICPU_LOGEVENT
#define AICPU_LOGEVENT(fmt, ...) KERNEL_LOG_EVENT(fmt, ##__VA_ARGS__);
#endif

// Returns a non-zero status of `expr` from the enclosing function.
#ifndef AICPU_CHK_STATUS_RET
#define AICPU_CHK_STATUS_RET(...)                                        \
  do {                                                                   \
    const uint32_t npusim_chk_status_ = (__VA_ARGS__);                   \
    if (npusim_chk_status_ != ::aicpu::kAicpuKernelStateSucess) {        \
      return npusim_chk_status_;                                         \
    }                                                                    \
  } while (0);
#endif

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

// A brace block, as KERNEL_HANDLE_ERROR in ../log.h: valid with and without a following `;`.
#define CUST_KERNEL_HANDLE_ERROR(ctx, expression, ...)                              \
  {                                                                                 \
    const uint32_t npusim_handle_status_ = static_cast<uint32_t>(expression);       \
    if (npusim_handle_status_ != 0U) {                                              \
      CUST_AICPU_LOGE(ctx, __VA_ARGS__);                                            \
      return npusim_handle_status_;                                                 \
    }                                                                               \
  }

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
