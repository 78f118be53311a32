#include "session/stage_cost_store.h"

#include <cstdlib>
#include <filesystem>

namespace opsched::profiler {
namespace {

store::Store openCache(const std::string& path)
{
    const std::filesystem::path file(path);
    std::error_code ec;
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
        throw Error("cost cache '" + path + "': cannot create its folder (" + ec.message()
            + "); pass --cost-cache-file FILE elsewhere or --no-cost-cache");
    try {
        return store::Store::open(path, store::OpenMode::ReadWrite);
    } catch (const store::StoreError& e) {
        throw Error("cost cache '" + path + "' cannot be used: " + e.what()
            + "; remove the file to start a new cache, or pass --no-cost-cache");
    }
}

} // namespace

SqliteStageCostStore::SqliteStageCostStore(const std::string& path)
    : store_(openCache(path))
{
}

std::unordered_map<std::string, double> SqliteStageCostStore::load(const std::string& timerKey, std::int64_t batch)
{
    return store_.loadCostCache(timerKey, batch);
}

void SqliteStageCostStore::add(
    const std::string& timerKey, std::int64_t batch, const std::vector<std::pair<std::string, double>>& entries)
{
    store_.addCostCache(timerKey, batch, entries);
}

std::string defaultStageCostCachePath()
{
    std::filesystem::path base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".cache";
    else
        throw Error("no place for the cost cache: neither XDG_CACHE_HOME nor HOME is set; pass "
                    "--cost-cache-file FILE or --no-cost-cache");
    return (base / "opsched" / "stage-costs.db").string();
}

} // namespace opsched::profiler
