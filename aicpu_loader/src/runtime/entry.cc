// The entry points of a kernel library: RunCpuKernel (decode, create the kernel, Compute, report) and the
// op listing used for error messages and `npusim aicpu list`.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <typeinfo>

#include "cpu_kernel_register.h"
#include "rt_internal.h"
#include "status.h"

namespace {

using aicpu::npusim_rt::DecodedCall;

void SetMessage(NpusimAicpuCall &call, const std::string &text) {
  if (call.message == nullptr || call.message_capacity == 0) return;
  size_t length = std::min<size_t>(text.size(), call.message_capacity - 1);
  std::memcpy(call.message, text.data(), length);
  call.message[length] = '\0';
}

uint32_t Fail(NpusimAicpuCall &call, uint32_t runtime_status, const std::string &text) {
  call.runtime_status = runtime_status;
  SetMessage(call, text);
  return aicpu::KERNEL_STATUS_PARAM_INVALID;
}

std::string RegisteredList() {
  std::string text;
  for (const std::string &type : aicpu::CpuKernelRegister::Instance().GetAllRegisteredOpTypes()) {
    text += (text.empty() ? "" : ", ") + type;
  }
  return text.empty() ? "(none)" : text;
}

uint32_t ComputeGuarded(aicpu::CpuKernel &kernel, NpusimAicpuCall &call, DecodedCall &decoded) {
  try {
    return kernel.Compute(*decoded.ctx);
  } catch (const std::exception &exc) {
    return Fail(call, NPUSIM_RT_CXX_EXCEPTION,
                std::string("Compute threw ") + typeid(exc).name() + ": " + exc.what());
  } catch (...) {
    return Fail(call, NPUSIM_RT_CXX_EXCEPTION, "Compute threw a non-std::exception object");
  }
}

uint32_t Run(NpusimAicpuCall &call) {
  call.runtime_status = NPUSIM_RT_OK;
  call.result_size = 0;
  SetMessage(call, "");
  aicpu::npusim_rt::LogCapture capture(call);
  DecodedCall decoded;
  std::string error;
  if (!aicpu::npusim_rt::DecodeRequest(call, decoded, error)) return Fail(call, NPUSIM_RT_BAD_REQUEST, error);
  const std::string op_type = decoded.ctx->GetOpType();
  std::shared_ptr<aicpu::CpuKernel> kernel;
  try {
    kernel = aicpu::CpuKernelRegister::Instance().GetCpuKernel(op_type);
  } catch (const std::exception &exc) {
    return Fail(call, NPUSIM_RT_KERNEL_CREATE_FAILED, std::string("creating the kernel threw: ") + exc.what());
  }
  if (kernel == nullptr) {
    bool known = false;
    for (const std::string &type : aicpu::CpuKernelRegister::Instance().GetAllRegisteredOpTypes()) {
      known = known || type == op_type;
    }
    if (known) return Fail(call, NPUSIM_RT_KERNEL_CREATE_FAILED, "the kernel's creator returned nullptr");
    return Fail(call, NPUSIM_RT_OP_NOT_FOUND, RegisteredList());
  }
  uint32_t status = ComputeGuarded(*kernel, call, decoded);
  if (status != aicpu::KERNEL_STATUS_OK || call.runtime_status != NPUSIM_RT_OK) return status;
  uint32_t finish = aicpu::npusim_rt::EncodeResults(call, decoded, error);
  if (finish != NPUSIM_RT_OK) return Fail(call, finish, error);
  return status;
}

}  // namespace

NPUSIM_RT_EXPORT uint32_t RunCpuKernel(void *param) {
  if (param == nullptr) return aicpu::KERNEL_STATUS_PARAM_INVALID;
  auto *call = static_cast<NpusimAicpuCall *>(param);
  if (call->abi_version != NPUSIM_AICPU_ABI_VERSION) {
    call->runtime_status = NPUSIM_RT_ABI_MISMATCH;
    SetMessage(*call, "library built for npusim AICPU ABI " + std::to_string(NPUSIM_AICPU_ABI_VERSION) +
                          ", caller speaks " + std::to_string(call->abi_version));
    return aicpu::KERNEL_STATUS_PARAM_INVALID;
  }
  return Run(*call);
}

NPUSIM_RT_EXPORT uint32_t RunCpuKernelWithBlock(void *param, BlkDimInfo *) { return RunCpuKernel(param); }

NPUSIM_RT_EXPORT uint64_t NpusimAicpuListKernels(char *buf, uint64_t capacity) {
  std::string text;
  for (const std::string &type : aicpu::CpuKernelRegister::Instance().GetAllRegisteredOpTypes()) {
    text += type + "\n";
  }
  if (buf != nullptr && capacity > 0) {
    size_t length = std::min<size_t>(text.size(), capacity - 1);
    std::memcpy(buf, text.data(), length);
    buf[length] = '\0';
  }
  return text.size() + 1;
}

NPUSIM_RT_EXPORT uint32_t NpusimAicpuAbiVersion(void) { return NPUSIM_AICPU_ABI_VERSION; }
