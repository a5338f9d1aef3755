// npusim AICPU compatibility header: same as status.h (kernels include it by this path too).
#include "../../status.h"
