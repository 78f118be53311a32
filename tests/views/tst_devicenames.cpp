// The window's Schedules panel and `opsched-cli schedule --device NAME` accept the same device names
// and refuse the same bad ones with the same message: both resolve them through the engine
// (engine/device_ref.h). The panel runs the scheduler as the user would (device typed into its
// combo box, Run); the CLI runs as a child process; their outcomes are compared name by name.
#include "schedules/schedule_panel.h"

#include "model/model_ref.h"

#include <QComboBox>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace opsched;

namespace {

const char* const kModel = "zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=3&res=64";
const char* const kErrorPrefix = "opsched-cli: error: ";

struct Outcome {
    bool accepted = false;
    QString message; // why not, when refused
};

QString simDeviceFile()
{
    return QStringLiteral("sim:" OPSCHED_TEST_DATA_DIR "/sim_devices/h100_fitted.json");
}

} // namespace

class TstDeviceNames : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(dir_.isValid());
        // cuda:N on a machine with a GPU measures: its costs stay in the test's folder.
        qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("cache")).toUtf8());
        graph_ = std::make_shared<const Graph>(loadModel(kModel, 1));
    }

    void panelAndCliAgree_data()
    {
        // expected: 1 accepted, 0 refused, -1 either (cuda:0 depends on this machine's GPU); the
        // panel and the CLI must agree in every case.
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("expected");
        QTest::newRow("sim:v100") << QStringLiteral("sim:v100") << 1;
        QTest::newRow("sim:h100") << QStringLiteral("sim:h100") << 1;
        QTest::newRow("sim:FILE.json") << simDeviceFile() << 1;
        QTest::newRow("cuda:0") << QStringLiteral("cuda:0") << -1;
        QTest::newRow("cpu") << QStringLiteral("cpu") << 0;
        QTest::newRow("cpu:2") << QStringLiteral("cpu:2") << 0;
        QTest::newRow("sim:nonexistent") << QStringLiteral("sim:nonexistent") << 0;
        QTest::newRow("sim:missing.json") << QStringLiteral("sim:/nonexistent/dev.json") << 0;
        QTest::newRow("gpu:0") << QStringLiteral("gpu:0") << 0;
        QTest::newRow("cpu:0") << QStringLiteral("cpu:0") << 0;
        QTest::newRow("cuda:x") << QStringLiteral("cuda:x") << 0;
        QTest::newRow("empty") << QString() << 0;
    }

    void panelAndCliAgree()
    {
        QFETCH(QString, device);
        QFETCH(int, expected);
        const Outcome cli = runCli(device);
        const Outcome panel = runPanel(device);
        QVERIFY2(panel.accepted == cli.accepted,
            qPrintable(
                QStringLiteral("%1: the panel %2 it (%3), the CLI %4 it (%5)")
                    .arg(device, panel.accepted ? QStringLiteral("accepts") : QStringLiteral("refuses"), panel.message,
                        cli.accepted ? QStringLiteral("accepts") : QStringLiteral("refuses"), cli.message)));
        QCOMPARE(panel.message, cli.message);
        if (expected >= 0)
            QVERIFY2(cli.accepted == (expected == 1), qPrintable(device + QStringLiteral(": ") + cli.message));
        if (!cli.accepted)
            QVERIFY2(!cli.message.isEmpty(), qPrintable(device));
    }

    void panelStartsWithTheCliDefaults()
    {
        QSettings().clear(); // the first start: nothing remembered from the runs above
        SchedulePanel panel;
        QCOMPARE(panel.findChild<QComboBox*>(QStringLiteral("deviceCombo"))->currentText(), QStringLiteral("sim:v100"));
        auto* r = panel.findChild<QSpinBox*>(QStringLiteral("pruningR"));
        auto* s = panel.findChild<QSpinBox*>(QStringLiteral("pruningS"));
        auto* batch = panel.findChild<QSpinBox*>(QStringLiteral("batchSpin"));
        QVERIFY(r && s && batch);
        QCOMPARE(r->value(), 3);
        QCOMPARE(r->maximum(), 64);
        QCOMPARE(s->value(), 8);
        QCOMPARE(s->maximum(), 64);
        QCOMPARE(batch->minimum(), 1);
        QCOMPARE(batch->maximum(), 65536);
    }

private:
    Outcome runCli(const QString& device)
    {
        QProcess cli;
        cli.start(QStringLiteral(OPSCHED_CLI_PATH),
            { QStringLiteral("schedule"), QString::fromLatin1(kModel), QStringLiteral("--scheduler"),
                QStringLiteral("sequential"), QStringLiteral("--device"), device });
        if (!cli.waitForFinished(120000))
            qFatal("opsched-cli schedule --device %s did not finish", qPrintable(device));
        Outcome out;
        out.accepted = cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0;
        const QString err = QString::fromUtf8(cli.readAllStandardError()).trimmed();
        if (!out.accepted)
            out.message = err.startsWith(QLatin1String(kErrorPrefix)) ? err.mid(int(std::strlen(kErrorPrefix))) : err;
        return out;
    }

    Outcome runPanel(const QString& device)
    {
        SchedulePanel panel;
        panel.setModelRef(QString::fromLatin1(kModel));
        panel.setGraph(graph_);
        panel.findChild<QComboBox*>(QStringLiteral("deviceCombo"))->setCurrentText(device);
        QSignalSpy finished(&panel, &SchedulePanel::finished);
        panel.runScheduler(QStringLiteral("sequential"));
        if (finished.isEmpty() && !finished.wait(120000))
            qFatal("the Schedules panel did not finish on %s", qPrintable(device));
        Outcome out;
        out.accepted = finished.first().at(0).toBool();
        if (!out.accepted)
            out.message = finished.first().at(1).toString();
        return out;
    }

    QTemporaryDir dir_;
    std::shared_ptr<const Graph> graph_;
};

QTEST_MAIN(TstDeviceNames)
#include "tst_devicenames.moc"
