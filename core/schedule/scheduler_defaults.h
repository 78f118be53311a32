// The IOS pruning parameters when none are given, defined once: the schedulers, the profiler's
// jobs, and the engine's limits (engine/limits.h, which the CLI's options and the window's spin
// boxes take) all start from these.
#pragma once

#include <cstddef>

namespace opsched {

inline constexpr std::size_t kDefaultIosR = 3; // most ops per group
inline constexpr std::size_t kDefaultIosS = 8; // most groups per stage (greedy: ops per stage)
inline constexpr std::size_t kDefaultMaxPartOps = 24; // blocks larger than this are searched in parts

} // namespace opsched
