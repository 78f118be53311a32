#include "map_inputs.h"

namespace opsched::cli {

void addMapInputOptions(CLI::App& cmd, MapInputOptions& o)
{
    cmd.add_option("--costs", o.costs,
        "Cost table (CSV op,device,batch,ms or JSON; docs/formats.md): costs of the devices it lists, "
        "ops matched by name");
    cmd.add_option("--topology", o.topology,
        "Multi-node system (JSON; docs/formats.md): nodes, their devices, intra- and inter-node links");
    cmd.add_option("--links", o.links,
        "Per-pair links (CSV from,to,gbps,latency_us or JSON); pairs not listed keep "
        "--link (or the default)");
    cmd.add_option("--write-costs", o.writeCosts, "Write the costs used (a cost table; .csv or .json) to FILE");
    cmd.add_option("--symmetry", o.symmetry,
           "MILP symmetry breaking between identical devices and nodes: none (default), tasks, time, batches")
        ->check(CLI::IsMember({ "none", "tasks", "time", "batches" }));
}

} // namespace opsched::cli
