// Runs a plan's launches on disjoint CPU core partitions at the same time: one worker thread per
// partition, pinned to its cores, with its own oneDNN stream and OpenMP thread team (libgomp keeps
// one team per thread that starts parallel regions; its threads inherit the worker's affinity).
// Each worker runs its partition's launches in launch order; a launch first waits for the
// launches of other partitions it depends on (the plan's waits and barriers). Internal to the CPU
// backend (cpu_executor.cpp builds the dependencies and step ranges).
#pragma once

#include "exec/cpu/onednn_ops.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace opsched::cpu {

struct LaunchTiming;

// The cores this process may run on (its affinity mask), ascending.
std::vector<int> availableCores();
// Throws Error naming the partition when a set is empty, names a core the process may not run
// on, or shares a core with another partition.
void checkPartitions(const std::vector<std::vector<int>>& partitions);
// Sets the calling thread's OpenMP thread count (oneDNN's OpenMP runtime, loaded with libdnnl).
// oneDNN reads it when it creates a primitive and runs that primitive with as many threads, so a
// partition's primitives are created with its core count.
void setOmpThreads(int threads);
// The calling thread's OpenMP thread count, or 0 when the runtime is not OpenMP.
int ompThreads();
// Lets the idle OpenMP team of the calling thread go (omp_pause_resource_all; other threads'
// teams are untouched). libgomp counts every pooled thread, and once they outnumber the cores it
// stops spinning at barriers: a team left on the thread that called run() (a serial executor run
// there before) would double the partitions' kernel times.
void releaseCallerOmpTeam();

struct LaunchWork {
    int partition = 0;
    std::size_t firstStep = 0, endStep = 0; // the builder's steps [firstStep, endStep)
    std::vector<std::uint32_t> waitFor; // launches on other partitions to finish first
};

class PartitionRunner {
public:
    PartitionRunner(const std::vector<std::vector<int>>& partitions, std::vector<LaunchWork> launches,
        std::vector<Step>& steps, const dnnl::engine& engine);
    ~PartitionRunner();
    PartitionRunner(const PartitionRunner&) = delete;
    PartitionRunner& operator=(const PartitionRunner&) = delete;

    // Runs every launch once; timings[i] gets launch i's times relative to `start`. Rethrows the
    // first error a worker met (the other launches still finish, so nothing waits forever).
    void run(std::vector<LaunchTiming>& timings, std::chrono::steady_clock::time_point start);

private:
    void worker(int p);

    std::vector<std::vector<int>> partitions_;
    std::vector<LaunchWork> launches_;
    std::vector<std::vector<std::uint32_t>> launchesOf_; // per partition, in launch order
    std::vector<Step>& steps_;
    std::vector<dnnl::stream> streams_;
    std::unique_ptr<std::atomic<std::uint32_t>[]> done_; // the generation a launch last finished in
    std::vector<LaunchTiming>* timings_ = nullptr;
    std::chrono::steady_clock::time_point start_;

    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::uint32_t generation_ = 0;
    int running_ = 0;
    int ready_ = 0; // workers pinned and waiting
    bool stop_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> threads_;
};

} // namespace opsched::cpu
