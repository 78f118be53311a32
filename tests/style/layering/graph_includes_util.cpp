// As a file in core/graph/ would: util/ is below graph/, so this compiles.
#include "util/error.h"
