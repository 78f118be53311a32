// 128 random bits as 32 hex digits: run uids and job-claim owners, unique across processes and
// machines writing one database.
#pragma once

#include <string>

namespace opsched::store {

std::string randomHexId();

} // namespace opsched::store
