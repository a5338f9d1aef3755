// npusim AICPU compatibility header: CustCpuKernelUtils and the CUST_KERNEL_LOG_* macros (context-taking logs).
#ifndef NPUSIM_AICPU_CUST_CPU_UTILS_H
#define NPUSIM_AICPU_CUST_CPU_UTILS_H

#include "cpu_context.h"
#include "log.h"

namespace aicpu {
class AICPU_VISIBILITY CustCpuKernelUtils {
 public:
  static void CustLogDebug(const CpuKernelContext &ctx, const char *fmt, ...);
  static void CustLogInfo(const CpuKernelContext &ctx, const char *fmt, ...);
  static void CustLogWarning(const CpuKernelContext &ctx, const char *fmt, ...);
  static void CustLogError(const CpuKernelContext &ctx, const char *fmt, ...);
};
}  // namespace aicpu

#define NPUSIM_CUST_LOG(method, ctx, fmt, ...) \
  ::aicpu::CustCpuKernelUtils::method(ctx, "%s:%d %s: " fmt, ::aicpu::npusim_log::BaseName(__FILE__), __LINE__, \
                                      __func__, ##__VA_ARGS__)

#define CUST_KERNEL_LOG_DEBUG(ctx, fmt, ...) NPUSIM_CUST_LOG(CustLogDebug, ctx, fmt, ##__VA_ARGS__)
#define CUST_KERNEL_LOG_INFO(ctx, fmt, ...) NPUSIM_CUST_LOG(CustLogInfo, ctx, fmt, ##__VA_ARGS__)
#define CUST_KERNEL_LOG_WARNING(ctx, fmt, ...) NPUSIM_CUST_LOG(CustLogWarning, ctx, fmt, ##__VA_ARGS__)
#define CUST_KERNEL_LOG_WARN(ctx, fmt, ...) NPUSIM_CUST_LOG(CustLogWarning, ctx, fmt, ##__VA_ARGS__)
#define CUST_KERNEL_LOG_ERROR(ctx, fmt, ...) NPUSIM_CUST_LOG(CustLogError, ctx, fmt, ##__VA_ARGS__)

#endif  // NPUSIM_AICPU_CUST_CPU_UTILS_H
