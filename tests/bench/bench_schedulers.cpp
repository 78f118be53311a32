// Scheduler search times: IOS (states, transitions, seconds) on every zoo network, Nimble on a
// 1000-op random DAG, Opara on GoogLeNet. Medians over repeated runs, one process, one machine.
#include "model/model_ref.h"
#include "schedule/ios_scheduler.h"
#include "schedule/nimble_scheduler.h"
#include "schedule/opara_scheduler.h"
#include "sim/sim_device.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

using namespace opsched;

namespace {

double medianSeconds(int repeats, const std::function<void()>& f)
{
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main()
{
    const SimDevice& v100 = findSimDevice("sim:v100");
    std::printf("IOS search on sim:v100, batch 1, r=3, s=8 (median of 5, fresh cost cache each run)\n");
    std::printf(
        "%-14s %6s %6s %9s %12s %10s %10s\n", "model", "ops", "parts", "reused", "states", "transitions", "search_s");
    for (const char* m : { "zoo:inception_v3", "zoo:randwire", "zoo:nasnet_a", "zoo:squeezenet", "zoo:googlenet" }) {
        const Graph g = loadModel(m);
        IosResult last;
        const double s = medianSeconds(5, [&] {
            SimulatedStageCost cost(v100);
            last = iosSchedule(g, cost);
        });
        std::printf("%-14s %6zu %6zu %9zu %12zu %10zu %10.3f\n", g.name().c_str(), g.opCount(), last.parts,
            last.reusedParts, last.states, last.transitions, s);
    }

    const Graph big = loadModel("zoo:random?ops=1000&width=8&seed=1");
    NimbleStats ns;
    const double nimble = medianSeconds(21, [&] { nimblePlan(big, &ns); });
    std::printf("\nnimble on random 1000 ops: %.3f ms (streams %zu, syncs %zu)\n", nimble * 1e3, ns.streams, ns.syncs);

    const Graph googlenet = loadModel("zoo:googlenet");
    const double opara = medianSeconds(101, [&] { oparaPlan(googlenet, v100); });
    std::printf("opara on googlenet: %.4f ms\n", opara * 1e3);
    return 0;
}
