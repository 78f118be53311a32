// `profile MODEL --mapping FILE --db DB`: a CPU mapping run for real and stored as one run: its
// plan (stream u = device u), every repeat's latency, and each op as a span on its device's
// stream, so `compare --db`, `export` and the window's Runs panel see it like any other run.
#pragma once

#include <cstdint>
#include <string>

namespace opsched::cli {

int profileMapping(
    const std::string& model, std::int64_t batch, const std::string& mappingFile, const std::string& db, int repeats);

} // namespace opsched::cli
