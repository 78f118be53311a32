#include "store/random_id.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

namespace opsched::store {

std::string randomHexId()
{
    std::random_device rd;
    std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd()
        ^ static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(gen()),
        static_cast<unsigned long long>(gen()));
    return buf;
}

} // namespace opsched::store
