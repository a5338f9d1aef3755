// A canndev-style kernel unit test without gtest: NodeDefBuilder describes a call, CpuKernelContext::Init builds
// the context and CpuKernelRegister runs the kernel in this process (linked with bcast_kernels.cc and npusim's
// runtime archive).  Prints one line per case and exits non-zero on the first wrong result.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu_kernel_utils.h"
#include "node_def_builder.h"

using namespace aicpu;

#define CREATE_NODEDEF(op, shapes, datas)                                                    \
  auto node_def = CpuKernelUtils::CreateNodeDef();                                           \
  NodeDefBuilder(node_def.get(), op, op)                                                     \
      .Input({"x1", DT_FLOAT, (shapes)[0], (datas)[0]})                                      \
      .Input({"x2", DT_FLOAT, (shapes)[1], (datas)[1]})                                      \
      .Output({"y", DT_FLOAT, (shapes)[2], (datas)[2]})

#define RUN_KERNEL(node_def, device_type, result)                 \
  std::string node_def_str;                                       \
  node_def->SerializeToString(node_def_str);                      \
  CpuKernelContext ctx(device_type);                              \
  uint32_t init_status = ctx.Init(node_def.get());                \
  uint32_t result = CpuKernelRegister::Instance().RunCpuKernel(ctx)

static int RunCase(const char *op, std::vector<std::vector<int64_t>> shapes, std::vector<float> x,
                   std::vector<float> y, std::vector<float> expected, uint32_t expected_status) {
  std::vector<float> out(expected.empty() ? 1 : expected.size(), -1.0f);
  std::vector<void *> datas = {x.data(), y.data(), out.data()};
  CREATE_NODEDEF(op, shapes, datas);
  RUN_KERNEL(node_def, HOST, status);
  bool ok = init_status == KERNEL_STATUS_OK && status == expected_status;
  for (size_t i = 0; ok && i < expected.size(); ++i) ok = std::fabs(out[i] - expected[i]) < 1e-6f;
  std::printf("%s %s status=%u init=%u\n", ok ? "ok" : "FAIL", op, status, init_status);
  return ok ? 0 : 1;
}

int main() {
  int failures = 0;
  // [2, 3] + [3]
  failures += RunCase("BcastAdd", {{2, 3}, {3}, {2, 3}}, {0, 1, 2, 3, 4, 5}, {10, 20, 30},
                      {10, 21, 32, 13, 24, 35}, KERNEL_STATUS_OK);
  // [2, 1] * [1, 3]
  failures += RunCase("BcastMul", {{2, 1}, {1, 3}, {2, 3}}, {2, 3}, {1, 10, 100}, {2, 20, 200, 3, 30, 300},
                      KERNEL_STATUS_OK);
  // [2] * [3] does not broadcast: the kernel's PARAM_INVALID
  failures += RunCase("BcastMul", {{2}, {3}, {3}}, {1, 2}, {1, 2, 3}, {}, KERNEL_STATUS_PARAM_INVALID);
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
