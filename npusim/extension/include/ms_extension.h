/**
 * npusim's `ms_extension.h`: MindSpore's C++ extension API (everything of ms_extension/all.h).
 */
#ifndef NPUSIM_MS_EXTENSION_H_
#define NPUSIM_MS_EXTENSION_H_

#include "ms_extension/all.h"

#endif  // NPUSIM_MS_EXTENSION_H_
