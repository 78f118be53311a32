// Optional libraries (cuDNN, CUPTI) are opened at run time, so opsched starts on machines that do
// not have them and says what is missing instead of failing to load.
#pragma once

#include <initializer_list>
#include <string>

namespace opsched {

class SharedLibrary {
public:
    // Tries each name in turn (e.g. "libcudnn.so.9", "libcudnn.so"); check loaded().
    explicit SharedLibrary(std::initializer_list<const char*> names);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    bool loaded() const { return handle_ != nullptr; }
    const std::string& error() const { return error_; } // why it could not be opened

    // The symbol cast to a function pointer type, or nullptr.
    template <typename F> F symbol(const char* name) const { return reinterpret_cast<F>(rawSymbol(name)); }

private:
    void* rawSymbol(const char* name) const;
    void* handle_ = nullptr;
    std::string error_;
};

} // namespace opsched
