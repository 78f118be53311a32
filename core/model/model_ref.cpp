#include "model/model_ref.h"

#include "util/error.h"
#include "zoo/zoo.h"

#include <filesystem>

namespace opsched {

Graph loadModel(std::string_view ref, std::int64_t batch)
{
    if (ref.starts_with(kZooPrefix))
        return zoo::build(ref.substr(kZooPrefix.size()), batch);

    const std::filesystem::path path(ref);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw ModelRefError("'" + std::string(ref) + "' is neither a zoo: model nor an existing file");
    if (path.extension() == ".onnx")
        throw ModelRefError("'" + std::string(ref) +
                            "': ONNX import is not part of this version of opsched yet; use a built-in network "
                            "such as zoo:inception_v3 (list them with `opsched-cli zoo`)");
    throw ModelRefError("'" + std::string(ref) + "': unknown model format (expected a .onnx file or zoo:NAME)");
}

} // namespace opsched
