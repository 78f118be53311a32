// What the tests of mapping files in the window share: reading and writing the files, and the
// message loadMappingResult refuses one with.
#pragma once

#include "engine/results/mapping_file_result.h"

#include "graph/graph.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

#include <fstream>
#include <string>

namespace opsched::test {

// The CLI's rwnn the mapping-file tests map: small, two channels, a fixed seed.
inline const char* const kMappedModel = "zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=3&res=64";

inline nlohmann::json readJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

inline void writeText(const QString& path, const std::string& text)
{
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out << text;
}

// Settings and the CLI's cost cache kept out of the user's: one settings file per process (tests
// of several checkouts may run at once), the cache in the test's own folder.
inline void isolateFromTheUser(const QString& testName, const QTemporaryDir& dir)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("%1-%2").arg(testName).arg(QCoreApplication::applicationPid()));
    qputenv("XDG_CACHE_HOME", dir.filePath(QStringLiteral("cache")).toUtf8());
}

// The message of the Error loadMappingResult throws; empty when it loads.
inline QString refusal(const Graph& graph, const QString& path)
{
    try {
        loadMappingResult(graph, path.toStdString());
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace opsched::test
