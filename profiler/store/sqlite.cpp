#include "store/sqlite.h"

#include <sqlite3.h>

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

namespace opsched::store {
namespace {

bool writableInPlace(const std::string& path)
{
    if (path.empty() || path == ":memory:")
        return false;
    const std::filesystem::path file(path);
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    return ::access(file.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
}

// Why a write to the database at `path` (or its -wal/-journal) found no room, or "" when it is
// not that: the errno SQLite kept, else the file-size limit against the files' sizes, else the
// free space of the file system.
std::string noRoomFor(const std::string& path, int systemErrno)
{
    const auto limitText = [](const std::string& bytes) {
        return "file too large: the file-size limit (ulimit -f" + bytes + ") stops it growing";
    };
    switch (systemErrno) {
    case ENOSPC:
        return "disk full: no space left on the device that holds it";
    case EDQUOT:
        return "disk full: the disk quota is exhausted";
    case EFBIG:
        return limitText("");
    default:
        break;
    }
    if (path.empty() || path == ":memory:")
        return {};
    constexpr std::uintmax_t kRoom = 1 << 20; // SQLite writes a page (or a WAL frame) at a time: far less
    rlimit limit {};
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        for (const char* suffix : { "", "-wal", "-journal" }) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(path + suffix, ec);
            if (!ec && size + kRoom > static_cast<std::uintmax_t>(limit.rlim_cur))
                return limitText(", " + std::to_string(limit.rlim_cur) + " bytes");
        }
    }
    const std::filesystem::path file(path);
    const std::string folder = file.has_parent_path() ? file.parent_path().string() : std::string(".");
    struct statvfs fs { };
    if (statvfs(folder.c_str(), &fs) == 0 && static_cast<std::uintmax_t>(fs.f_bavail) * fs.f_frsize < kRoom)
        return "disk full: no space left on the device that holds it";
    return {};
}

} // namespace

Connection::Connection(const std::string& path, Access access)
    : path_(path)
{
    int flags = SQLITE_OPEN_NOMUTEX;
    // Reading a WAL database through a read-only connection leaves its -wal and -shm files behind
    // (only a connection that may write removes them when it closes last). So a reader opens the
    // file read-write where it may and forbids itself every change (query_only); SQLite's own
    // locking then decides, as for any reader, when the side files go. Where the file or its folder
    // is not writable it opens read-only (and SQLite could not have made side files there anyway).
    bool queryOnly = false;
    switch (access) {
    case Access::ReadOnly:
        if (writableInPlace(path)) {
            flags |= SQLITE_OPEN_READWRITE;
            queryOnly = true;
        } else {
            flags |= SQLITE_OPEN_READONLY;
        }
        break;
    case Access::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Access::Create:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    }
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError("cannot open database '" + path + "': " + msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    if (queryOnly)
        exec("PRAGMA query_only = ON");
    // A batch writer holds the write lock for one run (or one job claim) at a time, well under a
    // second; readers and other writers wait for it rather than failing. SQLite's busy handler
    // retries until the timeout: a minute for writers, so several batches sharing a database never
    // see "database is locked"; ten seconds for readers, which WAL rarely makes wait at all.
    sqlite3_busy_timeout(db_, access == Access::ReadOnly ? 10000 : 60000);
}

Connection Connection::memory()
{
    return Connection(":memory:", Access::Create);
}

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr))
    , path_(std::move(other.path_))
{
}

Connection& Connection::operator=(Connection&& other) noexcept
{
    if (this != &other) {
        sqlite3_close_v2(db_);
        db_ = std::exchange(other.db_, nullptr);
        path_ = std::move(other.path_);
    }
    return *this;
}

Connection::~Connection()
{
    sqlite3_close_v2(db_);
}

