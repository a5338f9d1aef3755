/**
 * npusim's `ms_extension/all.h`: the public API (api.h) plus the MindSpore internals extension sources use
 * (`kernel::pyboost::OpRunner`, `PyBoostUtils`, `runtime::OpRunner::GetDeviceContext`, `PyBoostDeviceTask`,
 * `kernel::pyboost::abs`, `MS_LOG` ...).
 */
#ifndef MS_EXTENSION_ALL_H_
#define MS_EXTENSION_ALL_H_

#include "ms_extension/api.h"
#include "npusim_ext/internals.h"

#endif  // MS_EXTENSION_ALL_H_
