#include "export/export.h"

#include "util/csv.h"
#include "util/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace opsched::profiler {
namespace {

template <typename T> std::string opt(const std::optional<T>& v)
{
    if (!v)
        return "";
    std::ostringstream os;
    os << *v;
    return os.str();
}

} // namespace

std::optional<ExportFormat> parseExportFormat(std::string_view name)
{
    if (name == "schedule")
        return ExportFormat::Schedule;
    if (name == "chrome-trace")
        return ExportFormat::ChromeTrace;
    if (name == "csv")
        return ExportFormat::Csv;
    return std::nullopt;
}

const char* toString(ExportFormat f)
{
    switch (f) {
    case ExportFormat::Schedule:
        return "schedule";
    case ExportFormat::ChromeTrace:
        return "chrome-trace";
    case ExportFormat::Csv:
        return "csv";
    }
    return "?";
}

const char* fileSuffix(ExportFormat f)
{
    switch (f) {
    case ExportFormat::Schedule:
        return ".schedule.json";
    case ExportFormat::ChromeTrace:
        return ".trace.json";
    case ExportFormat::Csv:
        return ".kernels.csv";
    }
    return "";
}

std::string kernelsCsv(const store::RunRecord& run)
{
    const auto ops = launchNames(run);
    std::ostringstream os;
    os << "start,end,streamId,launchId,opId,op,part,shortName,demangledName,warps,correlationId,gridX,gridY,gridZ,"
          "blockX,blockY,blockZ,registersPerThread,staticSharedMemory,dynamicSharedMemory\n";
    for (const auto& k : run.kernels) {
        std::string op;
        if (k.launchId && *k.launchId >= 0 && static_cast<std::size_t>(*k.launchId) < ops.size())
            op = ops[static_cast<std::size_t>(*k.launchId)];
        os << k.start << ',' << k.end << ',' << k.streamId << ',' << opt(k.launchId) << ',' << opt(k.opId) << ','
           << csvField(op) << ',' << k.part << ',' << csvField(k.shortName) << ',' << csvField(k.demangledName) << ','
           << opt(k.warps) << ',' << opt(k.correlationId) << ',' << opt(k.gridX) << ',' << opt(k.gridY) << ','
           << opt(k.gridZ) << ',' << opt(k.blockX) << ',' << opt(k.blockY) << ',' << opt(k.blockZ) << ','
           << opt(k.registersPerThread) << ',' << opt(k.staticSharedMemory) << ',' << opt(k.dynamicSharedMemory)
           << '\n';
    }
    return os.str();
}

// Strings read from a database may hold bytes that are not UTF-8 (a damaged file; a fuzzing
// finding): they are written as U+FFFD instead of failing the export.
std::string exportRun(const store::RunRecord& run, ExportFormat format)
{
    switch (format) {
    case ExportFormat::Schedule:
        if (!run.schedule)
            throw Error("run " + std::to_string(run.id.value()) + " has no schedule (it failed: " + run.error + ")");
        return run.schedule->document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case ExportFormat::ChromeTrace:
        return chromeTrace(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case ExportFormat::Csv:
        return kernelsCsv(run);
    }
    return {};
}

void writeTextFile(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error("cannot write '" + path + "': " + std::strerror(errno));
        out << text;
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw Error("cannot write '" + path + "': " + std::strerror(errno));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw Error("cannot write '" + path + "': " + ec.message());
    }
}

} // namespace opsched::profiler
