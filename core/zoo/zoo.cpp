#include "zoo/zoo.h"

#include "graph/graph_builder.h"

#include "util/error.h"
#include "zoo/networks.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace opsched::zoo {
namespace {

struct ParsedSpec {
    std::string name;
    std::map<std::string, std::string> params;
};

ParsedSpec parse(std::string_view spec)
{
    ParsedSpec out;
    const auto q = spec.find('?');
    out.name = std::string(spec.substr(0, q));
    if (q == std::string_view::npos)
        return out;
    std::string_view rest = spec.substr(q + 1);
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view item = rest.substr(0, amp);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw ModelRefError(
                "zoo:" + std::string(spec) + ": parameter '" + std::string(item) + "' is not of the form key=value");
        out.params[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
        rest = amp == std::string_view::npos ? std::string_view {} : rest.substr(amp + 1);
    }
    return out;
}

std::int64_t integer(const ParsedSpec& s, const std::string& key, std::int64_t fallback)
{
    const auto it = s.params.find(key);
    if (it == s.params.end())
        return fallback;
    std::int64_t value = 0;
    const auto& text = it->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc {} || end != text.data() + text.size())
        throw ModelRefError("zoo:" + s.name + ": parameter " + key + "='" + text + "' is not an integer");
    return value;
}

} // namespace

const std::vector<ZooEntry>& catalogue()
{
    static const std::vector<ZooEntry> entries {
        { "inception_v3", "Inception V3, 299x299, Conv-Relu units (IOS Table 2: 119)", {} },
        { "randwire", "RandWire, WS(4, 0.75) stages, Relu-SepConv units (IOS Table 2: 120)", { "seed" } },
        { "nasnet_a", "NASNet-A large, 331x331, stem 96, filters 168 (IOS Table 2: 374)", {} },
        { "squeezenet", "SqueezeNet 1.0 with bypass, 224x224 (IOS Table 2: 50)", {} },
        { "googlenet", "GoogLeNet / Inception v1, 224x224", {} },
        { "random", "random layered DAG of 3x3 conv units, for tests", { "ops", "width", "seed" } },
        { "rwnn", "stacked random modules (DiviML): gen=ws|er|ba, n nodes, C channels between modules, dep=sdep|wdep",
            { "gen", "n", "modules", "channels", "dep", "seed", "width", "res" } },
        { "bert", "BERT-base: 12 post-LN layers, hidden 768, 12 heads, vocab 30522; seq tokens (128)",
            { "seq", "layers" } },
        { "gpt2", "GPT-2 small: 12 pre-LN layers, hidden 768, causal, tied LM head; seq tokens (128)",
            { "seq", "layers" } },
        { "t5", "T5-small: 6+6 layers (layers= per stack), d_model 512, 8 heads, RMS norm; seq tokens (128)",
            { "seq", "layers" } },
        { "vit", "ViT-B/16, 224x224: 16x16 patches, class token, 12 pre-LN layers", { "layers" } },
        { "gpt3",
            "GPT-3 175B decoder layers (96), d_model 12288, d_ff 49152; one step of tokens (20); dtype fp32 "
            "(default) or fp16; cost-only",
            { "layers", "tokens", "dtype" } },
    };
    return entries;
}

