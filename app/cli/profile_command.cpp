// `profile`: headless batch profiling into a results database. Thin: option parsing, the progress
// display and signal handling; the batch itself is engine::profileBatch (the window's Profile panel
// runs this command as a child process).
#include "commands.h"
#include "common_options.h"
#include "engine/child_protocol.h"
#include "engine/run/mapping_profile.h"
#include "engine/run/profile_batch.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <sys/ioctl.h>

namespace opsched::cli {
namespace {

std::atomic<bool> gStop { false };
std::atomic<int> gSignal { 0 };

extern "C" void onStopSignal(int signo)
{
    gSignal.store(signo);
    gStop.store(true);
    // Only async-signal-safe calls here. SA_RESETHAND restored the default: a second one kills.
    static const char msg[] = "\nopsched-cli: stopping after the current job (a schedule search in progress is "
                              "dropped); Ctrl-C again aborts at once\n";
    const auto ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
}

// Ctrl-C and SIGTERM (Slurm's notice before a time limit) stop the batch between jobs.
class StopSignals {
public:
    StopSignals()
    {
        struct sigaction sa { };
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_RESTART; // SQLite's writes carry on undisturbed
        sigaction(SIGINT, &sa, &oldInt_);
        sigaction(SIGTERM, &sa, &oldTerm_);
    }
    ~StopSignals()
    {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }

private:
    struct sigaction oldInt_ { };
    struct sigaction oldTerm_ { };
};

std::string clock(double seconds)
{
    const auto s = static_cast<long long>(seconds + 0.5);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

// The progress of a batch: JSON lines on stdout with --progress json (the window reads them,
// engine/child_protocol.h); otherwise a bar with ETA on a terminal (stderr), and plain lines
// elsewhere (stdout, e.g. a Slurm log).
class Progress {
public:
    explicit Progress(bool json)
        : json_(json)
        , tty_(!json && isatty(STDERR_FILENO) == 1)
        , t0_(std::chrono::steady_clock::now())
    {
    }

    void operator()(const profiler::JobEvent& e)
    {
        using Event = engine::child::ProgressEvent;
        Event event;
        event.total = e.total;
        event.what = (e.modelName.empty() ? e.job->modelRef : e.modelName) + " " + e.job->scheduler + " batch "
            + std::to_string(e.job->batch);
        event.otherBatch = e.otherBatch;
        if (e.kind == profiler::JobEvent::Kind::Started) {
            if (tty_)
                drawBar(e.index, e.total, event.what);
            return;
        }
        if (e.kind == profiler::JobEvent::Kind::Waiting) {
            event.kind = Event::Kind::Waiting; // not finished: no [i/n]
            if (!tty_)
                return print(event);
            clearBar();
            std::fprintf(stderr, "%s\n", engine::child::describe(event).c_str());
            drawBar(finished_, e.total, event.what);
            return;
        }
        ++finished_;
        if (e.outcome != profiler::JobOutcome::Skipped) {
            ++ran_;
            ranSeconds_ += e.seconds;
        }
        event.done = e.index + 1;
        event.seconds = e.seconds;
        switch (e.outcome) {
        case profiler::JobOutcome::Skipped:
            event.outcome = Event::Outcome::Skipped;
            break;
        case profiler::JobOutcome::Failed:
            event.outcome = Event::Outcome::Failed;
            event.error = e.error;
            break;
        case profiler::JobOutcome::Done:
            event.medianMs = store::latencyStats(e.run->latenciesNs).medianNs * 1e-6;
            event.activeWarps = e.run->averageActiveWarps;
            event.run = e.runId.value();
            event.notes = e.run->notes;
            break;
        }
        if (!tty_)
            return print(event);
        if (e.outcome == profiler::JobOutcome::Failed) {
            clearBar();
            std::fprintf(stderr, "%s\n", engine::child::describe(event).c_str());
        }
        drawBar(e.index + 1, e.total, event.what);
    }

    void finish()
    {
        if (tty_)
            clearBar();
    }

    // The line of a finished job, a wait or the summary, as JSON or for people.
    void print(const engine::child::ProgressEvent& event) const
    {
        const std::string line = json_ ? engine::child::toJsonLine(event) : engine::child::describe(event);
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }

    // A remark for people: beside the lines on stdout, or on stderr when stdout is JSON.
    void note(const std::string& text) const { std::fprintf(json_ ? stderr : stdout, "%s\n", text.c_str()); }

private:
    void clearBar()
    {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }

    void drawBar(std::size_t done, std::size_t total, const std::string& what)
    {
        winsize ws {};
        const int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 40 ? ws.ws_col : 80;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        // Skipped jobs take no time: estimate from the jobs that ran.
        std::string eta = "--:--";
        if (ran_ > 0)
            eta = clock(ranSeconds_ / static_cast<double>(ran_) * static_cast<double>(total - done));
        char tail[96];
        std::snprintf(tail, sizeof tail, " %zu/%zu %s ETA %s ", done, total, clock(elapsed).c_str(), eta.c_str());
        const int barWidth = std::max(10, std::min(30, width / 4));
        const auto filled
            = total ? static_cast<int>(barWidth * static_cast<double>(done) / static_cast<double>(total)) : 0;
        std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#')
            + std::string(static_cast<std::size_t>(barWidth - filled), '.') + "]" + tail;
        const int room = width - static_cast<int>(bar.size()) - 1;
        if (room > 0)
            bar += what.substr(0, static_cast<std::size_t>(room));
        std::fprintf(stderr, "\r\033[K%s", bar.c_str());
        std::fflush(stderr);
    }

    bool json_;
    bool tty_;
    std::chrono::steady_clock::time_point t0_;
    std::size_t finished_ = 0, ran_ = 0;
    double ranSeconds_ = 0;
};

// The request (engine/requests.h) and what only the CLI offers.
struct ProfileOptions : engine::ProfileRequest {
    std::string mapping;
    std::string progress = "text";
};

// MODEL and the options of `profile`, on `o`.
void addProfileOptions(CLI::App& cmd, ProfileOptions& o)
{
    cmd.add_option("MODEL", o.models, "zoo:NAME[?key=value&...] or model files")->required();
    addShapeOption(cmd, o.shapes); // for every model file among MODEL
    // Lists are one comma-separated argument, so MODEL arguments after them stay models.
    cmd.add_option("--schedulers", o.schedulers, "Comma-separated schedulers (default: all)");
    cmd.add_option("--batch,-b", o.batches, "Comma-separated batch sizes")
        ->check(CLI::Validator(
            [](std::string& list) {
                try {
                    (void)engine::batchList(list);
                    return std::string();
                } catch (const Error& e) {
                    return std::string(e.what());
                }
            },
            "N[,N...]"))
        ->capture_default_str();
    cmd.add_option(
           "--device,-d", o.device, "Device: sim:NAME, sim:FILE.json, or cuda:N (measured on the local GPU with CUPTI)")
        ->capture_default_str();
    cmd.add_option("--mapping", o.mapping,
        "Run this mapping (from `map -o`, CPU devices) on the one MODEL and store it as a run: one "
        "stream per device, one span per op");
    cmd.add_option("--db", o.database, "Results database (created if missing; complete jobs are skipped)")->required();
    cmd.add_flag("--warps", o.warps, "Record active warps (samples and their average)");
    cmd.add_option("--repeat", o.repeat, "Latency measurements per run")
        ->check(rangeOf(engine::kProfileRepeat))
        ->capture_default_str();
    cmd.add_option("--export-dir", o.exportDir, "Also write each new run's schedule and Chrome trace here");
    addPruningOptions(cmd, o.pruning);
    cmd.add_flag("--cuda-graph", o.cudaGraph, "Run plans as one CUDA graph replay (no host launches)");
    cmd.add_flag("--cost-cache", o.costCache, "Keep the IOS search's stage costs in the database and reuse them");
    cmd.add_option("--progress", o.progress,
           "How finished jobs are reported: text (a bar on a terminal, lines otherwise) or json (one JSON object "
           "per line on stdout, for programs: docs/cli.md)")
        ->check(CLI::IsMember({ "text", "json" }))
        ->capture_default_str();
}

// Runs the jobs until done or stopped by a signal, and says how it went (the exit code).
int runProfileCommand(const ProfileOptions& o)
{
    if (!o.mapping.empty()) {
        if (o.models.size() != 1)
            throw Error("--mapping: give exactly one MODEL (the one the mapping was made for)");
        const auto batches = engine::batchList(o.batches);
        if (batches.size() != 1)
            throw Error("--mapping: give one batch size (the mapping's)");
        const engine::MappingProfile p
            = engine::profileMapping({ o.models.front(), batches.front(), o.mapping, o.database, o.repeat });
        std::printf("stored run %lld: %s on %s, makespan %.3f ms median of %d", static_cast<long long>(p.id.value()),
            p.model.c_str(), p.devices.c_str(), p.medianMs, o.repeat);
        if (p.predictedMs > 0)
            std::printf(" (predicted %.3f ms)", p.predictedMs);
        std::printf("\n");
        return kExitOk;
    }
    // The bar's clock and the signal handlers start with the first job: until then (checking the
    // request, loading the models, opening the database) Ctrl-C ends the command at once.
    std::optional<Progress> progress;
    std::optional<StopSignals> signals;
    const bool gpu = cudaDeviceIndex(o.device).has_value();
    bool warnedWarps = false;
    engine::ProfileHooks hooks;
    hooks.beforeRun = [&] {
        gStop = false;
        gSignal = 0;
        signals.emplace();
        progress.emplace(o.progress == "json");
    };
    hooks.onJob = [&](const profiler::JobEvent& e) {
        (*progress)(e);
        // A GPU that cannot be sampled (permissions, another profiler) still gets its runs.
        if (gpu && o.warps && !warnedWarps && e.kind == profiler::JobEvent::Kind::Finished
            && e.outcome == profiler::JobOutcome::Done && !e.run->warpsCollected) {
            warnedWarps = true;
            std::fprintf(
                stderr, "opsched-cli: warning: runs are stored without active warps: %s\n", e.run->notes.c_str());
        }
    };
    hooks.note = [](const std::string& text) { std::fprintf(stderr, "opsched-cli: %s\n", text.c_str()); };
    hooks.cancel = &gStop;
    profiler::BatchResult result;
    try {
        result = engine::profileBatch(o, hooks);
    } catch (...) {
        if (progress)
            progress->finish();
        throw;
    }
    if (!progress) // no job ran: nothing to finish, and the summary still says so
        progress.emplace(o.progress == "json");
    progress->finish();

    engine::child::ProgressEvent summary;
    summary.kind = engine::child::ProgressEvent::Kind::Summary;
    summary.total = result.total;
    summary.ran = result.done;
    summary.skipped = result.skipped;
    summary.failed = result.failed;
    summary.interrupted = result.interrupted;
    summary.seconds = result.seconds;
    summary.database = o.database;
    progress->print(summary);
    if (result.interrupted) {
        progress->note("interrupted: every finished job is in the database; run the same command to resume");
        const int signo = gSignal.load();
        return signo ? 128 + signo : kExitInterrupted;
    }
    return result.failed ? kExitSomeJobsFailed : kExitOk;
}

} // namespace

Runner addProfileCommand(CLI::App& app)
{
    auto opts = std::make_shared<ProfileOptions>();
    auto* cmd = app.add_subcommand("profile", "Profile every model x scheduler x batch into a results database");
    addProfileOptions(*cmd, *opts);
    return [opts]() { return runProfileCommand(*opts); };
}

} // namespace opsched::cli
