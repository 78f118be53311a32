#include "commands.h"
#include "common_options.h"

#include "engine/model.h"

#include <iostream>
#include <memory>

namespace opsched::cli {

Runner addInfoCommand(CLI::App& app)
{
    struct Options {
        std::string model;
        std::int64_t batch = engine::kBatch.def;
        InputShapes shapes;
        bool json = false;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("info", "Describe a model: ops, work, width, blocks, critical path");
    cmd->add_option("MODEL", opts->model, "zoo:NAME[?key=value&...] or a model file")->required();
    addBatchOption(*cmd, opts->batch);
    addShapeOption(*cmd, opts->shapes);
    cmd->add_flag("--json", opts->json, "Print a JSON document instead of the summary");

    return [opts]() {
        const ModelDescription info = describeModel(openModel({ opts->model, opts->batch, opts->shapes }));
        if (opts->json)
            std::cout << info.json.dump(2) << "\n";
        else
            std::cout << info.text;
        return kExitOk;
    };
}

} // namespace opsched::cli
