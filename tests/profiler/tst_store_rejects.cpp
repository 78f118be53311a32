// Files that are not healthy opsched databases are refused with a message saying what they are,
// and their bytes are never changed, whichever way they are opened.
#include "profiler_test_support.h"

#include "store/store.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

using store::Connection;
using store::OpenMode;
using store::Store;

// Opens `path` both ways and checks each fails with `expected` in its message and no byte changes.
void expectRefusedUntouched(const std::string& path, const std::string& expected)
{
    const auto before = test::fileHash(path);
    const auto size = std::filesystem::file_size(path);
    for (auto mode : { OpenMode::ReadOnly, OpenMode::ReadWrite }) {
        try {
            Store::open(path, mode);
            ADD_FAILURE() << "opened " << path << (mode == OpenMode::ReadOnly ? " read-only" : " read-write");
        } catch (const store::StoreError& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "names the file: " << e.what();
        }
        EXPECT_EQ(test::fileHash(path), before);
        EXPECT_EQ(std::filesystem::file_size(path), size);
    }
}

// A healthy database with a few runs, checkpointed into the main file.
std::string makeDatabase(const test::TempDir& dir, const std::string& name)
{
    const auto path = dir.file(name);
    Store db = Store::open(path, OpenMode::ReadWrite);
    db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
    db.writeRun(test::simulatedRun("zoo:squeezenet", "ios"));
    db.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return path;
}

TEST(StoreRejects, FileThatIsNotSqlite)
{
    test::TempDir dir;
    const auto path = dir.file("notes.db");
    std::string bytes;
    for (int i = 0; i < 5000; ++i)
        bytes += static_cast<char>('a' + (i * 7) % 26);
    test::writeBytes(path, bytes);
    expectRefusedUntouched(path, "not an SQLite file");
}

TEST(StoreRejects, SqliteDatabaseOfAnotherApplication)
{
    test::TempDir dir;
    const auto path = dir.file("shop.db");
    {
        Connection c(path, Connection::Access::Create);
        c.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'Ada');");
    }
    expectRefusedUntouched(path, "another application");
    Connection c(path, Connection::Access::ReadOnly);
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM sqlite_schema"), 1) << "no tables were added";
}

TEST(StoreRejects, CorruptDatabase)
{
    test::TempDir dir;
    const auto path = makeDatabase(dir, "corrupt.db");
    std::string bytes = test::readBytes(path);
    const std::size_t page = 4096;
    ASSERT_GT(bytes.size(), 6 * page);
    // Garbage over the b-tree headers of pages 2 to 5; the file header (page 1) stays valid.
    for (std::size_t p = 1; p < 5; ++p)
        for (std::size_t i = 0; i < 64; ++i)
            bytes[p * page + i] = static_cast<char>(0xA5 ^ i);
    test::writeBytes(path, bytes);
    expectRefusedUntouched(path, "corrupt");
}

TEST(StoreRejects, TruncatedDatabase)
{
    test::TempDir dir;
    const auto path = makeDatabase(dir, "truncated.db");
    std::string bytes = test::readBytes(path);
    test::writeBytes(path, bytes.substr(0, bytes.size() / 2));
    expectRefusedUntouched(path, "corrupt");
}

TEST(StoreRejects, MarkedButWithoutSchemaVersion)
{
    test::TempDir dir;
    const auto path = dir.file("marked.db");
    {
        Connection c(path, Connection::Access::Create);
        c.exec("PRAGMA application_id = " + std::to_string(store::kApplicationId) + "; CREATE TABLE t (x);");
    }
    expectRefusedUntouched(path, "no schema version");
}

TEST(StoreRejects, EmptyFileIsANewDatabaseForWritingOnly)
{
    test::TempDir dir;
    const auto path = dir.file("empty.db");
    test::writeBytes(path, "");
    EXPECT_THROW(Store::open(path, OpenMode::ReadOnly), store::StoreError);
    EXPECT_EQ(std::filesystem::file_size(path), 0U);
    Store db = Store::open(path, OpenMode::ReadWrite);
    EXPECT_TRUE(db.created());
    EXPECT_EQ(db.connection().queryInt("PRAGMA user_version"), store::kSchemaVersion);
}

// What a writer killed while creating the database leaves: WAL mode set, no schema committed.
// Nothing to protect: a writer makes it a database, a reader says it is empty.
TEST(StoreRejects, BlankSqliteFileIsANewDatabaseForWritingOnly)
{
    test::TempDir dir;
    const auto path = dir.file("blank.db");
    {
        Connection c(path, Connection::Access::Create);
        EXPECT_EQ(c.queryText("PRAGMA journal_mode = WAL"), "wal");
    }
    ASSERT_GT(std::filesystem::file_size(path), 0U);
    const auto before = test::fileHash(path);
    try {
        Store::open(path, OpenMode::ReadOnly);
        ADD_FAILURE() << "read a blank file";
    } catch (const store::StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("empty SQLite file"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::fileHash(path), before);
    Store db = Store::open(path, OpenMode::ReadWrite);
    EXPECT_TRUE(db.created());
    EXPECT_EQ(db.connection().queryInt("PRAGMA user_version"), store::kSchemaVersion);
    db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
}

// Another process created the file between this one's check and its write lock: no second schema.
TEST(StoreRejects, SchemaIsCreatedOnce)
{
    test::TempDir dir;
    const auto path = dir.file("twice.db");
    Store first = Store::open(path, OpenMode::ReadWrite);
    Connection late(path, Connection::Access::ReadWrite);
    EXPECT_FALSE(store::createSchema(late));
    EXPECT_EQ(first.connection().queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'runs'"), 1);
}

TEST(StoreRejects, Directory)
{
    test::TempDir dir;
    std::filesystem::create_directories(dir.file("sub"));
    EXPECT_THROW(Store::open(dir.file("sub"), OpenMode::ReadWrite), store::StoreError);
}

} // namespace
} // namespace opsched
