/**
 * The device objects MindSpore's extension API hands around: `device::DeviceType`, `device::DeviceContext`
 * (npusim has one per device type; aclnn launches run on the simulated Ascend device whatever context they are
 * given) and `runtime::OpRunner::GetDeviceContext`.
 */
#ifndef NPUSIM_EXT_DEVICE_H_
#define NPUSIM_EXT_DEVICE_H_

#include <string>

#include "npusim_ext/log.h"

namespace mindspore::device {
enum class DeviceType { kUnknown = 0, kCPU = 1, kAscend = 2, kGPU = 3 };

class DeviceContext {
 public:
  DeviceContext(DeviceType type, std::string name) : type_(type), name_(std::move(name)) {}
  DeviceType device_type() const { return type_; }
  const std::string &device_name() const { return name_; }
  uint32_t device_id() const { return 0; }

 private:
  DeviceType type_;
  std::string name_;
};

/// npusim's device context of `type` (one per type, never destroyed).
inline DeviceContext *NpusimDeviceContext(DeviceType type) {
  static DeviceContext cpu(DeviceType::kCPU, "CPU"), ascend(DeviceType::kAscend, "Ascend"),
    gpu(DeviceType::kGPU, "GPU");
  return type == DeviceType::kCPU ? &cpu : type == DeviceType::kGPU ? &gpu : &ascend;
}
}  // namespace mindspore::device

namespace mindspore::runtime {
class OpRunner {
 public:
  static device::DeviceContext *GetDeviceContext(device::DeviceType type) {
    return device::NpusimDeviceContext(type);
  }
  static device::DeviceContext *GetDeviceContext(const std::string &device_target) {
    return device::NpusimDeviceContext(device_target == "CPU"   ? device::DeviceType::kCPU
                                       : device_target == "GPU" ? device::DeviceType::kGPU
                                                                : device::DeviceType::kAscend);
  }
};
}  // namespace mindspore::runtime

namespace mindspore {
/// The current stream (npusim runs every launch in order on one stream: id 0).
class CurrentStream {
 public:
  static size_t id() { return 0; }
  static void set_id(size_t) {}
};
}  // namespace mindspore

#endif  // NPUSIM_EXT_DEVICE_H_
