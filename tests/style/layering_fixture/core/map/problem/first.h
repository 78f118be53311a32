// Wrong on purpose: first and second include each other through their sources.
#pragma once
#include "map/problem/second.h"
