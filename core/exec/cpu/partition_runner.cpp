#include "exec/cpu/partition_runner.h"

#include "exec/cpu/cpu_executor.h"
#include "util/error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <set>

namespace opsched::cpu {

std::vector<int> availableCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return cores;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            cores.push_back(c);
    return cores;
}

void checkPartitions(const std::vector<std::vector<int>>& partitions)
{
    const std::vector<int> available = availableCores();
    std::string list;
    for (auto c : available)
        list += (list.empty() ? "" : ",") + std::to_string(c);
    std::set<int> seen;
    for (std::size_t p = 0; p < partitions.size(); ++p) {
        const std::string who = "CPU partition " + std::to_string(p);
        if (partitions[p].empty())
            throw Error(who + " has no cores");
        for (int c : partitions[p]) {
            if (std::find(available.begin(), available.end(), c) == available.end())
                throw Error(
                    who + ": core " + std::to_string(c) + " is not available to this process (cores: " + list + ")");
            if (!seen.insert(c).second)
                throw Error(
                    who + ": core " + std::to_string(c) + " is in another partition too; partitions must be disjoint");
        }
    }
}

void setOmpThreads(int threads)
{
    using SetNumThreads = void (*)(int);
    auto* fn = reinterpret_cast<SetNumThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    if (!fn)
        throw Error("this oneDNN build does not use OpenMP; its thread count cannot be set");
    fn(threads);
}

int ompThreads()
{
    using GetMaxThreads = int (*)();
    auto* fn = reinterpret_cast<GetMaxThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    return fn ? fn() : 0;
}

void releaseCallerOmpTeam()
{
    using PauseAll = int (*)(int);
    static auto* fn = reinterpret_cast<PauseAll>(dlsym(RTLD_DEFAULT, "omp_pause_resource_all"));
    if (fn)
        fn(2); // omp_pause_hard: the calling thread's pool is freed, its threads exit
}

PartitionRunner::PartitionRunner(const std::vector<std::vector<int>>& partitions, std::vector<LaunchWork> launches,
    std::vector<Step>& steps, const dnnl::engine& engine)
    : partitions_(partitions)
    , launches_(std::move(launches))
    , launchesOf_(partitions.size())
    , steps_(steps)
    , done_(std::make_unique<std::atomic<std::uint32_t>[]>(launches_.size()))
{
    checkPartitions(partitions_);
    for (std::size_t i = 0; i < launches_.size(); ++i) {
        done_[i].store(0);
        launchesOf_[static_cast<std::size_t>(launches_[i].partition)].push_back(static_cast<std::uint32_t>(i));
    }
    for (std::size_t p = 0; p < partitions_.size(); ++p)
        streams_.emplace_back(engine);
    for (std::size_t p = 0; p < partitions_.size(); ++p)
        threads_.emplace_back([this, p] { worker(static_cast<int>(p)); });
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return ready_ == static_cast<int>(partitions_.size()); });
    if (error_) {
        lock.unlock();
        std::exception_ptr e = error_;
        {
            std::lock_guard g(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_)
            t.join();
        threads_.clear();
        std::rethrow_exception(e);
    }
}

PartitionRunner::~PartitionRunner()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
        t.join();
}

void pinCallingThread(const std::vector<int>& cores)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cores)
        CPU_SET(c, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
        throw Error("cannot pin its thread to its cores");
    setOmpThreads(static_cast<int>(cores.size()));
}

void PartitionRunner::worker(int p)
{
    try {
        pinCallingThread(partitions_[static_cast<std::size_t>(p)]);
    } catch (const Error& e) {
        std::lock_guard lock(mutex_);
        if (!error_)
            error_ = std::make_exception_ptr(Error("CPU partition " + std::to_string(p) + ": " + e.what()));
    }
    std::uint32_t seen = 0;
    {
        std::lock_guard lock(mutex_);
        ++ready_;
    }
    finished_.notify_all();
    for (;;) {
        std::uint32_t gen;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_)
                return;
            gen = seen = generation_;
        }
        dnnl::stream& stream = streams_[static_cast<std::size_t>(p)];
        bool failed = false;
        for (auto i : launchesOf_[static_cast<std::size_t>(p)]) {
            const LaunchWork& w = launches_[i];
            for (auto j : w.waitFor) {
                for (int spin = 0; done_[j].load(std::memory_order_acquire) != gen; ++spin) {
                    if (spin < 2000)
                        continue;
                    const std::uint32_t v = done_[j].load(std::memory_order_acquire);
                    if (v != gen)
                        done_[j].wait(v, std::memory_order_acquire);
                }
            }
            const auto t0 = std::chrono::steady_clock::now();
            if (!failed) {
                try {
                    for (std::size_t s = w.firstStep; s < w.endStep; ++s)
                        steps_[s].run(stream);
                    stream.wait();
                } catch (...) {
                    failed = true; // later launches of this partition are skipped, still marked done
                    std::lock_guard lock(mutex_);
                    if (!error_)
                        error_ = std::current_exception();
                }
            }
            const auto t1 = std::chrono::steady_clock::now();
            (*timings_)[i]
                = LaunchTiming { i, std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - start_).count(),
                      std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - start_).count(), p };
            done_[i].store(gen, std::memory_order_release);
            done_[i].notify_all();
        }
        {
            std::lock_guard lock(mutex_);
            --running_;
        }
        finished_.notify_all();
    }
}

void PartitionRunner::run(std::vector<LaunchTiming>& timings, std::chrono::steady_clock::time_point start)
{
    releaseCallerOmpTeam();
    timings.assign(launches_.size(), LaunchTiming {});
    {
        std::lock_guard lock(mutex_);
        timings_ = &timings;
        start_ = start;
        error_ = nullptr;
        running_ = static_cast<int>(partitions_.size());
        ++generation_;
        if (generation_ == 0) // 0 means "never finished"; skip it on wrap-around
            ++generation_;
    }
    wake_.notify_all();
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
    if (error_)
        std::rethrow_exception(error_);
}

} // namespace opsched::cpu
