#include "model/model_ref.h"

#include "util/error.h"
#include "zoo/zoo.h"

#if OPSCHED_HAVE_ONNX
#include "import/onnx_importer.h"
#endif

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
    if (path.extension() == ".onnx") {
#if OPSCHED_HAVE_ONNX
        return importOnnx(std::string(ref), batch);
#else
        throw ModelRefError("'" + std::string(ref)
            + "': this opsched was built without ONNX import (install libonnx-dev and rebuild); use a "
              "built-in network such as zoo:inception_v3 (list them with `opsched-cli zoo`)");
#endif
    }
    throw ModelRefError("'" + std::string(ref) + "': unknown model format (expected a .onnx file or zoo:NAME)");
}

} // namespace opsched
