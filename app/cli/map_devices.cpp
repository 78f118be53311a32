#include "map_devices.h"

#include "util/error.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <thread>

namespace opsched::cli {

std::vector<std::string> parseDeviceList(const std::string& list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item.empty())
            throw Error("--devices: an empty device name in '" + list + "'");
        for (const auto& seen : out)
            if (seen == item)
                throw Error("--devices: " + item + " is listed twice");
        out.push_back(item);
    }
    if (out.empty())
        throw Error("--devices: no devices given");
    return out;
}

map::Link parseLink(const std::string& text)
{
    const auto comma = text.find(',');
    auto number = [&](const std::string& s, const char* what) {
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
            throw Error(std::string("--link: ") + what + " '" + s + "' is not a non-negative number (GBPS[,LATENCY_US])");
        return v;
    };
    const double gbps = number(text.substr(0, comma), "bandwidth");
    if (gbps <= 0)
        throw Error("--link: the bandwidth must be above 0 GB/s");
    const double us = comma == std::string::npos ? 0.0 : number(text.substr(comma + 1), "latency");
    return {gbps * 1e9, us * 1e-6};
}

std::vector<std::vector<map::Link>> linksFor(const std::vector<std::string>& devices, const std::optional<map::Link>& link)
{
    std::vector<std::vector<map::Link>> out(devices.size(), std::vector<map::Link>(devices.size()));
    for (std::size_t u = 0; u < devices.size(); ++u)
        for (std::size_t v = 0; v < devices.size(); ++v)
            if (u != v)
                out[u][v] = link ? *link : map::defaultLink(devices[u], devices[v]);
    return out;
}

std::vector<int> partitionCores(int index, int partitions)
{
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (partitions > cores)
        throw Error("cpu partitions: " + std::to_string(partitions) + " asked for, but this machine has " +
                    std::to_string(cores) + " cores (use cpu:0 .. cpu:" + std::to_string(cores - 1) + " at most)");
    std::vector<int> out;
    for (int c = index * cores / partitions; c < (index + 1) * cores / partitions; ++c)
        out.push_back(c);
    return out;
}

map::DeviceCosts deviceCosts(const Graph& graph, const std::string& device, const CostCacheOptions& cache)
{
    if (auto sim = map::simulatedDeviceCosts(graph, device))
        return *sim;
    if (device == "cpu" || device.rfind("cpu:", 0) == 0)
        throw Error("device " + device + ": measured CPU costs are not available in this build");
    if (cudaDeviceIndex(device)) {
        // One-op stages on the GPU, timed (and cached) like the schedulers' stages.
        auto model = makeCostModel(device, false, cache);
        map::DeviceCosts out{device, std::vector<double>(graph.opCount()), map::kUnsupported};
        for (const Op& op : graph.ops()) {
            Stage stage;
            stage.groups = {{op.id}};
            out.opSeconds[op.id.value()] = model->stageLatency(graph, stage);
        }
        return out;
    }
    throw Error("unknown device '" + device + "' (use sim:NAME, cpu, cpu:N or cuda:N)");
}

} // namespace opsched::cli
