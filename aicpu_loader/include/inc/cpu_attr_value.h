// npusim AICPU compatibility header: same as cpu_attr_value.h (kernels include it by this path too).
#include "../cpu_attr_value.h"
