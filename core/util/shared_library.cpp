#include "util/shared_library.h"

#include <dlfcn.h>

namespace opsched {

SharedLibrary::SharedLibrary(std::initializer_list<const char*> names)
{
    for (const char* name : names) {
        handle_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle_)
            return;
        if (const char* e = dlerror())
            error_ = e;
    }
}

SharedLibrary::~SharedLibrary()
{
    if (handle_)
        dlclose(handle_);
}

void* SharedLibrary::rawSymbol(const char* name) const
{
    return handle_ ? dlsym(handle_, name) : nullptr;
}

} // namespace opsched
