// Function<T> ops for tests/extension/test_cxx_function.py (MindSpore 2.6 / 2.7 autograd API on npusim).
#include <algorithm>
#include <string>
#include <vector>

#include "ms_extension.h"

namespace mindspore::pynative::autograd {
namespace {
ShapeVector Broadcast(const ShapeVector &a, const ShapeVector &b) {
  ShapeVector out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = std::max(da, db);
  }
  return out;
}

BaseTensorPtr MulOf(const BaseTensorPtr &a, const BaseTensorPtr &b) {
  auto out = std::make_shared<BaseTensor>(a->data_type(), Broadcast(a->shape(), b->shape()));
  custom::CustomLaunchAclnn("aclnnMul", {a, b}, {out});
  return out;
}

BaseTensorPtr AddOf(const BaseTensorPtr &a, const BaseTensorPtr &b) {
  auto out = std::make_shared<BaseTensor>(a->data_type(), Broadcast(a->shape(), b->shape()));
  custom::CustomLaunchAclnn("Add", {a, b, MakeValue<int64_t>(1)}, {out});  // "Add": the prefix is added
  return out;
}

// what the probes saw (read back by the tests)
std::vector<bool> g_forward_flags;
bool g_second_grad_null = false;
}  // namespace

// ---- the seed's multiplication (2.6 names) ---------------------------------------------------------------------
class SeedMul : public Function<SeedMul> {
 public:
  static BaseTensorPtr Forward(AutogradContext *ctx, const BaseTensorPtr &x, const BaseTensorPtr &y) {
    auto out = MulOf(x, y);
    bool gx = ctx->NeedGrad(x), gy = ctx->NeedGrad(y);
    if (gx || gy) ctx->SaveForBackward({gx ? y : nullptr, gy ? x : nullptr});
    return out;
  }
  static BaseTensorPtrList Backward(AutogradContext *ctx, BaseTensorPtrList grads) {
    auto saved = ctx->GetSavedTensors();
    BaseTensorPtr dx = ctx->NeedsInputGrad(0) ? MulOf(grads[0], saved[0]) : nullptr;
    BaseTensorPtr dy = ctx->NeedsInputGrad(1) ? MulOf(grads[0], saved[1]) : nullptr;
    return {dx, dy};
  }
};

// ---- 2.7 names: add with alpha, index with a tensor list, expand with an int array, muls with a scalar ---------
class AddOp : public Function<AddOp> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x, const TensorPtr &y) { return AddOf(x, y); }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {grads[0], grads[0]}; }
};

class PickOp : public Function<PickOp> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x, const TensorPtrList &indices) {
    ValuePtrList values;
    for (const auto &t : indices) values.push_back(t->cast<ValuePtr>());
    auto out = std::make_shared<Tensor>(x->data_type(), ShapeVector{indices[0]->shape()[0]});
    custom::CustomLaunchAclnn("aclnnIndex", {x, std::make_shared<ValueTuple>(values)}, {out});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {nullptr, nullptr}; }
};

class ExpandOp : public Function<ExpandOp> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x, const std::vector<int64_t> &shape) {
    auto out = std::make_shared<Tensor>(x->data_type(), shape);
    custom::CustomLaunchAclnn("aclnnExpand", {x, MakeValue(shape)}, {out});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {nullptr, nullptr}; }
};

class ScaleOp : public Function<ScaleOp> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x, double factor) {
    ctx->saved_data["factor"] = MakeValue(static_cast<float>(factor));
    auto out = std::make_shared<Tensor>(x->data_type(), x->shape());
    custom::CustomLaunchAclnn("aclnnMuls", {x, ctx->saved_data["factor"]}, {out});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    auto out = std::make_shared<Tensor>(grads[0]->data_type(), grads[0]->shape());
    custom::CustomLaunchAclnn("aclnnMuls", {grads[0], ctx->saved_data["factor"]}, {out});
    return {out, nullptr};
  }
};

// ---- gradient rules --------------------------------------------------------------------------------------------
class NoDiffOutput : public Function<NoDiffOutput> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x, const TensorPtr &y) {
    auto out = MulOf(x, y);
    ctx->MarkNonDifferentiable({out});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {grads[0], grads[0]}; }
};

class NoDiffInput : public Function<NoDiffInput> {
 public:
  static TensorPtrList Forward(AutogradContext *ctx, const TensorPtr &x) {
    ctx->MarkNonDifferentiable({x});
    return {x, MulOf(x, x)};
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    return {ctx->NeedsInputGrad(0) ? grads[1] : nullptr};
  }
};

class Identity : public Function<Identity> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x) { return x; }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {MulOf(grads[0], grads[0])}; }
};

