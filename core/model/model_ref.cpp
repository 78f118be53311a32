#include "model/model_ref.h"

#include "util/error.h"
#include "zoo/zoo.h"

#if OPSCHED_HAVE_ONNX
#include "import/onnx_importer.h"
#endif

#include <filesystem>

namespace opsched {

Graph loadModel(std::string_view ref, std::int64_t batch, const InputShapes& shapes)
{
    if (ref.starts_with(kZooPrefix)) {
        if (!shapes.empty())
            throw ModelRefError("--shape " + inputShapesText(shapes) + ": built-in networks have no free input "
                + "dimensions (their parameters set the sizes: `opsched-cli zoo` lists them)");
        return zoo::build(ref.substr(kZooPrefix.size()), batch);
    }

    const std::filesystem::path path(ref);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw ModelRefError("'" + std::string(ref) + "' is neither a zoo: model nor an existing file");
    if (path.extension() == ".onnx") {
#if OPSCHED_HAVE_ONNX
        return importOnnx(std::string(ref), batch, shapes);
#else
        throw ModelRefError("'" + std::string(ref)
            + "': this opsched was built without ONNX import (install libonnx-dev and rebuild); use a "
              "built-in network such as zoo:inception_v3 (list them with `opsched-cli zoo`)");
#endif
    }
    throw ModelRefError("'" + std::string(ref) + "': unknown model format (expected a .onnx file or zoo:NAME)");
}

std::vector<FreeInput> freeInputs(std::string_view ref, std::int64_t batch)
{
    std::vector<FreeInput> out;
#if OPSCHED_HAVE_ONNX
    if (ref.starts_with(kZooPrefix) || std::filesystem::path(ref).extension() != ".onnx")
        return out;
    for (const auto& in : declaredInputs(std::string(ref)))
        for (std::size_t d = 1; d < in.dims.size(); ++d)
            if (in.dims[d] <= 0) {
                out.push_back({ in.name, declaredText(in), exampleText(in, batch) });
                break;
            }
#else
    (void)ref;
    (void)batch;
#endif
    return out;
}

void addInputShape(InputShapes& shapes, const std::string& spec)
{
    const auto eq = spec.rfind('=');
    const std::string name = eq == std::string::npos ? std::string() : spec.substr(0, eq);
    const std::string dims = eq == std::string::npos ? spec : spec.substr(eq + 1);
    auto bad = [&](const std::string& why) {
        return ModelRefError("--shape '" + spec + "': " + why + " (expected NAME=DxDx... such as input=1x3x224x224, or "
            + "DxDx... for a model with one input)");
    };
    std::vector<std::int64_t> values;
    std::size_t at = 0;
    while (at <= dims.size()) {
        const auto x = dims.find('x', at);
        const std::string part = dims.substr(at, x == std::string::npos ? std::string::npos : x - at);
        if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos)
            throw bad("'" + part + "' is not a dimension");
        const std::int64_t v = std::stoll(part);
        if (v < 1 || v > (std::int64_t { 1 } << 31))
            throw bad("dimension " + part + " is out of range");
        values.push_back(v);
        if (x == std::string::npos)
            break;
        at = x + 1;
    }
    if (eq != std::string::npos && name.empty())
        throw bad("the input name before '=' is empty");
    if (shapes.count(name))
        throw bad(name.empty() ? "a shape without a name is given twice" : "input '" + name + "' is given twice");
    shapes[name] = std::move(values);
}

std::string inputShapesText(const InputShapes& shapes)
{
    std::string text;
    for (const auto& [name, dims] : shapes) {
        text += text.empty() ? "" : "; ";
        if (!name.empty())
            text += name + "=";
        text += Shape(dims).toString();
    }
    return text;
}

} // namespace opsched
