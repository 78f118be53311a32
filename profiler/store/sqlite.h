// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed binds and
// reads, and a transaction guard that rolls back unless committed. Every failure becomes a
// StoreError naming the database file and what SQLite said.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace opsched::store {

class StoreError : public Error {
public:
    // What went wrong, for callers that add advice (a full disk: make room, then resume).
    enum class Reason { Other, NotADatabase, Corrupt, Busy, ReadOnly, Full };
    explicit StoreError(const std::string& message, Reason reason = Reason::Other)
        : Error(message)
        , reason_(reason)
    {
    }
    Reason reason() const { return reason_; }

private:
    Reason reason_;
};

class Statement;

class Connection {
public:
    enum class Access { ReadOnly, ReadWrite, Create };

    Connection() = default;
    // Opens without reading anything: SQLite checks the file lazily, at the first statement.
    Connection(const std::string& path, Access access);
    // An empty in-memory database (used to migrate an old file without touching it).
    static Connection memory();
    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();

    bool isOpen() const { return db_ != nullptr; }
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }

    // Runs one or more statements with no parameters and no result rows.
    void exec(std::string_view sql);
    Statement prepare(std::string_view sql);
    // The first column of the first row, or nullopt without rows.
    std::optional<std::int64_t> queryInt(std::string_view sql);
    std::optional<std::string> queryText(std::string_view sql);
    std::int64_t lastInsertId() const;
    int changes() const;

    // Copies the whole database into `target` (SQLite's online backup).
    void copyTo(Connection& target);

    // "'path': message" for errors, with SQLite's own message appended.
    [[noreturn]] void fail(const std::string& what) const;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

class Statement {
public:
    Statement(Connection& conn, std::string_view sql);
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&&) = delete;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    // Parameters are 1-based, as in SQLite.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, std::uint32_t value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bindNull(int index);
    template <typename T> Statement& bind(int index, const std::optional<T>& value)
    {
        return value ? bind(index, *value) : bindNull(index);
    }

    // Advances to the next row: true while there is one.
    bool step();
    // Runs a statement that returns no rows.
    void run();
    void reset();

    bool isNull(int column) const;
    std::int64_t getInt(int column) const;
    double getDouble(int column) const;
    std::string getText(int column) const;
    std::optional<std::int64_t> getOptionalInt(int column) const;
    std::optional<double> getOptionalDouble(int column) const;

private:
    Connection* conn_;
    sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so a concurrent writer waits
// in busy_timeout instead of failing half way), ROLLBACK on destruction unless commit() ran.
class Transaction {
public:
    explicit Transaction(Connection& conn);
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();
    void commit();

private:
    Connection& conn_;
    bool done_ = false;
};

} // namespace opsched::store
