// npusim AICPU compatibility header: same as cpu_context.h (kernels include it by this path too).
#include "../../cpu_context.h"
