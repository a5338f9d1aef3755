// npusim AICPU compatibility header: same as cpu_types.h (kernels include it by this path too).
#include "../../cpu_types.h"
