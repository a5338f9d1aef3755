// npusim AICPU compatibility header: same as securec.h (kernels include it by this path too).
#include "../../securec.h"
