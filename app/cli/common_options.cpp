#include "common_options.h"

#include "engine/catalog.h"
#include "engine/model.h"

#include "util/error.h"

namespace opsched::cli {

void addTargetOptions(CLI::App& cmd, TargetOptions& o)
{
    cmd.add_option("MODEL", o.model, "zoo:NAME[?key=value&...] or a model file")->required();
    addBatchOption(cmd, o.batch);
    addShapeOption(cmd, o.shapes);
    cmd.add_option("--device,-d", o.device,
           "Device: sim:NAME (sim:v100, sim:a100, sim:h100, sim:t4, ...), sim:FILE.json (from `calibrate`), "
           "or cuda:N (measured on the local GPU)")
        ->capture_default_str();
    cmd.add_flag("--cuda-graph", o.cudaGraph, "Estimate plans as one CUDA graph replay (no host launches)");
    cmd.add_flag("--json", o.json, "Print JSON");
}

CLI::Option* addBatchOption(CLI::App& cmd, std::int64_t& batch)
{
    return cmd.add_option("--batch,-b", batch, "Batch size")->check(rangeOf(engine::kBatch));
}

CLI::Option* addShapeOption(CLI::App& cmd, InputShapes& shapes)
{
    return cmd
        .add_option_function<std::vector<std::string>>(
            "--shape",
            [&shapes](const std::vector<std::string>& specs) {
                shapes.clear();
                for (const auto& s : specs) {
                    try {
                        engine::addShapeSpec(shapes, s);
                    } catch (const Error& e) {
                        throw CLI::ValidationError(e.what());
                    }
                }
            },
            "An ONNX model's free input dimensions: NAME=DxDx... per input (repeatable), or DxDx... for a model "
            "with one input; dimension 0 is the batch (--batch)")
        ->type_name("NAME=DIMS")
        ->allow_extra_args(false);
}

void addPruningOptions(CLI::App& cmd, PruningOptions& o)
{
    cmd.add_option("--r", o.r, "IOS pruning: most ops per group")->check(rangeOf(engine::kIosR))->capture_default_str();
    cmd.add_option("--s", o.s, "IOS pruning: most groups per stage (greedy: most ops per stage)")
        ->check(rangeOf(engine::kIosS))
        ->capture_default_str();
    cmd.add_option("--lowering", o.lowering,
           "How stage schedules become plans: barriers (every stage boundary joins all streams, as the IOS "
           "search assumes), events (only the waits a dependency needs), or best (both evaluated whole on "
           "the device, the faster kept)")
        ->check(CLI::IsMember({ "barriers", "events", "best" }))
        ->capture_default_str();
}

std::string schedulerNameList()
{
    std::string all;
    for (const auto& name : engine::schedulerNames())
        all += (all.empty() ? "" : ", ") + name;
    return all;
}

std::string mapperNameList()
{
    std::string all;
    for (const auto& m : engine::mapperEntries())
        all += (all.empty() ? "" : ", ") + m.name;
    return all;
}

void addCostCacheOptions(CLI::App& cmd, CostCacheOptions& o)
{
    auto* file = cmd.add_option("--cost-cache-file", o.file,
        "With --device cuda:N: where measured stage costs are kept between runs (default "
        "$XDG_CACHE_HOME/opsched/stage-costs.db, else ~/.cache/opsched/stage-costs.db)");
    cmd.add_flag("--no-cost-cache", o.disabled, "With --device cuda:N: keep measured stage costs in memory only")
        ->excludes(file);
}

} // namespace opsched::cli
