// CpuKernelContext and CpuKernelUtils object creation of npusim's AICPU runtime.
#include "cpu_kernel_utils.h"
#include "log.h"
#include "rt_internal.h"
#include "status.h"

namespace aicpu {

CpuKernelContext::CpuKernelContext(DeviceType type) : device_type_(type) {}

uint32_t CpuKernelContext::Init(NodeDef *node_def) {
  if (node_def == nullptr) {
    KERNEL_LOG_ERROR("CpuKernelContext::Init: the NodeDef is null.");
    return KERNEL_STATUS_PARAM_INVALID;
  }
  op_ = node_def->GetOpType();
  inputs_.clear();
  outputs_.clear();
  attrs_.clear();
  for (int32_t i = 0; i < node_def->InputsSize(); ++i) {
    std::shared_ptr<Tensor> input = node_def->MutableInputs(i);
    KERNEL_CHECK_NULLPTR(input, KERNEL_STATUS_PARAM_INVALID, "CpuKernelContext::Init: input %d of op [%s] is null.",
                         i, op_.c_str())
    inputs_.push_back(std::move(input));
  }
  for (int32_t i = 0; i < node_def->OutputsSize(); ++i) {
    std::shared_ptr<Tensor> output = node_def->MutableOutputs(i);
    KERNEL_CHECK_NULLPTR(output, KERNEL_STATUS_PARAM_INVALID,
                         "CpuKernelContext::Init: output %d of op [%s] is null.", i, op_.c_str())
    outputs_.push_back(std::move(output));
  }
  for (const auto &entry : node_def->Attrs()) {
    KERNEL_CHECK_NULLPTR(entry.second, KERNEL_STATUS_PARAM_INVALID,
                         "CpuKernelContext::Init: attribute '%s' of op [%s] is null.", entry.first.c_str(), op_.c_str())
    attrs_[entry.first] = entry.second;
  }
  return KERNEL_STATUS_OK;
}

std::string CpuKernelContext::GetOpType() const { return op_; }

Tensor *CpuKernelContext::Input(uint32_t index) const {
  return index < inputs_.size() ? inputs_[index].get() : nullptr;
}

Tensor *CpuKernelContext::Output(uint32_t index) const {
  return index < outputs_.size() ? outputs_[index].get() : nullptr;
}

AttrValue *CpuKernelContext::GetAttr(std::string name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : it->second.get();
}

uint32_t CpuKernelContext::GetInputsSize() const { return static_cast<uint32_t>(inputs_.size()); }
uint32_t CpuKernelContext::GetOutputsSize() const { return static_cast<uint32_t>(outputs_.size()); }

std::shared_ptr<Tensor> CpuKernelUtils::CreateTensor() { return npusim_rt::Access::NewTensor(); }
std::shared_ptr<TensorShape> CpuKernelUtils::CreateTensorShape() { return npusim_rt::Access::NewShape(); }
std::shared_ptr<AttrValue> CpuKernelUtils::CreateAttrValue() { return npusim_rt::Access::NewAttr(); }

}  // namespace aicpu
