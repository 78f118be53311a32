// CliProcess: what MapProcess and ProfileProcess share for running opsched-cli as a child: the
// CLI checked before it runs, stdout lines, a bounded stderr tail, a crash reported as such, and a
// cancel that kills a child ignoring SIGTERM once the grace period is over. Shell scripts stand
// in for opsched-cli.
#include "fake_cli.h"
#include "profile/cli_process.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using opsched::CliProcess;

class TestCliProcess : public QObject {
    Q_OBJECT

private slots:
    void refusesAMissingOrNonExecutableCli();
    void readsStdoutLinesAndExitCode();
    void crashIsACrashExitWithItsStderr();
    void stderrTailIsBounded();
    void cancelKillsAChildThatIgnoresTerm();
    void cancelOfAPoliteChildDoesNotKill();
    void aChildThatCannotStartIsReported();
    void abandonEmitsNothing();

private:
    QString fakeCli(const QByteArray& body) { return opsched::test::writeFakeCli(dir_, body); }
    // Starts the script `body`, stdout read as lines.
    QString launch(CliProcess& p, const QByteArray& body)
    {
        p.setCliPath(fakeCli(body));
        const QString cli = p.runnableCli(QStringLiteral("none"));
        if (!cli.isEmpty())
            p.launch(cli, { QStringLiteral("profile"), QStringLiteral("x") }, CliProcess::Stdout::Lines);
        return cli;
    }
    QTemporaryDir dir_;
};

void TestCliProcess::refusesAMissingOrNonExecutableCli()
{
    CliProcess p;
    p.setCliPath(dir_.filePath(QStringLiteral("no-such-opsched-cli")));
    QVERIFY(p.runnableCli(QStringLiteral("not found")).isEmpty());
    QVERIFY2(p.lastError().contains(QStringLiteral("OPSCHED_CLI")), qPrintable(p.lastError()));
    QVERIFY(!p.isRunning());
    qputenv("OPSCHED_CLI", dir_.filePath(QStringLiteral("from-env")).toUtf8());
    QCOMPARE(CliProcess::findCli(), dir_.filePath(QStringLiteral("from-env")));
    qunsetenv("OPSCHED_CLI");
}

void TestCliProcess::readsStdoutLinesAndExitCode()
{
    CliProcess p;
    QSignalSpy started(&p, &CliProcess::started);
    QSignalSpy lines(&p, &CliProcess::stdoutLine);
    QSignalSpy exited(&p, &CliProcess::exited);
    const QString cli = launch(p, "echo \"args: $*\"\necho\necho '  second  '\nexit 4");
    QVERIFY(!cli.isEmpty());
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.at(0).at(0).toString(), cli + QStringLiteral(" profile x"));
    QVERIFY(p.isRunning());
    QVERIFY(exited.wait(10000));
    QVERIFY(!p.isRunning());
    QCOMPARE(lines.size(), 2); // the empty line is skipped, the others trimmed
    QCOMPARE(lines.at(0).at(0).toString(), QStringLiteral("args: profile x"));
    QCOMPARE(lines.at(1).at(0).toString(), QStringLiteral("second"));
    QCOMPARE(exited.at(0).at(0).toInt(), 4);
    QCOMPARE(exited.at(0).at(1).value<QProcess::ExitStatus>(), QProcess::NormalExit);
    QCOMPARE(p.stderrTail(), QStringLiteral("(nothing on stderr)"));
}

void TestCliProcess::crashIsACrashExitWithItsStderr()
{
    CliProcess p;
    QSignalSpy exited(&p, &CliProcess::exited);
    QVERIFY(!launch(p, "echo 'driver fell over' >&2\nkill -SEGV $$").isEmpty());
    QVERIFY(exited.wait(10000));
    QCOMPARE(exited.at(0).at(1).value<QProcess::ExitStatus>(), QProcess::CrashExit);
    QVERIFY(!p.wasCancelled());
    QCOMPARE(p.stderrTail(), QStringLiteral("driver fell over"));
}

void TestCliProcess::stderrTailIsBounded()
{
    CliProcess p;
    QSignalSpy exited(&p, &CliProcess::exited);
    // 40 000 characters in chunks, then a last line: the tail keeps the end.
    QVERIFY(!launch(p,
        "i=0; while [ $i -lt 400 ]; do printf '%099d\\n' $i >&2; sleep 0.001; i=$((i+1)); done\n"
        "echo 'the end' >&2")
                 .isEmpty());
    QVERIFY(exited.wait(20000));
    QVERIFY2(p.stderrTail().size() <= 4000, qPrintable(QString::number(p.stderrTail().size())));
    QVERIFY(p.stderrTail().endsWith(QStringLiteral("the end")));
    QVERIFY2(p.stderrText().size() < 40000, qPrintable(QString::number(p.stderrText().size())));
}

void TestCliProcess::cancelKillsAChildThatIgnoresTerm()
{
    CliProcess p;
    p.setGracePeriod(300);
    QSignalSpy lines(&p, &CliProcess::stdoutLine);
    QSignalSpy exited(&p, &CliProcess::exited);
    QVERIFY(!launch(p, "trap '' TERM\necho ready\nwhile true; do sleep 0.05; done").isEmpty());
    QVERIFY(lines.wait(10000));
    QElapsedTimer clock;
    clock.start();
    p.cancel();
    QVERIFY(exited.wait(10000));
    QVERIFY(clock.elapsed() >= 250);
    QVERIFY(p.wasCancelled());
    QVERIFY(p.wasKilled());
    QVERIFY(!p.isRunning());
}

void TestCliProcess::cancelOfAPoliteChildDoesNotKill()
{
    CliProcess p;
    p.setGracePeriod(5000);
    QSignalSpy lines(&p, &CliProcess::stdoutLine);
    QSignalSpy exited(&p, &CliProcess::exited);
    QVERIFY(!launch(p, "trap 'exit 143' TERM\necho ready\nwhile true; do sleep 0.05; done").isEmpty());
    QVERIFY(lines.wait(10000));
    p.cancel();
    QVERIFY(exited.wait(10000));
    QCOMPARE(exited.at(0).at(0).toInt(), 143);
    QVERIFY(p.wasCancelled());
    QVERIFY(!p.wasKilled());
}

void TestCliProcess::aChildThatCannotStartIsReported()
{
    CliProcess p;
    QSignalSpy failed(&p, &CliProcess::failedToStart);
    QSignalSpy exited(&p, &CliProcess::exited);
    // Executable, but its interpreter does not exist: exec fails.
    const QString cli = fakeCli("exit 0");
    QFile f(cli);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("#!/no/such/interpreter\n");
    f.close();
    p.setCliPath(cli);
    QCOMPARE(p.runnableCli(QString()), cli);
    p.launch(cli, {}, CliProcess::Stdout::Discard);
    QVERIFY(failed.size() == 1 || failed.wait(10000));
    QVERIFY2(failed.at(0).at(0).toString().startsWith(QStringLiteral("Could not start")),
        qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!p.isRunning());
    QTest::qWait(100);
    QCOMPARE(exited.size(), 0);
}

void TestCliProcess::abandonEmitsNothing()
{
    CliProcess p;
    QSignalSpy exited(&p, &CliProcess::exited);
    QVERIFY(!launch(p, "while true; do sleep 0.05; done").isEmpty());
    QVERIFY(p.isRunning());
    p.abandon();
    QVERIFY(!p.isRunning());
    QTest::qWait(100);
    QCOMPARE(exited.size(), 0);
}

QTEST_GUILESS_MAIN(TestCliProcess)
#include "tst_cliprocess.moc"
