// The IOS dynamic program (Ding et al., MLSys 2021, Algorithm 1): the best stage schedule for each
// set of remaining ops, built from its best last stage ("ending"). States are bitsets; endings are
// enumerated through a chain decomposition (one root per chain, roots forming an antichain, an
// ending being the roots' successor closures); closures that overlap share a group. Pruning: at
// most r ops per group and s groups per stage. The search runs per block (and per part of a block
// too large to search whole); identical parts reuse each other's result.
#pragma once

#include "plan/schedule.h"
#include "schedule/scheduler_defaults.h"
#include "schedule/stage_cost.h"
#include "util/error.h"

#include <functional>

namespace opsched {

enum class IosVariant : std::uint8_t { Both, Parallel, Merge }; // ios, ios-parallel, ios-merge

struct IosProgress {
    std::size_t partsDone = 0;
    std::size_t partsTotal = 0;
    std::size_t states = 0;
    std::size_t transitions = 0;
};

struct IosOptions {
    IosVariant variant = IosVariant::Both;
    std::size_t maxGroupOps = kDefaultIosR; // r
    std::size_t maxGroups = kDefaultIosS; // s
    std::size_t maxPartOps = kDefaultMaxPartOps; // blocks larger than this are searched in parts
    // Search block by block (IOS does), consecutive blocks together while they fit in maxPartOps:
    // stages never span a part boundary, which costs a join there; off, the whole graph is one
    // search (split only where a region exceeds maxPartOps).
    bool splitBlocks = true;
    // Called after each part; return false to cancel the search (search() then throws Cancelled).
    std::function<bool(const IosProgress&)> progress;
};

struct IosResult {
    Schedule schedule;
    double latency = 0; // the search's own estimate: sum of its stage latencies (seconds)
    std::size_t states = 0;
    std::size_t transitions = 0;
    std::size_t parts = 0;
    std::size_t reusedParts = 0;
    std::size_t largestPart = 0;
    double searchSeconds = 0;
};

class Cancelled : public Error {
public:
    Cancelled()
        : Error("cancelled")
    {
    }
};

IosResult iosSchedule(const Graph& graph, StageCostModel& cost, const IosOptions& options = {});

} // namespace opsched
