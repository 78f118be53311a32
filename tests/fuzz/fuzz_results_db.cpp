// Results databases: bytes as a file -> Store::open read-only (the header, application id,
// schema version and quick_check the CLI and GUI rely on) -> every read `compare --db`,
// `export` and the Runs panel do: run summaries, the comparison, each run loaded whole and
// exported in every format, the cost cache.
#include "fuzz_support.h"

#include "export/export.h"
#include "store/comparison.h"
#include "store/store.h"
#include "util/error.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static opsched::fuzz::ScratchFile file(".db");
    const std::string& path = file.write(data, size);
    try {
        auto store = opsched::store::Store::open(path, opsched::store::OpenMode::ReadOnly);
        const auto runs = store.runSummaries();
        (void)opsched::store::compareRuns(runs);
        for (const auto& summary : runs) {
            const auto run = store.loadRun(summary.id);
            for (const auto format : { opsched::profiler::ExportFormat::Schedule,
                     opsched::profiler::ExportFormat::ChromeTrace, opsched::profiler::ExportFormat::Csv })
                (void)opsched::profiler::exportRun(run, format);
        }
        (void)store.costCacheEntries();
    } catch (const opsched::Error&) {
    }
    return 0;
}
