#include "engine/catalog.h"

#include "map/registry/mappers.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"
#include "zoo/zoo.h"

namespace opsched::engine {

std::vector<CatalogEntry> builtInNetworks()
{
    std::vector<CatalogEntry> out;
    for (const zoo::ZooEntry& e : zoo::catalogue())
        out.push_back({ e.name, e.summary, e.parameters });
    return out;
}

std::vector<std::string> schedulerNames()
{
    return opsched::schedulerNames();
}

std::vector<CatalogEntry> mapperEntries()
{
    std::vector<CatalogEntry> out;
    for (const auto& m : map::mappers())
        out.push_back({ m.name, m.summary, {} });
    return out;
}

std::vector<std::string> simulatedDeviceNames()
{
    std::vector<std::string> out;
    for (const auto& d : simDevices())
        out.push_back("sim:" + d.name);
    return out;
}

CudaRuntimeStatus localGpus()
{
    return queryCudaRuntime();
}

MachineSupport machineSupport()
{
    return { queryCudaRuntime(), queryCupti() };
}

} // namespace opsched::engine
