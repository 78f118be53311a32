#include "import/onnx_external_data.h"

#include "import/import_error.h"
#include "import/onnx_tensor.h"

#include <filesystem>
#include <fstream>
#include <map>

namespace opsched::onnx_import {
namespace {

namespace fs = std::filesystem;

class ExternalReader {
public:
    explicit ExternalReader(fs::path folder)
        : folder_(std::move(folder))
    {
    }

    void load(onnx::TensorProto& t)
    {
        if (t.data_location() != onnx::TensorProto::EXTERNAL)
            return;
        const std::string what = "tensor '" + t.name() + "'";
        std::map<std::string, std::string> info;
        for (const auto& kv : t.external_data())
            info[kv.key()] = kv.value();
        const std::string location = info["location"];
        if (location.empty())
            throw ImportError(what + " is stored externally but names no file (no 'location')");
        const fs::path relative(location);
        bool leaves = relative.is_absolute();
        for (const auto& part : relative)
            leaves = leaves || part == "..";
        if (leaves)
            throw ImportError(what + ": external data location '" + location
                + "' must be a path inside the model's folder (relative, without '..')");
        const fs::path file = folder_ / relative;
        std::error_code ec;
        const auto size = fs::file_size(file, ec);
        if (ec)
            throw ImportError(
                what + ": its external data file '" + file.string() + "' cannot be read (" + ec.message() + ")");
        const std::int64_t offset = number(info, "offset", 0, what);
        const std::int64_t length
            = number(info, "length", static_cast<std::int64_t>(size) - std::min<std::int64_t>(offset, size), what);
        if (offset < 0 || length < 0 || static_cast<std::uintmax_t>(offset + length) > size)
            throw ImportError(what + ": external data at offset " + std::to_string(offset) + ", length "
                + std::to_string(length) + " runs past the end of '" + file.string() + "' (" + std::to_string(size)
                + " bytes)");
        std::int64_t elements = 1;
        for (auto d : t.dims())
            elements *= d;
        const auto per = static_cast<std::int64_t>(elementBytes(t.data_type()));
        if (per > 0 && elements * per != length)
            throw ImportError(what + ": external data holds " + std::to_string(length)
                + " bytes, its shape and type need " + std::to_string(elements * per));
        std::string bytes(static_cast<std::size_t>(length), '\0');
        std::ifstream in(file, std::ios::binary);
        in.seekg(offset);
        if (!in.read(bytes.data(), length))
            throw ImportError(
                what + ": reading " + std::to_string(length) + " bytes of '" + file.string() + "' failed");
        t.set_raw_data(std::move(bytes));
        t.clear_external_data();
        t.set_data_location(onnx::TensorProto::DEFAULT);
    }

    void loadGraph(onnx::GraphProto& graph)
    {
        for (auto& t : *graph.mutable_initializer())
            load(t);
        for (auto& node : *graph.mutable_node())
            for (auto& a : *node.mutable_attribute()) {
                if (a.has_t())
                    load(*a.mutable_t());
                if (a.has_g())
                    loadGraph(*a.mutable_g());
                for (auto& g : *a.mutable_graphs())
                    loadGraph(g);
            }
    }

private:
    static std::int64_t number(
        const std::map<std::string, std::string>& info, const char* key, std::int64_t fallback, const std::string& what)
    {
        const auto it = info.find(key);
        if (it == info.end() || it->second.empty())
            return fallback;
        try {
            std::size_t used = 0;
            const long long v = std::stoll(it->second, &used);
            if (used == it->second.size())
                return v;
        } catch (const std::exception&) {
        }
        throw ImportError(what + ": external data " + key + " '" + it->second + "' is not a number");
    }

    fs::path folder_;
};

} // namespace

void loadExternalData(onnx::ModelProto& model, const std::string& modelPath)
{
    ExternalReader(fs::path(modelPath).parent_path()).loadGraph(*model.mutable_graph());
}

} // namespace opsched::onnx_import
