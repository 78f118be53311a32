// Text from files people pass around (names, values, parser messages) can carry damaged bytes;
// printed raw they garble a terminal or a log. printable() keeps text as it is where it is
// printable (ASCII, well-formed UTF-8, newlines and tabs) and writes every other byte as \xNN.
#pragma once

#include <string>
#include <string_view>

namespace opsched {

std::string printable(std::string_view text);

} // namespace opsched