class InplaceMul : public Function<InplaceMul> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x, const TensorPtr &y) {
    custom::CustomLaunchAclnn("aclnnMul", {x, y}, {x});
    ctx->MarkDirty({x});
    ctx->SaveForBackward({y});
    return x;
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    auto saved = ctx->GetSavedTensors();
    return {MulOf(grads[0], saved[0]), nullptr};
  }
};

class WrongCount : public Function<WrongCount> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x, const TensorPtr &y) { return MulOf(x, y); }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {grads[0]}; }
};

class GradForInt : public Function<GradForInt> {
 public:
  static TensorPtr Forward(AutogradContext *, const TensorPtr &x, int64_t n) {
    auto out = std::make_shared<Tensor>(x->data_type(), x->shape());
    custom::CustomLaunchAclnn("aclnnMuls", {x, MakeValue<int64_t>(n)}, {out});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *, TensorPtrList grads) { return {grads[0], grads[0]}; }
};

class MulAdd : public Function<MulAdd> {
 public:
  static TensorPtrList Forward(AutogradContext *ctx, const TensorPtr &x, const TensorPtr &y, bool materialize) {
    ctx->SetMaterializeGrads(materialize);
    ctx->SaveForBackward({x, y});
    return {MulOf(x, y), AddOf(x, y)};
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    auto saved = ctx->GetSavedTensors();
    g_second_grad_null = grads[1] == nullptr;
    TensorPtr dx = MulOf(grads[0], saved[1]), dy = MulOf(grads[0], saved[0]);
    if (grads[1] != nullptr) {
      dx = AddOf(dx, grads[1]);
      dy = AddOf(dy, grads[1]);
    }
    return {dx, dy, nullptr};
  }
};

class FlagProbe : public Function<FlagProbe> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x, int64_t k, const TensorPtr &y) {
    g_forward_flags = {ctx->NeedsInputGrad(0), ctx->NeedsInputGrad(1), ctx->NeedGrad(x), ctx->NeedGrad(y)};
    return AddOf(x, y);
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    return {ctx->NeedsInputGrad(0) ? grads[0] : nullptr, nullptr, ctx->NeedsInputGrad(1) ? grads[0] : nullptr};
  }
};

// ---- the internal pyboost route (2.6 test sources): OpRunner, PyBoostUtils, LAUNCH_ACLNN -----------------------
class PyboostMul : public Function<PyboostMul> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x, const TensorPtr &y) {
    auto out = std::make_shared<Tensor>(x->data_type(), Broadcast(x->shape(), y->shape()));
    auto prim = std::make_shared<Primitive>("CustomLaunchAclnn");
    auto op = std::make_shared<kernel::pyboost::OpRunner>(
      prim, runtime::OpRunner::GetDeviceContext(device::DeviceType::kAscend));
    op->set_stream_id(CurrentStream::id());
    op->set_outputs({out});
    kernel::pyboost::PyBoostUtils::PrepareOpInputs(op->device_context(), op->stream_id(), x, y);
    kernel::pyboost::PyBoostUtils::PrepareOpOutputs(op->device_context(), op->stream_id(), op->outputs());
    kernel::pyboost::PyBoostUtils::DispatchRun(std::make_shared<runtime::PyBoostDeviceTask>([op, x, y]() {
      MS_LOG(DEBUG) << "launch " << op->primitive()->name();
      kernel::pyboost::PyBoostUtils::MallocOpInputs(op->device_context(), x, y);
      kernel::pyboost::PyBoostUtils::MallocOpOutputs(op->device_context(), op->outputs());
      LAUNCH_ACLNN(aclnnMul, op->device_context(), op->stream_id(), x, y, op->outputs()[0]);
    }));
    ctx->SaveForBackward({x, y});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    auto saved = ctx->GetSavedTensors();
    return {MulOf(grads[0], saved[1]), MulOf(grads[0], saved[0])};
  }
};

// ---- host code: a CPU-backend op reading and writing host memory --------------------------------------------------
class HostSquare : public Function<HostSquare> {
 public:
  static TensorPtr Forward(AutogradContext *ctx, const TensorPtr &x) {
    if (x->data_type() != kNumberTypeFloat32) MS_EXCEPTION(TypeError) << "HostSquare takes Float32, got " << x->ToString();
    auto out = std::make_shared<Tensor>(x->data_type(), x->shape());
    const float *src = static_cast<const float *>(x->data_c());
    float *dst = static_cast<float *>(out->data_c());
    for (size_t i = 0; i < x->DataSize(); ++i) dst[i] = src[i] * src[i];
    ctx->SaveForBackward({x});
    return out;
  }
  static TensorPtrList Backward(AutogradContext *ctx, TensorPtrList grads) {
    auto x = ctx->GetSavedTensors()[0];
    auto dx = std::make_shared<Tensor>(x->data_type(), x->shape());
    const float *xs = static_cast<const float *>(x->data_c()), *gs = static_cast<const float *>(grads[0]->data_c());
    float *ds = static_cast<float *>(dx->data_c());
    for (size_t i = 0; i < x->DataSize(); ++i) ds[i] = 2 * xs[i] * gs[i];
    return {dx};
  }
};

