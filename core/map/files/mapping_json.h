// What the latency and throughput mapping files (mapping_file.h, throughput_mapping_file.h) share:
// the header, the device list, the links, and field readers whose errors name the field.
#pragma once

#include "map/problem/mapping_problem.h"

#include "graph/graph.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace opsched::map {

// What reading a mapping file throws; the message names the problem.
class MappingFileError : public Error {
public:
    using Error::Error;
};

inline constexpr int kMappingFormatVersion = 1;

} // namespace opsched::map

namespace opsched::map::json {

// Throws MappingFileError("mapping file: " + why).
[[noreturn]] void fail(const std::string& why);

const nlohmann::json& field(const nlohmann::json& j, const char* key);
std::string stringField(const nlohmann::json& j, const char* key);
double numberField(const nlohmann::json& j, const char* key); // finite, >= 0
std::string optionalString(const nlohmann::json& j, const char* key);

// "format" and "version"; then "model", and "model_sha256" (when present) against `graph`.
void checkFormat(const nlohmann::json& j);
void checkModel(const Graph& graph, const nlohmann::json& j);

struct DeviceList {
    std::vector<std::string> names;
    std::map<std::string, std::uint32_t> index;
    std::uint32_t of(const std::string& name) const; // fails for a device not listed
};
DeviceList readDevices(const nlohmann::json& j);

// The op id of `name` in `graph`; fails naming the model.
std::uint32_t opOf(const Graph& graph, const std::string& name);

// "order" {device: [op, ...]}: per device, its ops in order. `misplaced(op, device)` says why an op
// may not be on that device (empty: it may); an op listed twice on a device fails.
std::vector<std::vector<std::uint32_t>> readOrder(const Graph& graph, const nlohmann::json& j,
    const DeviceList& devices, const std::function<std::string(std::uint32_t op, std::uint32_t device)>& misplaced);

// The header both files start with: format, version, model, model_sha256, batch, objective,
// mapper, devices.
nlohmann::ordered_json headerToJson(
    const Graph& graph, const MappingProblem& problem, const char* objective, const std::string& mapper);
// status, gap (null when unknown), solve_s and note (when not empty).
void addSolveFields(
    nlohmann::ordered_json& j, const char* status, double gap, double solveSeconds, const std::string& note);
// "order" {device: [op, ...]} from per-device task lists.
nlohmann::ordered_json orderToJson(const MappingProblem& problem, const std::vector<std::vector<std::uint32_t>>& order);

// {"u->v": {"bandwidth_gbps", "latency_us"}} for every ordered pair of devices, and back
// (pairs missing from the file stay unconnected).
nlohmann::ordered_json linksToJson(const MappingProblem& problem);
std::vector<std::vector<Link>> linksFromJson(const nlohmann::json& j, const DeviceList& devices);

} // namespace opsched::map::json
