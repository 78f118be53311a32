#include "exec/cpu/kernel_names.h"

namespace opsched::cpu {

bool isReferenceImplementation(const std::string& implementation)
{
    // oneDNN names its reference kernels "ref..." ("ref:any", "ref_fused_convolution:any") or
    // "<kind>_ref" ("bnorm_ref:any"); the others "jit...", "brg...", "gemm:jit", "simple:any"
    // (vectorised reorders), "ncsp_bnorm:any", "x64:...".
    const auto space = implementation.find(' ');
    const std::string name = space == std::string::npos ? implementation : implementation.substr(space + 1);
    return name.rfind("ref", 0) == 0 || name.find("_ref") != std::string::npos;
}

} // namespace opsched::cpu
