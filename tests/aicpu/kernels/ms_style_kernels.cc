// Test kernels written the MindSpore way (inc/ms_cpu_kernel.h, inc/kernel_log.h, CUST_KERNEL_* macros):
// AttrEcho reports every attribute kind back so tests can check what reached AttrValue.
#include <securec.h>

#include <string>
#include <vector>

#include "context/common/status.h"
#include "context/inc/cpu_kernel_utils.h"
#include "cpu_types.h"
#include "cust_cpu_utils.h"
#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"

namespace aicpu {
namespace {
const char *kAttrEcho = "AttrEcho";

void Push(std::vector<double> &out, const std::vector<int64_t> &values) {
  out.push_back(static_cast<double>(values.size()));
  for (int64_t v : values) out.push_back(static_cast<double>(v));
}
}  // namespace

// Output 0 (float64, dynamic): i f b, then listInt, listFloat, listBool, listListInt as (count, values...);
// output 1 (uint8, dynamic): s + "|" + the listStr items joined by ",".  A missing attribute → PARAM_INVALID.
class AttrEchoKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    for (const char *name : {"i", "f", "b", "s", "li", "lf", "lb", "ls", "lli"}) {
      CUST_KERNEL_CHECK_NULLPTR(ctx, ctx.GetAttr(name), KERNEL_STATUS_PARAM_INVALID, "missing attr %s", name);
    }
    std::vector<double> values = {static_cast<double>(ctx.GetAttr("i")->GetInt()), ctx.GetAttr("f")->GetFloat(),
                                  ctx.GetAttr("b")->GetBool() ? 1.0 : 0.0};
    Push(values, ctx.GetAttr("li")->GetListInt());
    std::vector<float> floats = ctx.GetAttr("lf")->GetListFloat();
    values.push_back(static_cast<double>(ctx.GetAttr("lf")->ListFloatSize()));
    for (float f : floats) values.push_back(f);
    std::vector<bool> bools = ctx.GetAttr("lb")->GetListBool();
    values.push_back(static_cast<double>(bools.size()));
    for (bool b : bools) values.push_back(b ? 1.0 : 0.0);
    std::vector<std::vector<int64_t>> rows = ctx.GetAttr("lli")->GetListListInt();
    values.push_back(static_cast<double>(rows.size()));
    for (const auto &row : rows) Push(values, row);
    Tensor *numbers = ctx.Output(0);
    CUST_KERNEL_CHECK_FALSE(ctx, memcpy_s(numbers->GetData(), numbers->GetDataSize(), values.data(),
                                          values.size() * sizeof(double)) == EOK,
                            KERNEL_STATUS_PARAM_INVALID, "numbers output too small");
    numbers->GetTensorShape()->SetDimSizes({static_cast<int64_t>(values.size())});
    std::string text = ctx.GetAttr("s")->GetString() + "|";
    std::vector<std::string> strings = ctx.GetAttr("ls")->GetListString();
    for (size_t i = 0; i < strings.size(); ++i) text += (i ? "," : "") + strings[i];
    Tensor *chars = ctx.Output(1);
    CUST_KERNEL_CHECK_FALSE(ctx, memcpy_s(chars->GetData(), chars->GetDataSize(), text.data(), text.size()) == EOK,
                            KERNEL_STATUS_PARAM_INVALID, "text output too small");
    chars->GetTensorShape()->SetDimSizes({static_cast<int64_t>(text.size())});
    CUST_KERNEL_LOG_INFO(ctx, "echoed %zu numbers", values.size());
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kAttrEcho, AttrEchoKernel);
}  // namespace aicpu
