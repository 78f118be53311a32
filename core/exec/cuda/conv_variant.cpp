#include "exec/cuda/conv_variant.h"

#include "util/error.h"

#include <charconv>

namespace opsched::gpu {

namespace {

void setField(ConvVariant& v, std::string_view key, std::string_view value)
{
    const std::string where = std::string(key) + "=" + std::string(value);
    if (key == "epilogue") {
        if (value == "fused")
            v.epilogue = ConvVariant::Epilogue::Fused;
        else if (value == "separate")
            v.epilogue = ConvVariant::Epilogue::Separate;
        else
            throw Error(where + ": epilogue is fused or separate");
    } else if (key == "algo") {
        if (value == "find")
            v.algo = ConvVariant::Algo::Find;
        else if (value == "heuristic")
            v.algo = ConvVariant::Algo::Heuristic;
        else
            throw Error(where + ": algo is find or heuristic");
    } else if (key == "workspace-mb") {
        std::int64_t mb = -1;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), mb);
        if (ec != std::errc() || end != value.data() + value.size() || mb < 0 || mb > 65536)
            throw Error(where + ": workspace-mb is a whole number of MiB from 0 to 65536");
        v.workspaceBytes = mb << 20;
    } else {
        throw Error("unknown key '" + std::string(key) + "' (epilogue, algo, workspace-mb)");
    }
}

} // namespace

ConvVariant parseConvVariant(std::string_view text)
{
    ConvVariant v;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view {} : text.substr(comma + 1);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw Error("'" + std::string(item) + "' is not KEY=VALUE");
        setField(v, item.substr(0, eq), item.substr(eq + 1));
    }
    return v;
}

std::string toString(const ConvVariant& v)
{
    return std::string("epilogue=") + (v.epilogue == ConvVariant::Epilogue::Fused ? "fused" : "separate")
        + ",algo=" + (v.algo == ConvVariant::Algo::Find ? "find" : "heuristic")
        + ",workspace-mb=" + std::to_string(v.workspaceBytes >> 20);
}

} // namespace opsched::gpu
