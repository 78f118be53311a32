// A plan type that reaches up into sim/: the cycle check_layering.py must refuse.
#pragma once
#include "sim/model.h"
