// Errors the user can act on. Everything that reaches the CLI or the GUI as a message is one of these.
#pragma once

#include <stdexcept>
#include <string>

namespace opsched {

// Base class: the message names the problem and, where it helps, what to do instead.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A graph that cannot be built: cycles, dangling inputs, shapes that do not fit.
class GraphError : public Error {
public:
    using Error::Error;
};

// A model reference that cannot be resolved (unknown zoo name, bad parameter, missing file).
class ModelRefError : public Error {
public:
    using Error::Error;
};

} // namespace opsched
