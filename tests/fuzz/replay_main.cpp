// The fuzz targets without libFuzzer (gcc builds, the test command): runs every file of the given
// corpus folders and files through the target, then `--mutate N` seeded mutations of each (bit
// flips, byte runs, truncation, splices of two inputs; for targets with a structure-aware mutator,
// json_mutator.h, every other mutation is that one), so CI catches a regression in seconds.
// Prints how many inputs ran. libFuzzer builds (the fuzz preset) use libFuzzer's own main.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Defined by targets that mutate their inputs' structure (json_mutator.h); absent otherwise.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed)
    __attribute__((weak));

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes readAll(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
}

Bytes mutate(const Bytes& in, const Bytes& other, std::mt19937_64& rng)
{
    Bytes b = in;
    const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t { 0 } : static_cast<std::size_t>(rng() % n); };
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        switch (rng() % 5) {
        case 0: // flip a bit
            if (!b.empty())
                b[pick(b.size())] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
            break;
        case 1: { // overwrite a run with one interesting byte
            static constexpr std::uint8_t kBytes[] = { 0x00, 0xff, 0x7f, 0x80, '"', '-', '9', '{', '[', ',' };
            const std::size_t at = pick(b.size()), n = 1 + pick(8);
            for (std::size_t k = at; k < std::min(b.size(), at + n); ++k)
                b[k] = kBytes[rng() % std::size(kBytes)];
            break;
        }
        case 2: // truncate
            b.resize(pick(b.size() + 1));
            break;
        case 3: { // duplicate a slice
            if (b.empty())
                break;
            const std::size_t at = pick(b.size()), n = 1 + pick(std::min<std::size_t>(64, b.size() - at));
            b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at),
                b.begin() + static_cast<std::ptrdiff_t>(at + n));
            break;
        }
        default: { // splice: a prefix of this input, a suffix of another
            const std::size_t cut = pick(b.size() + 1), from = pick(other.size() + 1);
            b.resize(cut);
            b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
            break;
        }
        }
    }
    return b;
}

Bytes customMutate(const Bytes& in, std::mt19937_64& rng)
{
    Bytes b = in;
    b.resize(std::max<std::size_t>(4 * in.size(), 4096));
    b.resize(LLVMFuzzerCustomMutator(b.data(), in.size(), b.size(), static_cast<unsigned>(rng())));
    return b;
}

// Runs one input; an exception escaping the target is a finding (libFuzzer reports it as a crash):
// the input is written to replay-finding.bin in the working folder for a regression test.
bool runOne(const Bytes& input)
{
    try {
        LLVMFuzzerTestOneInput(input.data(), input.size());
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "replay: finding: an exception escaped the target: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "replay: finding: an exception of unknown type escaped the target\n");
    }
    std::ofstream("replay-finding.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(input.data()), static_cast<std::streamsize>(input.size()));
    std::fprintf(stderr, "replay: the input (%zu bytes) is in replay-finding.bin\n", input.size());
    return false;
}

} // namespace

// libFuzzer's byte-level mutator, which structure-aware mutators fall back on; here, the replay's own.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize)
{
    static std::mt19937_64 rng(7);
    const Bytes in(data, data + size);
    Bytes out = mutate(in, in, rng);
    out.resize(std::min(out.size(), maxSize));
    std::copy(out.begin(), out.end(), data);
    return out.size();
}

int main(int argc, char** argv)
{
    long mutations = 0;
    std::uint64_t seed = 1;
    std::vector<Bytes> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--mutate" && i + 1 < argc) {
            mutations = std::strtol(argv[++i], nullptr, 10);
        } else if (arg == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::filesystem::is_directory(arg)) {
            std::vector<std::filesystem::path> files;
            for (const auto& e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file())
                    files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const auto& f : files)
                inputs.push_back(readAll(f));
        } else if (std::filesystem::is_regular_file(arg)) {
            inputs.push_back(readAll(arg));
        } else {
            std::fprintf(stderr, "replay: no such file or folder: %s\n", arg.c_str());
            return 2;
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "replay: no inputs (give corpus folders or files)\n");
        return 2;
    }
    for (const auto& in : inputs)
        if (!runOne(in))
            return 1;
    std::mt19937_64 rng(seed);
    long runs = 0;
    for (long m = 0; m < mutations; ++m) {
        const Bytes& base = inputs[static_cast<std::size_t>(m) % inputs.size()];
        const Bytes next = (LLVMFuzzerCustomMutator && m % 2 == 1) ? customMutate(base, rng)
                                                                   : mutate(base, inputs[rng() % inputs.size()], rng);
        if (!runOne(next))
            return 1;
        ++runs;
    }
    std::printf("replay: %zu corpus inputs and %ld mutations (seed %llu) ran without a finding\n", inputs.size(), runs,
        static_cast<unsigned long long>(seed));
    return 0;
}
