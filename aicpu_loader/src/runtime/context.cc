// CpuKernelContext and CpuKernelUtils object creation of npusim's AICPU runtime.
#include "cpu_kernel_utils.h"
#include "rt_internal.h"
#include "status.h"

namespace aicpu {

CpuKernelContext::CpuKernelContext(DeviceType type) : device_type_(type) {}

uint32_t CpuKernelContext::Init(NodeDef *) { return KERNEL_STATUS_PARAM_INVALID; }

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
