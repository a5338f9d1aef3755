// Test kernels written the canndev way (REGISTER_CPU_KERNEL, utils/kernel_util.h, KERNEL_LOG_*), used by
// tests/aicpu to check the runtime: context introspection, ParallelFor, crashes, statuses, timeouts.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "cpu_kernel.h"
#include "cpu_kernel_register.h"
#include "cpu_kernel_utils.h"
#include "log.h"
#include "securec.h"
#include "status.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *kIntrospect = "Introspect";
const char *kParallelCover = "ParallelCover";
const char *kCrash = "Crash";
const char *kSleep = "Sleep";
const char *kFail = "Fail";
const char *kThrow = "Throw";
const char *kOverflow = "Overflow";
const char *kFreshObject = "FreshObject";
}  // namespace

// Output 0 (int64, 12 slots): inputs, outputs, input rank, input elements, input dtype, input format,
// output-1 unknown rank, input 64-byte aligned, missing attr is null, CPU count, output 1 elements, data size.
class IntrospectKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_CHECK_FALSE(ctx.GetOutputsSize() >= 1, KERNEL_STATUS_PARAM_INVALID, "need an output");
    int64_t *out = static_cast<int64_t *>(ctx.Output(0)->GetData());
    Tensor *x = ctx.Input(0);
    std::shared_ptr<TensorShape> shape = x->GetTensorShape();
    Tensor *second = ctx.Output(1);
    out[0] = ctx.GetInputsSize();
    out[1] = ctx.GetOutputsSize();
    out[2] = shape->GetDims();
    out[3] = x->NumElements();
    out[4] = x->GetDataType();
    out[5] = shape->GetFormat();
    out[6] = second ? second->GetTensorShape()->GetUnknownRank() : -1;
    out[7] = AddrAlignedCheck(x->GetData(), 64);
    out[8] = ctx.GetAttr("no_such_attr") == nullptr && ctx.Input(ctx.GetInputsSize()) == nullptr;
    out[9] = CpuKernelUtils::GetCPUNum(ctx);
    out[10] = second ? second->NumElements() : -1;
    out[11] = static_cast<int64_t>(x->GetDataSize());
    if (second != nullptr) second->GetTensorShape()->SetDimSizes({0});
    return KERNEL_STATUS_OK;
  }
};

// Output 0 (int32, total slots): how often each index was visited; output 1 (int64[2]): distinct threads, ranges.
class ParallelCoverKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 2, {"per_unit"}), "ParallelCover check failed");
    const int64_t total = ctx.Output(0)->NumElements();
    int32_t *visits = static_cast<int32_t *>(ctx.Output(0)->GetData());
    (void)memset_s(visits, ctx.Output(0)->GetDataSize(), 0, ctx.Output(0)->GetDataSize());
    std::mutex mu;
    std::set<std::thread::id> threads;
    int64_t ranges = 0;
    uint32_t status = CpuKernelUtils::ParallelFor(ctx, total, ctx.GetAttr("per_unit")->GetInt(),
                                                  [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) visits[i] += 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let every pool thread take a range
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
      ++ranges;
    });
    int64_t *stats = static_cast<int64_t *>(ctx.Output(1)->GetData());
    stats[0] = static_cast<int64_t>(threads.size());
    stats[1] = ranges;
    return status;
  }
};

class CrashKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    std::string how = ctx.GetAttr("how") ? ctx.GetAttr("how")->GetString() : "segv";
    KERNEL_LOG_ERROR("about to crash by %s", how.c_str());
    if (how == "abort") std::abort();
    if (how == "exit") std::exit(7);
    if (how == "thread_segv") {
      CpuKernelUtils::ParallelFor(ctx, 4, 1, [](int64_t, int64_t) { raise(SIGSEGV); });
    }
    volatile int *null_pointer = nullptr;
    *null_pointer = 42;
    return KERNEL_STATUS_OK;
  }
};

class SleepKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_LOG_INFO("sleeping %lld ms", static_cast<long long>(ctx.GetAttr("ms")->GetInt()));
    usleep(static_cast<useconds_t>(ctx.GetAttr("ms")->GetInt() * 1000));
    return KERNEL_STATUS_OK;
  }
};

class FailKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    const int64_t status = ctx.GetAttr("status")->GetInt();
    KERNEL_LOG_WARN("first line");
    KERNEL_LOG_ERROR("failing on purpose with status %lld", static_cast<long long>(status));
    return static_cast<uint32_t>(status);
  }
};

class ThrowKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &) override { throw std::runtime_error("thrown on purpose"); }
};

class OverflowKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    const int64_t room = ctx.Output(0)->GetDataSize() / sizeof(float);
    ctx.Output(0)->GetTensorShape()->SetDimSizes({room + 1});
    return KERNEL_STATUS_OK;
  }
};

// A kernel with state: every call must see a fresh object (counter 1).
class FreshObjectKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    ++calls_;
    *static_cast<int64_t *>(ctx.Output(0)->GetData()) = calls_;
    return KERNEL_STATUS_OK;
  }

 private:
  int64_t calls_ = 0;
};

REGISTER_CPU_KERNEL(kIntrospect, IntrospectKernel);
REGISTER_CPU_KERNEL(kParallelCover, ParallelCoverKernel);
REGISTER_CPU_KERNEL(kCrash, CrashKernel);
REGISTER_CPU_KERNEL(kSleep, SleepKernel);
REGISTER_CPU_KERNEL(kFail, FailKernel);
REGISTER_CPU_KERNEL(kThrow, ThrowKernel);
REGISTER_CPU_KERNEL(kOverflow, OverflowKernel);
REGISTER_CPU_KERNEL(kFreshObject, FreshObjectKernel);
}  // namespace aicpu
