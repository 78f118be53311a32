// Bytes -> ONNX import -> graph, as `opsched-cli info FILE.onnx` and File > Open do. Errors the
// importer reports (ImportError, an opsched::Error) are the expected outcome for damaged files;
// anything else escaping, a crash or a sanitizer report is a finding.
#include "fuzz_support.h"

#include "import/onnx_importer.h"
#include "report/model_summary.h"
#include "util/error.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static opsched::fuzz::ScratchFile file(".onnx");
    const std::string& path = file.write(data, size);
    try {
        const opsched::Graph graph = opsched::importOnnx(path);
        (void)opsched::summarize(graph);
    } catch (const opsched::Error&) {
    }
    return 0;
}
