// add_with_attr-style kernel: Init reads every attribute kind, asks for a workspace and keeps its state in
// AotKernelData; the launch computes out = x + y * scale (+ paddings[padding_index]) through the workspace and
// writes a float64 report of what Init read, so a test can check each attribute arrived intact.
#include <cstdint>
#include <string>
#include <vector>
#ifdef USE_FOREIGN_HEADER
#include "foreign_aot_extra.h"
#else
#include "custom_aot_extra.h"
#endif

constexpr int kReportSize = 24;

class AttrAddState : public AotKernelData {
 public:
  float scale = 0;
  float padding = 0;
  double report[kReportSize] = {};
};

static double Checksum(const std::string &text) {
  double sum = 0;
  for (size_t i = 0; i < text.size(); ++i) sum += static_cast<double>((i + 1) * static_cast<unsigned char>(text[i]));
  return sum;
}

extern "C" int CustomAttrAddInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  auto *state = new AttrAddState;
  bool use_padding = extra->Attr<bool>("use_padding");
  int64_t padding_index = extra->Attr<int64_t>("padding_index");
  state->scale = extra->Attr<float>("scale");
  std::string mode = extra->Attr<std::string>("mode");
  std::string long_text = extra->Attr<std::string>("a_rather_long_attribute_name");
  std::vector<int64_t> axes = extra->Attr<std::vector<int64_t>>("axes");
  std::vector<float> paddings = extra->Attr<std::vector<float>>("paddings");
  auto grid = extra->Attr<std::vector<std::vector<int64_t>>>("grid");
  auto weights = extra->Attr<std::vector<std::vector<float>>>("weights");
  state->padding = use_padding ? paddings.at(static_cast<size_t>(padding_index)) : 0.0f;

  double *r = state->report;
  r[0] = use_padding;
  r[1] = static_cast<double>(padding_index);
  r[2] = state->scale;
  r[3] = static_cast<double>(mode.size());
  r[4] = Checksum(mode);
  r[5] = static_cast<double>(long_text.size());
  r[6] = Checksum(long_text);
  r[7] = static_cast<double>(axes.size());
  for (int64_t axis : axes) r[8] += static_cast<double>(axis);
  r[9] = static_cast<double>(paddings.size());
  for (float padding : paddings) r[10] += padding;
  r[11] = static_cast<double>(grid.size());
  for (size_t i = 0; i < grid.size(); ++i)
    for (size_t j = 0; j < grid[i].size(); ++j) r[12] += static_cast<double>((i + 1) * 10 + j) * grid[i][j];
  r[13] = static_cast<double>(weights.size());
  for (size_t i = 0; i < weights.size(); ++i)
    for (size_t j = 0; j < weights[i].size(); ++j) r[14] += static_cast<double>((i + 1) * 10 + j) * weights[i][j];
  r[15] = extra->HasAttr("scale");
  r[16] = extra->HasAttr("no_such_attribute");
  r[17] = ndims[0];
  r[18] = ndims[2];

  size_t elements = 1;
  for (int i = 0; i < ndims[0]; ++i) elements *= static_cast<size_t>(shapes[0][i]);
  extra->SetWorkSpace({elements * sizeof(float), 64});
  extra->SetKernelData(state);
  return 0;
}

extern "C" int CustomAttrAdd(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                             void *stream, void *extra_void) {
  if (nparam != 6) return 100 + nparam;  // x, y, out, report, 2 workspaces
  if (stream != nullptr) return 99;
  auto *extra = static_cast<AotExtra *>(extra_void);
  auto *state = static_cast<AttrAddState *>(extra->KernelData());
  auto *x = static_cast<float *>(params[0]);
  auto *y = static_cast<float *>(params[1]);
  auto *out = static_cast<float *>(params[2]);
  auto *report = static_cast<double *>(params[3]);
  auto *tmp = static_cast<float *>(params[4]);
  int64_t size = 1;
  for (int i = 0; i < ndims[2]; ++i) size *= shapes[2][i];
  for (int64_t i = 0; i < size; ++i) tmp[i] = x[i] + y[i] * state->scale;
  for (int64_t i = 0; i < size; ++i) out[i] = tmp[i] + state->padding;
  for (int i = 0; i < kReportSize; ++i) report[i] = state->report[i];
  report[19] = static_cast<double>(extra->WorkSpace().size());
  report[20] = static_cast<double>(extra->WorkSpace()[0]);
  return 0;
}
