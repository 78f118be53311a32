// Whether this build can profile with CUPTI, and which CUPTI it was built against.
#pragma once

#include <string>

namespace opsched {

struct CuptiInfo {
    bool built = false;
    unsigned apiVersion = 0; // CUPTI_API_VERSION of the loaded library
    std::string reason; // why profiling is not available, when not
};

CuptiInfo queryCupti();

} // namespace opsched
