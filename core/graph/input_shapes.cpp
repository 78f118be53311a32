#include "graph/input_shapes.h"

namespace opsched {

InputShapes inputShapesOf(const Graph& graph)
{
    InputShapes shapes;
    for (auto in : graph.inputs())
        shapes[graph.tensor(in).name] = graph.tensor(in).shape.dims;
    return shapes;
}

InputShapes recordedInputShapes(const nlohmann::json& file)
{
    InputShapes shapes;
    if (!file.contains("input_shapes") || !file.at("input_shapes").is_object())
        return shapes;
    for (const auto& [name, dims] : file.at("input_shapes").items()) {
        if (!dims.is_array())
            continue;
        std::vector<std::int64_t> values;
        for (const auto& d : dims)
            values.push_back(d.is_number_integer() ? d.get<std::int64_t>() : -1);
        shapes[name] = std::move(values);
    }
    return shapes;
}

std::string inputShapesMismatch(const Graph& graph, const InputShapes& recorded)
{
    std::string made, now;
    bool differs = false;
    for (auto in : graph.inputs()) {
        const Tensor& t = graph.tensor(in);
        const auto it = recorded.find(t.name);
        if (it == recorded.end())
            continue;
        differs = differs || Shape(it->second).withBatch(1) != t.shape.withBatch(1);
        made += (made.empty() ? "" : ", ") + t.name + "=" + Shape(it->second).toString();
        now += (now.empty() ? "" : ", ") + t.name + "=" + t.shape.toString();
    }
    if (!differs)
        return {};
    return "it was made for inputs " + made + "; the model's inputs here are " + now
        + " (free input dimensions are set with --shape)";
}

} // namespace opsched
