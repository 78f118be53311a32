// Wrong on purpose: a bound reaching up into MILP-SPLIT.
#pragma once
#include "map/split/milp_split.h"
