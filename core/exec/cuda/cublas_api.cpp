#include "exec/cuda/cublas_api.h"

#include "util/error.h"
#include "util/shared_library.h"

#include <optional>

namespace opsched::gpu {
namespace {

// The spelled-out type must select one of the header's overloads.
[[maybe_unused]] const CublasGemmStridedBatchedEx kHeaderSignature = &::cublasGemmStridedBatchedEx;

struct Loaded {
    std::optional<CublasApi> api;
    std::string reason;
};

template <typename Fn> bool resolve(const SharedLibrary& lib, Fn& slot, const char* name, std::string& reason)
{
    slot = lib.symbol<Fn>(name);
    if (!slot && reason.empty())
        reason = std::string("the cuBLAS library lacks '") + name + "'";
    return slot != nullptr;
}

Loaded load()
{
    static const SharedLibrary lib({ "libcublas.so.13", "libcublas.so.12", "libcublas.so" });
    Loaded out;
    if (!lib.loaded()) {
        out.reason = "cuBLAS (libcublas.so.13 or .so.12) was not found (" + lib.error() + ")";
        return out;
    }
    CublasApi api;
    std::string& reason = out.reason;
    // Exported names: cublas_v2.h maps the API names onto the _v2 entry points.
    bool ok = resolve(lib, api.getVersion, "cublasGetVersion_v2", reason);
    ok = resolve(lib, api.getStatusString, "cublasGetStatusString", reason) && ok;
    ok = resolve(lib, api.create, "cublasCreate_v2", reason) && ok;
    ok = resolve(lib, api.destroy, "cublasDestroy_v2", reason) && ok;
    ok = resolve(lib, api.setStream, "cublasSetStream_v2", reason) && ok;
    ok = resolve(lib, api.setWorkspace, "cublasSetWorkspace_v2", reason) && ok;
    ok = resolve(lib, api.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx", reason) && ok;
    if (ok)
        out.api = api;
    return out;
}

const Loaded& loaded()
{
    static const Loaded l = load();
    return l;
}

} // namespace

const CublasApi* cublasApi()
{
    return loaded().api ? &*loaded().api : nullptr;
}

const std::string& cublasUnavailableReason()
{
    return loaded().reason;
}

void checkCublas(cublasStatus_t status, const std::string& what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    const CublasApi* api = cublasApi();
    const char* name = api && api->getStatusString ? api->getStatusString(status) : "unknown";
    throw Error(what + ": cuBLAS error " + std::to_string(static_cast<int>(status)) + " (" + name + ")");
}

} // namespace opsched::gpu
