// NodeDef of npusim's AICPU runtime: plain storage of an op type, tensors and attributes, from which
// CpuKernelContext::Init builds a context (kernels running sub-kernels, canndev-style test harnesses).
#include "cpu_kernel_utils.h"
#include "log.h"
#include "rt_internal.h"
#include "status.h"

namespace aicpu {

bool NodeDef::ParseFromString(const std::string &) {
  KERNEL_LOG_WARN("NodeDef::ParseFromString: npusim's NodeDef has no wire format (CANN's is a protobuf); build "
                  "the NodeDef with AddInputs / AddOutputs / AddAttrs instead.");
  return false;
}

bool NodeDef::SerializeToString(std::string &) const {
  KERNEL_LOG_WARN("NodeDef::SerializeToString: npusim's NodeDef has no wire format (CANN's is a protobuf); "
                  "pass the NodeDef itself to CpuKernelContext::Init.");
  return false;
}

void NodeDef::SetOpType(const std::string &op) { op_ = op; }
std::string NodeDef::GetOpType() const { return op_; }

std::shared_ptr<Tensor> NodeDef::AddInputs() {
  inputs_.push_back(npusim_rt::Access::NewTensor());
  return inputs_.back();
}

std::shared_ptr<Tensor> NodeDef::AddOutputs() {
  outputs_.push_back(npusim_rt::Access::NewTensor());
  return outputs_.back();
}

bool NodeDef::AddAttrs(const std::string &name, const AttrValue *attr) {
  if (attr == nullptr) {
    KERNEL_LOG_ERROR("NodeDef[%s]: attribute '%s' is null.", op_.c_str(), name.c_str());
    return false;
  }
  if (attrs_.count(name) != 0) {
    KERNEL_LOG_ERROR("NodeDef[%s]: attribute '%s' is already present.", op_.c_str(), name.c_str());
    return false;
  }
  attrs_[name] = npusim_rt::Access::CopyAttr(*attr);
  return true;
}

int32_t NodeDef::InputsSize() const { return static_cast<int32_t>(inputs_.size()); }
int32_t NodeDef::OutputsSize() const { return static_cast<int32_t>(outputs_.size()); }

std::shared_ptr<Tensor> NodeDef::MutableInputs(int32_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= inputs_.size()) {
    KERNEL_LOG_ERROR("NodeDef[%s]: input index %d is out of range (%zu inputs).", op_.c_str(), index,
                     inputs_.size());
    return nullptr;
  }
  return inputs_[static_cast<size_t>(index)];
}

std::shared_ptr<Tensor> NodeDef::MutableOutputs(int32_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= outputs_.size()) {
    KERNEL_LOG_ERROR("NodeDef[%s]: output index %d is out of range (%zu outputs).", op_.c_str(), index,
                     outputs_.size());
    return nullptr;
  }
  return outputs_[static_cast<size_t>(index)];
}

std::unordered_map<std::string, std::shared_ptr<AttrValue>> NodeDef::Attrs() const { return attrs_; }

std::shared_ptr<NodeDef> CpuKernelUtils::CreateNodeDef() { return npusim_rt::Access::NewNodeDef(); }

namespace npusim_rt {

std::shared_ptr<AttrValue> Access::CopyAttr(const AttrValue &from) {
  std::shared_ptr<AttrValue> to = NewAttr();
  to->s_ = from.s_;
  to->i_ = from.i_;
  to->f_ = from.f_;
  to->b_ = from.b_;
  to->type_ = from.type_;
  to->list_s_ = from.list_s_;
  to->list_i_ = from.list_i_;
  to->list_f_ = from.list_f_;
  to->list_b_ = from.list_b_;
  to->list_type_ = from.list_type_;
  to->list_list_i_ = from.list_list_i_;
  if (from.shape_ != nullptr) to->shape_ = std::make_shared<TensorShape>(*from.shape_);
  for (const auto &shape : from.list_shape_) to->list_shape_.push_back(std::make_shared<TensorShape>(*shape));
  if (from.tensor_ != nullptr) to->tensor_ = std::make_shared<Tensor>(*from.tensor_);
  for (const auto &tensor : from.list_tensor_) to->list_tensor_.push_back(std::make_shared<Tensor>(*tensor));
  return to;
}

}  // namespace npusim_rt
}  // namespace aicpu
