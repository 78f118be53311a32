#pragma once
#include "plan/plan.h"
#include <QString>
