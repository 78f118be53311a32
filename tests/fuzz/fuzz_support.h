// Shared by the fuzz targets: inputs that the product reads from a path go through a file on a
// RAM disk, rewritten for every input, so the target runs the same code the CLI runs.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace opsched::fuzz {

class ScratchFile {
public:
    explicit ScratchFile(const char* suffix)
    {
        const char* shm = "/dev/shm";
        const std::filesystem::path dir
            = std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
        path_ = (dir / ("opsched-fuzz-" + std::to_string(::getpid()) + suffix)).string();
    }
    ~ScratchFile() { removeAll(); }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    const std::string& write(const std::uint8_t* data, std::size_t size)
    {
        removeAll();
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        return path_;
    }

private:
    void removeAll()
    {
        for (const char* side : { "", "-wal", "-shm", "-journal" })
            std::remove((path_ + side).c_str());
    }
    std::string path_;
};

// A finding: the target saw something the product must never do (not an error it reports).
[[noreturn]] inline void finding(const char* what)
{
    std::fprintf(stderr, "fuzz finding: %s\n", what);
    std::abort();
}

} // namespace opsched::fuzz
