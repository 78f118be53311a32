// Wrong on purpose (see first.h).
#pragma once
