#include "commands.h"

#include "engine/catalog.h"

#include <iostream>

namespace opsched::cli {

Runner addZooCommand(CLI::App& app)
{
    app.add_subcommand("zoo", "List the built-in networks (use them as zoo:NAME)");
    return []() {
        for (const auto& e : engine::builtInNetworks()) {
            std::string params;
            for (const auto& p : e.parameters)
                params += (params.empty() ? "?" : "&") + p + "=N";
            std::cout << "zoo:" << e.name << params << "\n    " << e.summary << "\n";
        }
        return kExitOk;
    };
}

} // namespace opsched::cli
