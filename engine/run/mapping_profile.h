// `profile MODEL --mapping FILE --db DB`: a CPU mapping run for real and stored as one run: its
// plan (stream u = device u), every repeat's latency, and each op as a span on its device's
// stream, so `compare --db`, `export` and the window's Runs panel see it like any other run.
#pragma once

#include "store/records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::engine {

struct MappingProfileRequest {
    std::string model;
    std::int64_t batch = 1;
    std::string mappingFile;
    std::string database;
    int repeats = 1;
};

struct MappingProfile {
    store::RunId id; // the stored run
    std::string model; // the graph's name
    std::string devices; // "cpu:0,cpu:1"
    double medianMs = 0; // as stored (the mean of the middle two)
    double predictedMs = 0; // 0: the file has no costs to predict from
};

// Throws Error naming the problem (a device that is not a CPU device, a file that is not a
// mapping, a database that cannot be written).
MappingProfile profileMapping(const MappingProfileRequest& request);

} // namespace opsched::engine