void Connection::fail(const std::string& what) const
{
    const int code = db_ ? sqlite3_extended_errcode(db_) : SQLITE_ERROR;
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "not open";
    const std::string where = "database '" + path_ + "': ";
    using Reason = StoreError::Reason;
    switch (code & 0xff) {
    case SQLITE_NOTADB:
        throw StoreError(where + "not an opsched results database (not an SQLite file at all)", Reason::NotADatabase);
    case SQLITE_CORRUPT:
        throw StoreError(where + "the file is corrupt (" + msg + "); it was left as it is", Reason::Corrupt);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        throw StoreError(where + "locked by another process for too long (" + msg + "; " + what + ")", Reason::Busy);
    case SQLITE_READONLY:
        throw StoreError(where + "cannot write (" + msg + ")", Reason::ReadOnly);
    case SQLITE_FULL: {
        const std::string why = noRoomFor(path_, db_ ? sqlite3_system_errno(db_) : 0);
        throw StoreError(
            where + (why.empty() ? "disk full: no space left on the device that holds it" : why) + " (" + msg + ")",
            Reason::Full);
    }
    case SQLITE_IOERR:
        // A write that finds no room fails with ENOSPC or EDQUOT, or with EFBIG past the file-size
        // limit (ulimit -f; SIGXFSZ is ignored, see main.cpp). SQLite reports SQLITE_FULL for only
        // some of these and "disk I/O error" for the rest, and its errno is often gone by now:
        // look at the file system and the limit to say what it is.
        if (const std::string why = noRoomFor(path_, db_ ? sqlite3_system_errno(db_) : 0); !why.empty())
            throw StoreError(where + why + " (" + msg + ")", Reason::Full);
        break;
    default:
        break;
    }
    throw StoreError(where + what + ": " + msg);
}

void Connection::exec(std::string_view sql)
{
    const std::string text(sql);
    char* err = nullptr;
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        sqlite3_free(err);
        fail("cannot run '" + text.substr(0, 60) + "'");
    }
}

Statement Connection::prepare(std::string_view sql)
{
    return Statement(*this, sql);
}

std::optional<std::int64_t> Connection::queryInt(std::string_view sql)
{
    Statement st(*this, sql);
    if (!st.step() || st.isNull(0))
        return std::nullopt;
    return st.getInt(0);
}

std::optional<std::string> Connection::queryText(std::string_view sql)
{
    Statement st(*this, sql);
    if (!st.step() || st.isNull(0))
        return std::nullopt;
    return st.getText(0);
}

std::int64_t Connection::lastInsertId() const
{
    return sqlite3_last_insert_rowid(db_);
}

int Connection::changes() const
{
    return sqlite3_changes(db_);
}

void Connection::copyTo(Connection& target)
{
    sqlite3_backup* backup = sqlite3_backup_init(target.db_, "main", db_, "main");
    if (!backup)
        target.fail("cannot copy database");
    const int rc = sqlite3_backup_step(backup, -1);
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE)
        fail("cannot copy database");
}

Statement::Statement(Connection& conn, std::string_view sql)
    : conn_(&conn)
{
    if (sqlite3_prepare_v2(conn.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
        conn.fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
}

Statement::Statement(Statement&& other) noexcept
    : conn_(other.conn_)
    , stmt_(std::exchange(other.stmt_, nullptr))
{
}

Statement::~Statement()
{
    sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, std::int64_t value)
{
    if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK)
        conn_->fail("cannot bind");
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK)
        conn_->fail("cannot bind");
    return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
    if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        conn_->fail("cannot bind");
    return *this;
}

Statement& Statement::bindNull(int index)
{
    if (sqlite3_bind_null(stmt_, index) != SQLITE_OK)
        conn_->fail("cannot bind");
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    const char* sql = sqlite3_sql(stmt_);
    conn_->fail("query '" + std::string(sql ? sql : "").substr(0, 60) + "' failed");
}

void Statement::run()
{
    while (step()) { }
    reset();
}

void Statement::reset()
{
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::getInt(int column) const
{
    return sqlite3_column_int64(stmt_, column);
}

double Statement::getDouble(int column) const
{
    return sqlite3_column_double(stmt_, column);
}

std::string Statement::getText(int column) const
{
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::optional<std::int64_t> Statement::getOptionalInt(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return getInt(column);
}

std::optional<double> Statement::getOptionalDouble(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return getDouble(column);
}

Transaction::Transaction(Connection& conn)
    : conn_(conn)
{
    conn_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction()
{
    if (!done_) {
        // Rolling back can only fail when SQLite already rolled back; nothing else to do then.
        sqlite3_exec(conn_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit()
{
    conn_.exec("COMMIT");
    done_ = true;
}

} // namespace opsched::store