BaseTensorPtr abs_reduce_sum(const BaseTensorPtr &x, const std::optional<std::vector<int64_t>> &axis, bool keepdims,
                             std::optional<int64_t> dtype) {
  auto type_id = dtype.has_value() ? static_cast<TypeId>(dtype.value()) : x->data_type();
  auto dims = axis.value_or(std::vector<int64_t>());
  ShapeVector shape;
  for (size_t i = 0; i < x->shape().size(); ++i) {
    bool reduced = dims.empty() || std::count(dims.begin(), dims.end(), static_cast<int64_t>(i)) > 0;
    if (!reduced) shape.push_back(x->shape()[i]);
    else if (keepdims) shape.push_back(1);
  }
  auto result = std::make_shared<BaseTensor>(type_id, shape);
  auto y = kernel::pyboost::abs(x);
  auto device_context = runtime::OpRunner::GetDeviceContext("Ascend");
  auto stream_id = kernel::pyboost::PyBoostUtils::cur_stream_id();
  kernel::pyboost::PyBoostUtils::DispatchRun(std::make_shared<runtime::PyBoostDeviceTask>([=]() {
    kernel::pyboost::PyBoostUtils::MallocOpOutputs(device_context, {result});
    LAUNCH_ACLNN(aclnnReduceSum, device_context, stream_id, y, dims, keepdims, type_id, result);
  }));
  return result;
}

TensorPtr launch_by_name(const std::string &api, const TensorPtr &x, int extra_inputs) {
  auto out = std::make_shared<Tensor>(x->data_type(), x->shape());
  ValuePtrList inputs(static_cast<size_t>(1 + extra_inputs), x);
  custom::CustomLaunchAclnn(api, inputs, {out});
  return out;
}

void raise_log_exception(const std::string &text) { MS_LOG(EXCEPTION) << "user error: " << text; }

std::vector<bool> forward_flags() { return g_forward_flags; }
bool second_grad_null() { return g_second_grad_null; }
}  // namespace mindspore::pynative::autograd

namespace ag = mindspore::pynative::autograd;
using mindspore::tensor::TensorPtr;
using mindspore::tensor::TensorPtrList;

PYBIND11_MODULE(MS_EXTENSION_NAME, m) {
  m.def("mul", [](const TensorPtr &x, const TensorPtr &y) { return ag::SeedMul::Apply(x, y); });
  m.def("add", [](const TensorPtr &x, const TensorPtr &y) { return ag::AddOp::Apply(x, y); });
  m.def("pick", [](const TensorPtr &x, const TensorPtrList &idx) { return ag::PickOp::Apply(x, idx); });
  m.def("expand", [](const TensorPtr &x, const std::vector<int64_t> &s) { return ag::ExpandOp::Apply(x, s); });
  m.def("scale", [](const TensorPtr &x, double f) { return ag::ScaleOp::Apply(x, f); });
  m.def("mul_no_diff_out", [](const TensorPtr &x, const TensorPtr &y) { return ag::NoDiffOutput::Apply(x, y); });
  m.def("no_diff_in", [](const TensorPtr &x) { return ag::NoDiffInput::Apply(x); });
  m.def("identity", [](const TensorPtr &x) { return ag::Identity::Apply(x); });
  m.def("inplace_mul", [](const TensorPtr &x, const TensorPtr &y) { return ag::InplaceMul::Apply(x, y); });
  m.def("wrong_count", [](const TensorPtr &x, const TensorPtr &y) { return ag::WrongCount::Apply(x, y); });
  m.def("grad_for_int", [](const TensorPtr &x, int64_t n) { return ag::GradForInt::Apply(x, n); });
  m.def("mul_add", [](const TensorPtr &x, const TensorPtr &y, bool mat) { return ag::MulAdd::Apply(x, y, mat); });
  m.def("flag_probe", [](const TensorPtr &x, int64_t k, const TensorPtr &y) { return ag::FlagProbe::Apply(x, k, y); });
  m.def("pyboost_mul", [](const TensorPtr &x, const TensorPtr &y) { return ag::PyboostMul::Apply(x, y); });
  m.def("host_square", [](const TensorPtr &x) { return ag::HostSquare::Apply(x); });
  m.def("abs_reduce_sum", &ag::abs_reduce_sum, py::arg("x"), py::arg("axis") = std::nullopt,
        py::arg("keepdims") = false, py::arg("dtype") = std::nullopt);
  m.def("launch_by_name", &ag::launch_by_name);
  m.def("raise_log_exception", &ag::raise_log_exception);
  m.def("forward_flags", &ag::forward_flags);
  m.def("second_grad_null", &ag::second_grad_null);
}
