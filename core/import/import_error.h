// Errors of the ONNX importer and the TensorProto reader. They are ModelRefErrors so that every
// caller of loadModel (CLI, GUI) reports them like any other model that cannot be opened.
#pragma once

#include "util/error.h"

namespace opsched {

class ImportError : public ModelRefError {
public:
    using ModelRefError::ModelRefError;
};

} // namespace opsched

namespace opsched::onnx_import {

// A node that cannot be imported; the importer adds the node's name and op type and lists every
// such node in one message.
class NodeError : public ImportError {
public:
    using ImportError::ImportError;
};

} // namespace opsched::onnx_import
