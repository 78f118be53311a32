// As a file in core/graph/ would: plan/ is above graph/, so the build refuses this include.
#include "plan/plan.h"
