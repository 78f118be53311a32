// ProfileProcess: the opsched-cli child's progress lines (JSON, engine/child_protocol.h), exit codes,
// crashes and cancellation, with small shell scripts standing in for opsched-cli.
#include "fake_cli.h"
#include "profile/profile_process.h"

#include "engine/child_protocol.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using opsched::ProfileProcess;
using opsched::engine::ProfileRequest;
using opsched::engine::child::ProgressEvent;

class TestProfileProcess : public QObject {
    Q_OBJECT

private slots:
    void buildsTheCommandLine();
    void reportsEachJobAndSucceeds();
    void reportsACrashWithItsStderr();
    void reportsRefusedInput();
    void listsFailedJobs();
    void passesTextLinesThrough();
    void cancelTerminatesPolitely();
    void cancelKillsAChildThatIgnoresTerm();
    void missingCliIsReported();
    void refusesASecondBatch();

private:
    QString fakeCli(const QByteArray& body) { return opsched::test::writeFakeCli(dir_, body); }
    // A shell line printing what opsched-cli --progress json prints for a finished job.
    static QByteArray jobLine(std::size_t done, std::size_t total, const char* what, const char* error = nullptr)
    {
        ProgressEvent e;
        e.done = done;
        e.total = total;
        e.what = what;
        e.seconds = 0.01;
        if (error) {
            e.outcome = ProgressEvent::Outcome::Failed;
            e.error = error;
        } else {
            e.medianMs = 1.0;
            e.run = static_cast<std::int64_t>(done);
        }
        return "echo '" + QByteArray::fromStdString(opsched::engine::child::toJsonLine(e)) + "'\n";
    }
    QTemporaryDir dir_;
};

static ProfileRequest sampleRequest()
{
    ProfileRequest r;
    r.models = { "zoo:squeezenet" };
    r.schedulers = "sequential,ios";
    r.batches = "1,8";
    r.device = "sim:h100";
    r.database = "/tmp/x.db";
    return r;
}

void TestProfileProcess::buildsTheCommandLine()
{
    ProfileRequest r = sampleRequest();
    r.warps = true;
    r.cudaGraph = true;
    r.shapes = { { "image", { 1, 3, 64, 64 } } };
    const QStringList args = opsched::profileArguments(r);
    QCOMPARE(args.first(), QStringLiteral("profile"));
    QCOMPARE(args.at(1), QStringLiteral("zoo:squeezenet"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--schedulers")) + 1), QStringLiteral("sequential,ios"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--batch")) + 1), QStringLiteral("1,8"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--device")) + 1), QStringLiteral("sim:h100"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--db")) + 1), QStringLiteral("/tmp/x.db"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--shape")) + 1), QStringLiteral("image=1x3x64x64"));
    QCOMPARE(args.at(args.indexOf(QStringLiteral("--progress")) + 1), QStringLiteral("json"));
    QVERIFY(args.contains(QStringLiteral("--warps")));
    QVERIFY(args.contains(QStringLiteral("--cuda-graph")));
    r.warps = false;
    r.schedulers.clear(); // every scheduler: no --schedulers at all
    QVERIFY(!opsched::profileArguments(r).contains(QStringLiteral("--warps")));
    QVERIFY(!opsched::profileArguments(r).contains(QStringLiteral("--schedulers")));
}

void TestProfileProcess::reportsEachJobAndSucceeds()
{
    ProfileProcess p;
    ProgressEvent summary;
    summary.kind = ProgressEvent::Kind::Summary;
    summary.total = summary.ran = 2;
    summary.database = "x.db";
    p.setCliPath(fakeCli(jobLine(1, 2, "squeezenet sequential batch 1") + jobLine(2, 2, "squeezenet ios batch 1")
        + "echo '" + QByteArray::fromStdString(opsched::engine::child::toJsonLine(summary)) + "'"));
    QSignalSpy lines(&p, &ProfileProcess::outputLine);
    QSignalSpy jobs(&p, &ProfileProcess::jobFinished);
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(p.isRunning());
    QVERIFY(done.wait(10000));
    QCOMPARE(jobs.size(), 2);
    QCOMPARE(jobs.at(1).at(0).toInt(), 2);
    QCOMPARE(jobs.at(1).at(1).toInt(), 2);
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QVERIFY(done.at(0).at(1).toString().startsWith(QStringLiteral("2 jobs: 2 run")));
    // The log reads as the CLI's text does, not as JSON.
    QCOMPARE(
        lines.at(0).at(0).toString(), QStringLiteral("[1/2] squeezenet sequential batch 1: 1.000 ms (run 1, 0.01 s)"));
    QCOMPARE(jobs.at(0).at(2).toString(), lines.at(0).at(0).toString());
    QVERIFY(!p.isRunning());
}

