#include "cupti/cupti_info.h"

#include "util/shared_library.h"

#include <cstdint>

namespace opsched {

CuptiInfo queryCupti()
{
    CuptiInfo info;
#ifdef OPSCHED_HAVE_CUPTI
    info.built = true;
    // CUPTI is opened at run time, so opsched starts where it is not installed.
    static const SharedLibrary cupti({ "libcupti.so.13", "libcupti.so" });
    using GetVersion = int (*)(std::uint32_t*);
    std::uint32_t version = 0;
    if (auto getVersion = cupti.symbol<GetVersion>("cuptiGetVersion"); getVersion && getVersion(&version) == 0)
        info.apiVersion = version;
    else
        info.reason = cupti.loaded() ? "the CUPTI library could not be queried"
                                     : "CUPTI is not installed (" + cupti.error() + ")";
#else
    info.reason = "this build of opsched has no CUPTI support (CUDA toolkit not found at build time)";
#endif
    return info;
}

} // namespace opsched