Graph build(std::string_view spec, std::int64_t batch)
{
    const ParsedSpec s = parse(spec);
    const auto& all = catalogue();
    const auto entry = std::find_if(all.begin(), all.end(), [&](const ZooEntry& e) { return e.name == s.name; });
    if (entry == all.end()) {
        std::string names;
        for (const auto& e : all)
            names += (names.empty() ? "" : ", ") + e.name;
        throw ModelRefError("unknown zoo network '" + s.name + "' (available: " + names + ")");
    }
    for (const auto& [key, value] : s.params)
        if (std::find(entry->parameters.begin(), entry->parameters.end(), key) == entry->parameters.end()) {
            std::string keys;
            for (const auto& k : entry->parameters)
                keys += (keys.empty() ? "" : ", ") + k;
            throw ModelRefError("zoo:" + s.name + " has no parameter '" + key + "'"
                + (keys.empty() ? std::string(" (it takes none)") : " (accepted: " + keys + ")"));
        }
    if (batch < 1 || batch > 65536)
        throw ModelRefError("batch size must be between 1 and 65536, got " + std::to_string(batch));

    if (s.name == "inception_v3")
        return inceptionV3(batch);
    if (s.name == "randwire")
        return randWire(batch, static_cast<std::uint64_t>(integer(s, "seed", 1)));
    if (s.name == "nasnet_a")
        return nasnetA(batch);
    if (s.name == "squeezenet")
        return squeezeNet(batch);
    if (s.name == "googlenet")
        return googLeNet(batch);
    if (s.name == "rwnn") {
        RwnnParams r;
        const auto gen = s.params.count("gen") ? s.params.at("gen") : std::string("er");
        if (gen == "ws")
            r.generator = RwnnParams::Generator::WattsStrogatz;
        else if (gen == "er")
            r.generator = RwnnParams::Generator::ErdosRenyi;
        else if (gen == "ba")
            r.generator = RwnnParams::Generator::BarabasiAlbert;
        else
            throw ModelRefError("zoo:rwnn: gen must be ws, er or ba, got '" + gen + "'");
        const auto dep = s.params.count("dep") ? s.params.at("dep") : std::string("sdep");
        if (dep != "sdep" && dep != "wdep")
            throw ModelRefError("zoo:rwnn: dep must be sdep or wdep, got '" + dep + "'");
        r.strongDependency = dep == "sdep";
        auto small = [&](const char* key, int fallback) {
            return static_cast<int>(std::clamp<std::int64_t>(integer(s, key, fallback), -1, 1'000'000));
        };
        r.nodes = small("n", r.nodes);
        r.modules = small("modules", r.modules);
        r.channels = small("channels", r.channels);
        r.seed = static_cast<std::uint64_t>(integer(s, "seed", 1));
        r.width = small("width", static_cast<int>(r.width));
        r.resolution = small("res", static_cast<int>(r.resolution));
        return rwnn(batch, r);
    }
    const auto transformer = [&](int layers) {
        TransformerParams t;
        t.seq = integer(s, "seq", t.seq);
        // Clamped only to fit an int; the builders check the range and name the value.
        t.layers = static_cast<int>(std::clamp<std::int64_t>(integer(s, "layers", layers), -1'000'000, 1'000'000));
        return t;
    };
    if (s.name == "bert")
        return bert(batch, transformer(12));
    if (s.name == "gpt2")
        return gpt2(batch, transformer(12));
    if (s.name == "t5")
        return t5(batch, transformer(6));
    if (s.name == "vit")
        return vit(batch, transformer(12).layers);
    if (s.name == "gpt3") {
        const auto dtype = s.params.count("dtype") ? s.params.at("dtype") : std::string("fp32");
        if (dtype != "fp32" && dtype != "fp16")
            throw ModelRefError("zoo:gpt3: dtype must be fp32 or fp16, got '" + dtype + "'");
        Graph g = gpt3(batch, integer(s, "layers", 96), integer(s, "tokens", 20));
        // Weights and activations in half precision: half the bytes, the same FLOPs.
        return dtype == "fp16" ? GraphBuilder::withStorageType(g, DataType::Float16) : g;
    }
    RandomDagParams p;
    p.ops = static_cast<int>(std::clamp<std::int64_t>(integer(s, "ops", p.ops), -1, 1'000'000));
    p.width = static_cast<int>(std::clamp<std::int64_t>(integer(s, "width", p.width), -1, 1'000'000));
    p.seed = static_cast<std::uint64_t>(integer(s, "seed", static_cast<std::int64_t>(p.seed)));
    return randomDag(batch, p);
}

std::string costOnlyReason(const Graph& graph)
{
    if (graph.name() != "gpt3")
        return {};
    return "zoo:gpt3 is a cost-only graph (GPT-3 175B's weights are 6.75 GiB per layer in FP32): it can be costed "
           "and mapped (`info`, `map`, `compare --devices`) but not run";
}

} // namespace opsched::zoo