void TestProfileProcess::reportsACrashWithItsStderr()
{
    ProfileProcess p;
    p.setCliPath(fakeCli(jobLine(1, 3, "squeezenet sequential batch 1")
        + "echo 'CUPTI: driver fell over' >&2\n"
          "kill -SEGV $$"));
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const QString message = done.at(0).at(1).toString();
    qInfo("%s", qPrintable(message)); // what the person reads
    QVERIFY2(message.contains(QStringLiteral("crashed")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("(signal 11)")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("after 1 of 3 jobs")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("CUPTI: driver fell over")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("resume")), qPrintable(message));
}

void TestProfileProcess::reportsRefusedInput()
{
    ProfileProcess p;
    p.setCliPath(fakeCli("echo \"opsched-cli: error: unknown model 'zoo:nope'\" >&2\nexit 1"));
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const QString message = done.at(0).at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("exit 1")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("unknown model 'zoo:nope'")), qPrintable(message));
}

void TestProfileProcess::listsFailedJobs()
{
    ProfileProcess p;
    p.setCliPath(fakeCli(jobLine(1, 2, "squeezenet sequential batch 1")
        + jobLine(2, 2, "squeezenet ios batch 1", "out of memory") + "exit 3"));
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const QString message = done.at(0).at(1).toString();
    QVERIFY2(message.startsWith(QStringLiteral("1 of 2 jobs failed")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("out of memory")), qPrintable(message));
}

void TestProfileProcess::passesTextLinesThrough()
{
    // A line for people (a warning), and text that merely looks like progress, are logged and not
    // counted as jobs: only the JSON events are.
    ProfileProcess p;
    p.setCliPath(fakeCli("echo 'opsched-cli: warning: runs are stored without active warps'\n"
                         "echo '[1/1] squeezenet ios batch 1: FAILED: looks like a job'\n"
                         "echo '{\"event\": 3}'\n"
        + jobLine(1, 1, "squeezenet ios batch 1")));
    QSignalSpy jobs(&p, &ProfileProcess::jobFinished);
    QSignalSpy lines(&p, &ProfileProcess::outputLine);
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(done.wait(10000));
    QCOMPARE(jobs.size(), 1);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(
        lines.at(0).at(0).toString(), QStringLiteral("opsched-cli: warning: runs are stored without active warps"));
    QCOMPARE(done.at(0).at(0).toBool(), true);
}

void TestProfileProcess::cancelTerminatesPolitely()
{
    // Like opsched-cli: SIGTERM ends the batch after the current job with exit 128+15.
    ProfileProcess p;
    p.setCliPath(fakeCli("trap 'echo stopping >&2; exit 143' TERM\n" + jobLine(1, 9, "squeezenet sequential batch 1")
        + "while true; do sleep 0.05; done"));
    QSignalSpy jobs(&p, &ProfileProcess::jobFinished);
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(jobs.wait(10000));
    p.cancel();
    QVERIFY(done.wait(10000));
    const QString message = done.at(0).at(1).toString();
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(message.startsWith(QStringLiteral("Cancelled after 1 of 9 jobs")), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("killed")), qPrintable(message));
}

void TestProfileProcess::cancelKillsAChildThatIgnoresTerm()
{
    ProfileProcess p;
    p.setGracePeriod(300);
    p.setCliPath(fakeCli("trap '' TERM\n" + jobLine(1, 9, "x sequential batch 1") + "while true; do sleep 0.05; done"));
    QSignalSpy jobs(&p, &ProfileProcess::jobFinished);
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(jobs.wait(10000));
    QElapsedTimer clock;
    clock.start();
    p.cancel();
    QVERIFY(done.wait(10000));
    QVERIFY(clock.elapsed() >= 250);
    const QString message = done.at(0).at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("was killed")), qPrintable(message));
}

void TestProfileProcess::missingCliIsReported()
{
    ProfileProcess p;
    p.setCliPath(dir_.filePath(QStringLiteral("no-such-opsched-cli")));
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(!p.start(sampleRequest()));
    QVERIFY(p.lastError().contains(QStringLiteral("OPSCHED_CLI")));
    QVERIFY(!p.isRunning());
    QCOMPARE(done.size(), 0);
}

void TestProfileProcess::refusesASecondBatch()
{
    ProfileProcess p;
    p.setCliPath(fakeCli("sleep 5"));
    QSignalSpy done(&p, &ProfileProcess::finished);
    QVERIFY(p.start(sampleRequest()));
    QVERIFY(!p.start(sampleRequest()));
    QVERIFY(p.lastError().contains(QStringLiteral("already running")));
    p.setGracePeriod(200);
    p.cancel();
    QVERIFY(done.wait(10000));
}

QTEST_GUILESS_MAIN(TestProfileProcess)
#include "tst_profileprocess.moc"
