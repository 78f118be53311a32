// An engine header that reaches up into views/ and includes Qt: check_layering.py must refuse both.
#pragma once
#include "schedules/schedule_panel.h"
#include <QString>
