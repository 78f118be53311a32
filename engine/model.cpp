#include "engine/model.h"

namespace opsched::engine {

Graph openModel(const ModelRequest& request)
{
    return loadModel(request.model, request.batch, request.shapes);
}

std::vector<FreeInput> freeDimensions(const ModelRequest& request)
{
    return freeInputs(request.model, request.batch);
}

void addShapeSpec(InputShapes& shapes, const std::string& spec)
{
    addInputShape(shapes, spec);
}

std::string shapesText(const InputShapes& shapes)
{
    return inputShapesText(shapes);
}

ModelDescription describeModel(const Graph& graph)
{
    ModelDescription d;
    d.summary = summarize(graph);
    d.json = modelInfoJson(graph, d.summary);
    d.text = modelInfoText(graph, d.summary);
    return d;
}

} // namespace opsched::engine
