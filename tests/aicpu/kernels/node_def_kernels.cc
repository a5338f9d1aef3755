// Kernels that build a NodeDef and a sub-context (CpuKernelContext::Init), as kernels that run other kernels do:
//  - AddViaNodeDef: describes its own call as a "BcastAdd" NodeDef (NodeDefBuilder), runs it through the
//    registry on a sub-context and returns that kernel's status.
//  - NodeDefProbe: exercises the NodeDef API and reports what it saw as int64 values (see the test).
#include <cstdint>
#include <vector>

#include "cpu_kernel/inc/cpu_ops_kernel.h"
#include "cpu_kernel_register.h"
#include "cpu_kernel_utils.h"
#include "cpu_kernel/common/cpu_node_def.h"
#include "inc/kernel_log.h"
#include "cpu_kernel/common/node_def_builder.h"
#include "utils/kernel_util.h"

namespace {
const char *kAddViaNodeDef = "AddViaNodeDef";
const char *kNodeDefProbe = "NodeDefProbe";
}  // namespace

namespace aicpu {
class AddViaNodeDefCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 2, 1), "[%s] check params failed.", kAddViaNodeDef);
    auto node_def = CpuKernelUtils::CreateNodeDef();
    KERNEL_CHECK_NULLPTR(node_def, KERNEL_STATUS_INNER_ERROR, "[%s] CreateNodeDef failed.", kAddViaNodeDef)
    NodeDefBuilder(node_def.get(), "add", "BcastAdd")
        .Input(Describe("x1", ctx.Input(0)))
        .Input(Describe("x2", ctx.Input(1)))
        .Output(Describe("y", ctx.Output(0)));
    CpuKernelContext sub_ctx(DEVICE);
    KERNEL_HANDLE_ERROR(sub_ctx.Init(node_def.get()), "[%s] sub-context Init failed.", kAddViaNodeDef);
    uint32_t status = CpuKernelRegister::Instance().RunCpuKernel(sub_ctx);
    KERNEL_LOG_INFO("[%s] BcastAdd on the sub-context returned %u.", kAddViaNodeDef, status);
    return status;
  }

 private:
  static NodeDefBuilder::InputOutputNode Describe(const char *name, Tensor *tensor) {
    return {name, tensor->GetDataType(), tensor->GetTensorShape()->GetDimSizes(), tensor->GetData(),
            tensor->GetTensorShape()->GetFormat()};
  }
};

// Output 0 (int64, 16 values), in order:
//  InputsSize, OutputsSize, GetOpType()=="Probe", first AddAttrs, repeated AddAttrs, AddAttrs(nullptr),
//  the stored "k" after the caller's AttrValue changed, MutableInputs(5)==nullptr, SerializeToString,
//  Init(nullptr), Init(node_def), sub GetInputsSize, sub GetOutputsSize, sub GetAttr("k")->GetInt(),
//  sub Input(1) is the NodeDef's tensor, sub Input(1) dims product (shape set through MutableInputs)
class NodeDefProbeCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    auto out = reinterpret_cast<int64_t *>(ctx.Output(0)->GetData());
    auto node_def = CpuKernelUtils::CreateNodeDef();
    node_def->SetOpType("Probe");
    node_def->AddInputs();
    node_def->AddInputs()->GetTensorShape()->SetDimSizes({2, 3});
    node_def->AddOutputs();
    auto attr = CpuKernelUtils::CreateAttrValue();
    attr->SetInt(41);
    int64_t *w = out;
    *w++ = node_def->InputsSize();
    *w++ = node_def->OutputsSize();
    *w++ = node_def->GetOpType() == "Probe";
    *w++ = node_def->AddAttrs("k", attr.get());
    *w++ = node_def->AddAttrs("k", attr.get());
    *w++ = node_def->AddAttrs("null", nullptr);
    attr->SetInt(99);  // the NodeDef holds its own copy
    *w++ = node_def->Attrs().at("k")->GetInt();
    *w++ = node_def->MutableInputs(5) == nullptr;
    std::string wire;
    *w++ = node_def->SerializeToString(wire);
    CpuKernelContext sub_ctx(HOST);
    *w++ = sub_ctx.Init(nullptr);
    *w++ = sub_ctx.Init(node_def.get());
    *w++ = sub_ctx.GetInputsSize();
    *w++ = sub_ctx.GetOutputsSize();
    *w++ = sub_ctx.GetAttr("k") == nullptr ? -1 : sub_ctx.GetAttr("k")->GetInt();
    *w++ = sub_ctx.Input(1) == node_def->MutableInputs(1).get();
    *w++ = sub_ctx.Input(1)->GetTensorShape()->NumElements();
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kAddViaNodeDef, AddViaNodeDefCpuKernel);
REGISTER_CPU_KERNEL(kNodeDefProbe, NodeDefProbeCpuKernel);
}  // namespace aicpu
