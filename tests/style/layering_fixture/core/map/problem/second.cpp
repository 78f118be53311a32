// Wrong on purpose (see first.h).
#include "map/problem/second.h"

#include "map/problem/first.h"
