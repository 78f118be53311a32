// What oneDNN's implementation names say about a kernel. Needs no oneDNN: the CLI, the tests and
// the benchmarks read the names the executor reports (CpuExecutor::primitives()).
#pragma once

#include <string>

namespace opsched::cpu {

// Whether the step runs one of oneDNN's reference kernels (plain C++ loops, 10 to 1000 times
// slower than its JIT kernels): "convolution ref:any", "pooling ref:any", ... The name may start
// with the primitive's kind ("convolution jit:avx2") or be oneDNN's name alone ("ref:any").
bool isReferenceImplementation(const std::string& implementation);

} // namespace opsched::cpu
