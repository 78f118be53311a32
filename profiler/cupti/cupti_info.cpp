#include "cupti/cupti_info.h"

#ifdef OPSCHED_HAVE_CUPTI
#include <cupti.h>
#endif

namespace opsched {

CuptiInfo queryCupti()
{
    CuptiInfo info;
#ifdef OPSCHED_HAVE_CUPTI
    info.built = true;
    uint32_t version = 0;
    if (cuptiGetVersion(&version) == CUPTI_SUCCESS)
        info.apiVersion = version;
    else
        info.reason = "the CUPTI library could not be queried";
#else
    info.reason = "this build of opsched has no CUPTI support (CUDA toolkit not found at build time)";
#endif
    return info;
}

} // namespace opsched
