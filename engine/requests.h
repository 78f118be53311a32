// What a user asks opsched to do (schedule, evaluate, map, run, profile), with the defaults of
// limits.h, each default here and nowhere else: opsched-cli's options derive from these (adding only
// how to print), and the window's Schedules, mapping and Profile panels fill the same requests
// (ScheduleRequest, MapRequest, ProfileRequest; engine/child_protocol.h turns the last two into a
// child's arguments).
#pragma once

#include "engine/limits.h"

#include "exec/output_check.h"
#include "graph/shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::engine {

// The model a command opens (MODEL, --batch, --shape; engine/model.h opens it).
struct ModelRequest {
    std::string model; // zoo:NAME[?key=value&...] or a model file
    std::int64_t batch = kBatch.def;
    InputShapes shapes; // free input dimensions (--shape)
};

// The model and device a command works on (MODEL, --batch, --device, --cuda-graph).
struct TargetRequest : ModelRequest {
    std::string device = kDefaultDevice; // a device reference (device_ref.h)
    bool cudaGraph = false;
};

// IOS pruning and lowering (--r, --s, --lowering).
struct PruningRequest {
    std::size_t r = kIosR.def;
    std::size_t s = kIosS.def;
    std::string lowering = kDefaultLowering; // barriers, events or best (plan/lowering.h, schedulers.h)
};

// One scheduler (or mapper, "map:NAME" over a device list) on an open model, as the window runs
// it; `opsched-cli schedule` takes the same through TargetRequest and PruningRequest.
struct ScheduleRequest {
    std::string scheduler = kDefaultScheduler;
    std::string device = kDefaultDevice; // a device reference, or a comma list for a mapper
    PruningRequest pruning;
    bool cudaGraph = false;
    std::int64_t batch = 0; // 0: the open model's batch; else the model rebuilt at this batch
    // Mappers only: latency (one input) or throughput (`inputs` inputs split per op, at batch 1).
    std::string objective = "latency";
    std::int64_t inputs = kMapInputs.def;
};

// A schedule or plan file evaluated on a device (`evaluate`, with a TargetRequest).
struct EvaluateRequest {
    std::string scheduleFile;
    std::string lowering; // empty: as the file says, else barriers
};

// A model's ops mapped across devices (`map`, the window's mappers).
struct MapRequest : ModelRequest {
    std::string devices; // comma-separated device references
    std::string mapper = kDefaultMapper;
    std::string objective = "latency"; // latency, throughput, pipeline or batch
    std::int64_t batchSize = 0; // batch: inputs per batch (0: a quarter of `inputs`, at least 1)
    std::string link; // GBPS[,LATENCY_US]; empty: the default links
    std::string memory; // GB per device; empty: each device's own
    double timeLimitSeconds = kMapTimeLimitSeconds.def;
    std::uint64_t seed = kDefaultMapSeed;
    std::int64_t inputs = kMapInputs.def;
    std::size_t maxModuleTasks = kMaxModuleTasks.def;
};

// A plan run on a backend and measured (`run`; engine/run/model_run.h).
struct RunRequest : ModelRequest {
    std::string schedule; // a schedule or plan file; empty: the sequential plan (or `scheduler`'s)
    std::string scheduler;
    std::string device = kDefaultDevice; // the cost model `scheduler` plans for
    PruningRequest pruning;
    std::string backend = "cpu"; // cpu or cuda
    int repeat = kRunRepeat.def;
    int rounds = kRunRounds.def; // 0: 3 for a mapping, else 1 (limits.h)
    int threads = kRunThreads.def;
    std::string input; // ONNX test data (a test_data_set_N folder, or a folder holding test_data_set_0)
    bool check = false; // outputs compared element-wise with the reference (input's, or the single-device run)
    Tolerance tolerance; // check; a single-device reference's defaults where the caller leaves them
    std::string cpuPartitions; // "0:1", "0,1:2-3": partitions by ':', cores by ',' or ranges
    bool tf32 = true; // cuda: TF32 tensor cores for convolutions
    std::string cudnn; // cuda: how convolutions run (exec/cuda/conv_variant.h)
    std::string mapping; // a mapping file: stream u of its plan on device u
    bool segments = false; // mapping through the segment runner on CPU devices too
    std::string fault; // an injected fault the check must catch (engine/run/run_check.h)
    std::string cpuLayout = "channels-last"; // cpu: activations' layout between convolutions (or nchw)
};

// Every model x scheduler x batch profiled into a results database (`profile`, the Profile panel).
struct ProfileRequest {
    std::vector<std::string> models;
    InputShapes shapes; // free input dimensions of the model files among `models` (--shape)
    std::string schedulers; // comma-separated; empty: every scheduler
    std::string batches = "1"; // comma-separated
    std::string device = kDefaultDevice;
    std::string database;
    int repeat = kProfileRepeat.def;
    PruningRequest pruning;
    bool cudaGraph = false;
    bool warps = false; // active warps sampled (CUPTI on cuda:N; the simulator's model on sim:)
    bool costCache = false; // the IOS search's stage costs kept in the database and reused
    std::string exportDir; // not empty: each new run's schedule and Chrome trace written here too
};

} // namespace opsched::engine
