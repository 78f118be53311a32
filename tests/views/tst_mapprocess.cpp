// Mapping measured devices from the Schedules panel: the panel runs the real `opsched-cli map` as a
// child process for a device list naming cpu:N and lists its result like an in-process mapping;
// simulated lists stay in process; the CLI's error, a crash, a broken file and Cancel end in a
// message and a panel ready for the next run.
#include "engine/results/mapping_result.h"
#include "fake_cli.h"
#include "mapping/map_process.h"
#include "schedules/schedule_panel.h"

#include "model/model_ref.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace opsched;

namespace {

const char* const kModel = "zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=3&res=64";

} // namespace

class TstMapProcess : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(dir_.isValid());
        // The CLI's cost cache lives in the test's folder: the second run below reads the costs
        // the first measured, so both see the same problem.
        qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("cache")).toUtf8());
        graph_ = std::make_shared<const Graph>(loadModel(kModel, 1));
    }

    void argumentsCarryModelBatchDevicesAndMapper()
    {
        engine::MapRequest r;
        r.model = kModel;
        r.batch = 4;
        r.devices = "cpu:0,cpu:1";
        r.mapper = "heft";
        r.timeLimitSeconds = 20;
        QCOMPARE(mapArguments(r, QStringLiteral("/tmp/m.json")),
            (QStringList { QStringLiteral("map"), QString::fromLatin1(kModel), QStringLiteral("--batch"),
                QStringLiteral("4"), QStringLiteral("--devices"), QStringLiteral("cpu:0,cpu:1"),
                QStringLiteral("--mapper"), QStringLiteral("heft"), QStringLiteral("--time-limit"),
                QStringLiteral("20"), QStringLiteral("-o"), QStringLiteral("/tmp/m.json"), QStringLiteral("--json"),
                QStringLiteral("--progress"), QStringLiteral("json") }));
    }

    void argumentsCarryTheThroughputObjectiveAndShapes()
    {
        engine::MapRequest r;
        r.model = kModel;
        r.devices = "cpu:0,cpu:1";
        r.objective = "throughput";
        r.inputs = 8;
        r.shapes = { { "", { 1, 3, 32, 32 } } };
        r.timeLimitSeconds = 2.5;
        const QStringList args = mapArguments(r, QStringLiteral("/tmp/t.json"));
        const auto after = [&](const char* flag) { return args.value(args.indexOf(QLatin1String(flag)) + 1); };
        QCOMPARE(after("--objective"), QStringLiteral("throughput"));
        QCOMPARE(after("--inputs"), QStringLiteral("8"));
        QCOMPARE(after("--shape"), QStringLiteral("1x3x32x32"));
        QCOMPARE(after("--time-limit"), QStringLiteral("2.5"));
    }

    void throughputIsMappedInProcessOnSimulatedDevices()
    {
        SchedulePanel panel;
        openModelWithCli(panel, {});
        auto* objective = panel.findChild<QComboBox*>(QStringLiteral("objectiveCombo"));
        auto* inputs = panel.findChild<QSpinBox*>(QStringLiteral("inputsSpin"));
        auto* lowering = panel.findChild<QComboBox*>(QStringLiteral("loweringCombo"));
        QVERIFY(objective && inputs && lowering);
        // A scheduler lowers plans and has no objective; a mapper the other way round, and its
        // inputs count for throughput only.
        QVERIFY(lowering->isEnabled() && !objective->isEnabled() && !inputs->isEnabled());
        select(panel, QStringLiteral("map:greedy"), QStringLiteral("sim:t4,sim:a100"));
        QVERIFY(!lowering->isEnabled() && objective->isEnabled() && !inputs->isEnabled());
        // IOS's pruning is the schedulers' setting, not the mappers'.
        QVERIFY(!panel.findChild<QSpinBox*>(QStringLiteral("pruningR"))->isEnabled());
        QVERIFY(!panel.findChild<QSpinBox*>(QStringLiteral("pruningS"))->isEnabled());
        objective->setCurrentText(QStringLiteral("throughput"));
        QVERIFY(inputs->isEnabled());
        QCOMPARE(inputs->value(), int(engine::kMapInputs.def));
        QCOMPARE(inputs->maximum(), int(engine::kMapInputs.max));
        inputs->setValue(8);
        QSignalSpy started(panel.mapProcess(), &MapProcess::started);
        QSignalSpy done(&panel, &SchedulePanel::finished);
        panel.run();
        QVERIFY(done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(started.size(), 0); // simulated: no child process
        const auto result = panel.results()->result(0);
        QVERIFY(result && result->mapping);
        QCOMPARE(result->output.params.at("objective").get<std::string>(), std::string("throughput"));
        QCOMPARE(result->output.params.at("inputs").get<std::int64_t>(), std::int64_t(8));
        QCOMPARE(result->batch, std::int64_t(1));
        const QString status = panel.findChild<QLabel*>(QStringLiteral("statusLabel"))->text();
        QVERIFY2(status.contains(QStringLiteral(" for 8 inputs, ")) && status.contains(QStringLiteral("inputs/s")),
            qPrintable(status));

        // The CLI maps the same problem to the same throughput.
        QProcess cli;
        cli.start(QStringLiteral(OPSCHED_CLI_PATH),
            { QStringLiteral("map"), QString::fromLatin1(kModel), QStringLiteral("--devices"),
                QStringLiteral("sim:t4,sim:a100"), QStringLiteral("--mapper"), QStringLiteral("greedy"),
                QStringLiteral("--objective"), QStringLiteral("throughput"), QStringLiteral("--inputs"),
                QStringLiteral("8"), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const auto file = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        const double cliRate = file.at("throughput_per_s").get<double>();
        const double rate = result->output.params.at("throughput_per_s").get<double>();
        QVERIFY2(
            std::abs(rate - cliRate) <= 1e-9 * cliRate, qPrintable(QStringLiteral("%1 vs %2").arg(rate).arg(cliRate)));
    }

    void throughputOnMeasuredDevicesGoesToTheCli()
    {
        SchedulePanel panel;
        openModelWithCli(panel, QStringLiteral(OPSCHED_CLI_PATH));
        QSignalSpy started(panel.mapProcess(), &MapProcess::started);
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:greedy"), QStringLiteral("cpu:0,cpu:1"));
        panel.findChild<QComboBox*>(QStringLiteral("objectiveCombo"))->setCurrentText(QStringLiteral("throughput"));
        panel.findChild<QSpinBox*>(QStringLiteral("inputsSpin"))->setValue(4);
        panel.run();
        QCOMPARE(started.size(), 1);
        QVERIFY2(started.at(0).at(0).toString().contains(QStringLiteral("--objective throughput --inputs 4")),
            qPrintable(started.at(0).at(0).toString()));
        QVERIFY(done.wait(180000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        const auto result = panel.results()->result(0);
        QVERIFY(result && result->mapping);
        QCOMPARE(result->output.params.at("objective").get<std::string>(), std::string("throughput"));
        QCOMPARE(result->output.params.at("inputs").get<std::int64_t>(), std::int64_t(4));
        QCOMPARE(result->mapping->devices, (std::vector<std::string> { "cpu:0", "cpu:1" }));
    }

    void simulatedDevicesRecognised()
    {
        QVERIFY(isSimulatedDeviceList("sim:t4, sim:a100"));
        QVERIFY(!isSimulatedDeviceList("sim:t4,cpu:0"));
        QVERIFY(!isSimulatedDeviceList("cuda:0,cpu"));
        QCOMPARE(engine::parseDeviceNames(" cpu:0 , cpu:1,"), (std::vector<std::string> { "cpu:0", "cpu:1" }));
    }

    void measuredDevicesAreMappedByTheCli()
    {
        SchedulePanel panel;
        openModelWithCli(panel, QStringLiteral(OPSCHED_CLI_PATH));
        QSignalSpy started(panel.mapProcess(), &MapProcess::started);
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("cpu:0, cpu:1"));
        std::vector<engine::child::MapProgressEvent> phases;
        connect(panel.mapProcess(), &MapProcess::progress, this,
            [&phases](const engine::child::MapProgressEvent& e) { phases.push_back(e); });
        panel.run();
        QVERIFY(panel.isRunning());
        QCOMPARE(started.size(), 1);
        QVERIFY2(started.at(0).at(0).toString().contains(QStringLiteral("--devices cpu:0,cpu:1 --mapper heft")),
            qPrintable(started.at(0).at(0).toString()));
        QVERIFY(done.wait(120000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QVERIFY(!panel.isRunning());
        // The child said what it was doing, phase by phase, read from its JSON progress lines.
        using Phase = engine::child::MapProgressEvent::Phase;
        QCOMPARE(phases.size(), std::size_t(3));
        QVERIFY(phases[0].phase == Phase::Costs && phases[1].phase == Phase::Search && phases[2].phase == Phase::Done);
        QCOMPARE(phases[1].mapper, std::string("heft"));
        QCOMPARE(phases[1].devices, std::string("cpu:0,cpu:1"));
        QCOMPARE(phases[1].deviceCount, std::size_t(2));
        QVERIFY(phases[2].objectiveMs > 0 && phases[2].seconds >= phases[1].seconds);
        QCOMPARE(panel.results()->rowCount(), 1);
        const auto result = panel.results()->result(0);
        QVERIFY(result && result->mapping);
        QCOMPARE(result->request.scheduler, std::string("map:heft"));
        QCOMPARE(result->mapping->devices, (std::vector<std::string> { "cpu:0", "cpu:1" }));
        QVERIFY(!result->output.params.contains("file")); // the temporary file is gone
        std::size_t rows = 0;
        for (std::size_t r = 0; r < result->timeline->rows.rowCount(); ++r)
            rows += result->timeline->rowKind(r) == TimelineRowKind::Ops;
        QCOMPARE(rows, std::size_t(2));

        // The same request on the command line, with the costs the first run cached: the panel
        // shows the mapping the CLI makes.
        const QString path = dir_.filePath(QStringLiteral("again.json"));
        QProcess cli;
        cli.start(QStringLiteral(OPSCHED_CLI_PATH),
            { QStringLiteral("map"), QString::fromLatin1(kModel), QStringLiteral("--devices"),
                QStringLiteral("cpu:0,cpu:1"), QStringLiteral("--mapper"), QStringLiteral("heft"), QStringLiteral("-o"),
                path });
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        std::ifstream in(path.toStdString());
        const auto file = nlohmann::json::parse(in);
        const double fileMs = file.at("makespan_ms").get<double>();
        QVERIFY2(std::abs(result->latency * 1e3 - fileMs) <= 1e-9 * fileMs,
            qPrintable(QStringLiteral("%1 vs %2").arg(result->latency * 1e3).arg(fileMs)));
    }

    void theCliErrorIsShown()
    {
        SchedulePanel panel;
        openModelWithCli(panel, QStringLiteral(OPSCHED_CLI_PATH));
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("cpu:0,nosuch:1"));
        panel.run();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.at(0).at(0).toBool(), false);
        const QString message = done.at(0).at(1).toString();
        QVERIFY2(message.contains(QStringLiteral("unknown device 'nosuch:1'")), qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("exit 1")));
        QCOMPARE(panel.results()->rowCount(), 0);
        QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
    }

    void simulatedListsStayInProcess()
    {
        SchedulePanel panel;
        openModelWithCli(panel, dir_.filePath(QStringLiteral("not-there"))); // would fail if used
        QSignalSpy started(panel.mapProcess(), &MapProcess::started);
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("sim:t4,sim:a100"));
        panel.run();
        QVERIFY(done.size() == 1 || done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(started.size(), 0);
    }

    void aCrashOrABrokenFileIsAMessage_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("expected");
        QTest::newRow("crash") << QByteArray("echo 'measuring' >&2\nkill -SEGV $$") << QStringLiteral("crashed");
        QTest::newRow("no file") << QByteArray("exit 0") << QStringLiteral("wrote no mapping file");
        // Writes half a mapping where -o points.
        QTest::newRow("cut short") << QByteArray(
            "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
            "printf '{\"format\": \"opsched-mapping\", \"version\": 1,' > \"$out\"")
                                   << QStringLiteral("cut short");
    }

    void aCrashOrABrokenFileIsAMessage()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, expected);
        SchedulePanel panel;
        openModelWithCli(panel, fakeCli(body));
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("cpu:0,cpu:1"));
        panel.run();
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY2(done.at(0).at(1).toString().contains(expected), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(panel.results()->rowCount(), 0);
        QVERIFY(!panel.isRunning());
    }

    void cancelStopsTheChild()
    {
        SchedulePanel panel;
        openModelWithCli(panel, {});
        // A child that ignores SIGTERM: Cancel kills it after the grace period.
        panel.mapProcess()->setCliPath(fakeCli("trap '' TERM\nwhile true; do sleep 0.1; done"));
        panel.mapProcess()->setGracePeriod(300);
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("cpu:0,cpu:1"));
        panel.run();
        QVERIFY(panel.isRunning());
        QTest::qWait(200);
        panel.cancel();
        QVERIFY(done.wait(10000));
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(!panel.isRunning());

        // Opening another model while a child maps the old one drops it without a result.
        panel.mapProcess()->setCliPath(fakeCli("while true; do sleep 0.1; done"));
        panel.run();
        QVERIFY(panel.isRunning());
        panel.setGraph(std::make_shared<const Graph>(loadModel("zoo:squeezenet", 1)));
        QVERIFY(!panel.isRunning());
        QCOMPARE(panel.results()->rowCount(), 0);
    }

    void aModelWithoutReferenceIsRefused()
    {
        SchedulePanel panel;
        panel.setGraph(graph_); // no setModelRef: the CLI could not open it
        QSignalSpy done(&panel, &SchedulePanel::finished);
        select(panel, QStringLiteral("map:heft"), QStringLiteral("cpu:0,cpu:1"));
        panel.run();
        QCOMPARE(done.size(), 1);
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY(done.at(0).at(1).toString().contains(QStringLiteral("file or zoo name")));
    }

private:
    // The test model open in `panel`, mapped by the CLI at `cli` (none: the panel's own search).
    void openModelWithCli(SchedulePanel& panel, const QString& cli) const
    {
        panel.setGraph(graph_);
        panel.setModelRef(QString::fromLatin1(kModel));
        if (!cli.isEmpty())
            panel.mapProcess()->setCliPath(cli);
    }

    static void select(SchedulePanel& panel, const QString& scheduler, const QString& devices)
    {
        panel.findChild<QComboBox*>(QStringLiteral("schedulerCombo"))->setCurrentText(scheduler);
        panel.findChild<QComboBox*>(QStringLiteral("deviceCombo"))->setCurrentText(devices);
    }

    QString fakeCli(const QByteArray& body) { return test::writeFakeCli(dir_, body); }

    QTemporaryDir dir_;
    std::shared_ptr<const Graph> graph_;
};

QTEST_MAIN(TstMapProcess)
#include "tst_mapprocess.moc"
