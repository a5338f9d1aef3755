/**
 * npusim's `mindspore/include/custom_op_api.h`: MindSpore's C++ extension API (everything of ms_extension/all.h).
 */
#ifndef NPUSIM_MINDSPORE_INCLUDE_CUSTOM_OP_API_H_
#define NPUSIM_MINDSPORE_INCLUDE_CUSTOM_OP_API_H_

#include "ms_extension/all.h"

#endif  // NPUSIM_MINDSPORE_INCLUDE_CUSTOM_OP_API_H_
