// The defaults and limits of what a user asks for (device, batch, IOS pruning, mapping time, ...),
// defined once: opsched-cli's options check their values against these ranges and start from
// these defaults, and the window's spin boxes and combo boxes take the same ranges and defaults.
#pragma once

#include "map/problem/map_result.h"
#include "schedule/scheduler_defaults.h"
#include "session/job.h"
#include "sim/sim_device.h"

#include <cstddef>
#include <cstdint>

namespace opsched::engine {

// A quantity's accepted range (inclusive) and its value when none is given.
template <typename T> struct Limit {
    T min;
    T max;
    T def;
    constexpr bool holds(T value) const { return min <= value && value <= max; }
};

// The device a schedule, evaluation, run or profile is for when none is named.
inline constexpr const char* kDefaultDevice = kDefaultDeviceRef;
// The device list the window offers a mapper first (DiviML's CPU + T4 + A100).
inline constexpr const char* kDefaultMapDevices = "sim:xeon,sim:t4,sim:a100";
// The scheduler the window runs first.
inline constexpr const char* kDefaultScheduler = "ios";
// How stage schedules become plans when not said: barriers, events or best (plan/lowering.h).
inline constexpr const char* kDefaultLowering = "barriers";
// The mapper `map` and the window use when none is named.
inline constexpr const char* kDefaultMapper = "milp-split";

// Batch size of a model (--batch, the Batch spin boxes).
inline constexpr Limit<std::int64_t> kBatch { 1, 65536, 1 };
// IOS pruning: most ops per group (--r) and most groups per stage (--s).
inline constexpr Limit<std::size_t> kIosR { 1, 64, kDefaultIosR };
inline constexpr Limit<std::size_t> kIosS { 1, 64, kDefaultIosS };
// Seconds the MILP mappers may search (--time-limit: any positive number; the window's mappings).
inline constexpr Limit<double> kMapTimeLimitSeconds { 0, 1e9,
    map::kDefaultMapTimeLimitSeconds }; // min exclusive: above 0
// Inputs of a throughput mapping (map --inputs; compare --inputs takes any positive count).
inline constexpr Limit<std::int64_t> kMapInputs { 1, 4096, 16 };
// milp-split's largest module solved as one piece (--max-module-tasks).
inline constexpr Limit<std::size_t> kMaxModuleTasks { 2, 64, map::kDefaultMaxModuleTasks };
// Seed of sa and ea (map --seed).
inline constexpr std::uint64_t kDefaultMapSeed = map::kDefaultMapSeed;
// Latency measurements per stored run (profile --repeat, the Profile panel's Repeat).
inline constexpr Limit<int> kProfileRepeat { 1, 100000, profiler::kDefaultProfileRepeats };
// Timed runs after one warm-up (run --repeat).
inline constexpr Limit<int> kRunRepeat { 1, 1000000, 10 };
// run: rounds of --repeat timed runs on the CPU (0: 3 for a mapping, whose workers and partitions
// interfere with whatever else the machine runs, else 1); the report is the median of the rounds'
// medians with their spread.
inline constexpr Limit<int> kRunRounds { 0, 1000, 0 };
// CPU threads of a run (run --threads; 0, the default: oneDNN's, all cores).
inline constexpr Limit<int> kRunThreads { 0, 4096, 0 };
// Stages a calibration fits on (calibrate --max-stages).
inline constexpr Limit<std::size_t> kCalibrateMaxStages { 2, 1000000, 600 };
// Relative and absolute tolerances of run --check (--rtol, --atol, --atol-scale); their defaults
// are Tolerance's (exec/output_check.h), def here is the least one.
inline constexpr Limit<double> kTolerance { 0.0, 1e6, 0.0 };

// Every default inside its own range: a front end that offers the range can show the default.
static_assert(kBatch.holds(kBatch.def));
static_assert(kIosR.holds(kIosR.def));
static_assert(kIosS.holds(kIosS.def));
static_assert(kMapTimeLimitSeconds.holds(kMapTimeLimitSeconds.def));
static_assert(kMapInputs.holds(kMapInputs.def));
static_assert(kMaxModuleTasks.holds(kMaxModuleTasks.def));
static_assert(kProfileRepeat.holds(kProfileRepeat.def));
static_assert(kRunRepeat.holds(kRunRepeat.def));
static_assert(kRunRounds.holds(kRunRounds.def));
static_assert(kRunThreads.holds(kRunThreads.def));
static_assert(kCalibrateMaxStages.holds(kCalibrateMaxStages.def));
static_assert(kTolerance.holds(kTolerance.def));

} // namespace opsched::engine
