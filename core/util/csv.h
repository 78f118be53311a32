// CSV as RFC 4180 writes it, for every CSV opsched writes (kernel tables, calibration stages).
#pragma once

#include <string>

namespace opsched {

// One field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csvField(const std::string& s);

} // namespace opsched
