// The CustomOpBuilder benchmark's op: the seed document's style (ms_extension.h, Function<T>, an aclnnMul
// launched through CustomLaunchAclnn), element-wise x * y of equal shapes with its gradient.
#include "ms_extension.h"

namespace mindspore::pynative::autograd {
class BenchMul : public Function<BenchMul> {
 public:
  static BaseTensorPtr Forward(AutogradContext *ctx, const BaseTensorPtr &x, const BaseTensorPtr &y) {
    auto out = std::make_shared<BaseTensor>(x->data_type(), x->shape());
    custom::CustomLaunchAclnn("aclnnMul", {x, y}, {out});
    ctx->SaveForBackward({y, x});
    return out;
  }

  static BaseTensorPtrList Backward(AutogradContext *ctx, BaseTensorPtrList grad_outputs) {
    auto saved = ctx->GetSavedTensors();
    auto dout = grad_outputs[0];
    auto grad_x = std::make_shared<BaseTensor>(dout->data_type(), dout->shape());
    auto grad_y = std::make_shared<BaseTensor>(dout->data_type(), dout->shape());
    custom::CustomLaunchAclnn("aclnnMul", {dout, saved[0]}, {grad_x});
    custom::CustomLaunchAclnn("aclnnMul", {dout, saved[1]}, {grad_y});
    return {grad_x, grad_y};
  }
};

BaseTensorPtr bench_mul(const BaseTensorPtr &x, const BaseTensorPtr &y) { return BenchMul::Apply(x, y); }
}  // namespace mindspore::pynative::autograd

PYBIND11_MODULE(MS_EXTENSION_NAME, m) {
  m.def("mul", &mindspore::pynative::autograd::bench_mul, "x * y (aclnnMul on the simulated Ascend device)");
}
