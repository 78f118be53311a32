// Small shell scripts standing in for opsched-cli, for the tests of the views that run it as a
// child process: they crash, ignore SIGTERM or print what a test needs, when asked.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace opsched::test {

// Writes an executable /bin/sh script running `body` into `dir` and returns its path; each call
// gets a new file, so a test can swap scripts while an old one still runs.
inline QString writeFakeCli(const QTemporaryDir& dir, const QByteArray& body)
{
    static int n = 0;
    const QString path = dir.filePath(QStringLiteral("fake-cli-%1.sh").arg(++n));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write("#!/bin/sh\n" + body + "\n");
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace opsched::test
