// A mapping file written by the real opsched-cli (measured CPU partitions) read back for the open
// model: a row per device, the file's makespan, its devices per op; another model's file, a file
// cut short, a latency file that claims to be a throughput one and a file without costs are refused with a message
// naming the problem. File > Open Mapping and a dropped file go through the same path in the window.
#include "dag/dag_view.h"
#include "engine/results/mapping_file_result.h"
#include "mapping_file_support.h"
#include "schedules/schedule_panel.h"
#include "window/main_window.h"

#include "model/model_ref.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace opsched;

using test::readJson;
using test::refusal;
using test::writeText;
const char* const kModel = test::kMappedModel;

class TstMappingFileResult : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        test::isolateFromTheUser(QStringLiteral("tst_mappingfileresult"), dir_);
        file_ = dir_.filePath(QStringLiteral("mapping.json"));
        QVERIFY(runCli({ QString::fromLatin1(kModel), QStringLiteral("--devices"), QStringLiteral("cpu:0,cpu:1"),
            QStringLiteral("--mapper"), QStringLiteral("milp-split"), QStringLiteral("-o"), file_ }));
    }

    void readsAFileTheCliWrote()
    {
        const Graph graph = loadModel(kModel, 1);
        const auto result = loadMappingResult(graph, file_.toStdString());
        const nlohmann::json file = readJson(file_);
        QVERIFY(result->mapping);
        QCOMPARE(result->mapping->devices, (std::vector<std::string> { "cpu:0", "cpu:1" }));
        // One timeline row per device, named after it, with every op once.
        const TimelineData& t = *result->timeline;
        std::vector<std::string> rows;
        std::size_t spans = 0;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r)
            if (t.rowKind(r) == TimelineRowKind::Ops) {
                rows.push_back(t.rowNames[r]);
                spans += t.rows.row(r).size();
            }
        QCOMPARE(rows, (std::vector<std::string> { "cpu:0", "cpu:1" }));
        QCOMPARE(spans, graph.opCount());
        // The makespan recomputed from the file's costs and links is the one the CLI wrote.
        const double fileMs = file.at("makespan_ms").get<double>();
        QVERIFY2(std::abs(result->latency * 1e3 - fileMs) <= 1e-9 * fileMs,
            qPrintable(QStringLiteral("%1 vs %2").arg(result->latency * 1e3).arg(fileMs)));
        QVERIFY(!result->output.params.contains("file_makespan_ms"));
        QCOMPARE(t.flows.size(), file.at("transfers").size());
        for (const Op& op : graph.ops())
            QCOMPARE(result->mapping->devices[result->mapping->deviceOf[op.id.value()]],
                file.at("mapping").at(op.name).get<std::string>());
        QCOMPARE(result->output.params.at("mapper").get<std::string>(), std::string("milp-split"));
        QCOMPARE(result->output.params.at("status").get<std::string>(), file.at("status").get<std::string>());
        QCOMPARE(result->output.params.at("lower_bound_ms").get<double>(), file.at("lower_bound_ms").get<double>());
        QCOMPARE(result->request.scheduler, std::string("map:milp-split"));
        QCOMPARE(result->request.device, std::string("cpu:0,cpu:1"));
        QCOMPARE(result->output.plan.streams, 2u);
    }

    void readsAFileMadeAtAnotherBatch()
    {
        const QString path = dir_.filePath(QStringLiteral("batch2.json"));
        QVERIFY(runCli({ QString::fromLatin1(kModel), QStringLiteral("--batch"), QStringLiteral("2"),
            QStringLiteral("--devices"), QStringLiteral("cpu:0,cpu:1"), QStringLiteral("--mapper"),
            QStringLiteral("heft"), QStringLiteral("-o"), path }));
        const Graph graph = loadModel(kModel, 1); // opened at batch 1; the file says 2
        const auto result = loadMappingResult(graph, path.toStdString());
        QCOMPARE(result->batch, std::int64_t(2));
        QCOMPARE(result->request.batch, std::int64_t(2));
        const double fileMs = readJson(path).at("makespan_ms").get<double>();
        QVERIFY(std::abs(result->latency * 1e3 - fileMs) <= 1e-9 * fileMs);
    }

    void refusesAnotherModelsFile()
    {
        // The same network with another seed: same name, other ops.
        const Graph other = loadModel("zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=4&res=64", 1);
        QString message = refusal(other, file_);
        QVERIFY2(message.contains(QStringLiteral("another model")), qPrintable(message));
        QVERIFY(message.contains(file_));
        const Graph squeezenet = loadModel("zoo:squeezenet", 1);
        message = refusal(squeezenet, file_);
        QVERIFY2(
            message.contains(QStringLiteral("maps model rwnn, not the open model squeezenet")), qPrintable(message));
    }

    void refusesATruncatedFile()
    {
        QFile in(file_);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray whole = in.readAll();
        const QString path = dir_.filePath(QStringLiteral("truncated.json"));
        writeText(path, whole.left(whole.size() / 2).toStdString());
        const QString message = refusal(loadModel(kModel, 1), path);
        QVERIFY2(message.contains(QStringLiteral("cut short")), qPrintable(message));
        QVERIFY(message.contains(path));
        QVERIFY(looksLikeMappingFile(path.toStdString())); // so the window reports it as a mapping
    }

    void refusesWhatItCannotShow()
    {
        const Graph graph = loadModel(kModel, 1);
        const nlohmann::json good = readJson(file_);
        const QString path = dir_.filePath(QStringLiteral("edited.json"));

        nlohmann::json j = good;
        // Read as a throughput mapping (tst_throughputmappingresult), which it is not.
        j["objective"] = "throughput";
        writeText(path, j.dump());
        QVERIFY2(refusal(graph, path).contains(QStringLiteral("missing \"inputs\"")), qPrintable(refusal(graph, path)));

        j = good;
        j.erase("costs");
        writeText(path, j.dump());
        QVERIFY2(refusal(graph, path).contains(QStringLiteral("has no cost for op")), qPrintable(refusal(graph, path)));

        writeText(path, R"({"format": "opsched-schedule", "version": 1})");
        QVERIFY(refusal(graph, path).contains(QStringLiteral("not a mapping file")));
        QVERIFY(!looksLikeMappingFile(path.toStdString()));

        QVERIFY(
            refusal(graph, dir_.filePath(QStringLiteral("missing.json"))).contains(QStringLiteral("cannot be read")));
    }

    void aHandEditedMakespanIsNotTrusted()
    {
        const Graph graph = loadModel(kModel, 1);
        nlohmann::json j = readJson(file_);
        const double real = j.at("makespan_ms").get<double>();
        j["makespan_ms"] = real * 0.5;
        const QString path = dir_.filePath(QStringLiteral("faster.json"));
        writeText(path, j.dump());
        const auto result = loadMappingResult(graph, path.toStdString());
        QVERIFY(std::abs(result->latency * 1e3 - real) <= 1e-9 * real);
        QCOMPARE(result->output.params.at("file_makespan_ms").get<double>(), real * 0.5);
    }

    void windowOpensAndRefusesMappingFiles()
    {
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(!window.openMappingFile(file_)); // no model yet
        QVERIFY(window.lastError().contains(QStringLiteral("Open the model")));
        QVERIFY(window.openModel(QString::fromLatin1(kModel)));
        ScheduleResultsModel* results = window.schedulePanel()->results();
        QAbstractItemModelTester tester(results, QAbstractItemModelTester::FailureReportingMode::QtTest);

        QVERIFY2(window.openMappingFile(file_), qPrintable(window.lastError()));
        QCOMPARE(results->rowCount(), 1);
        QVERIFY(window.shownResult() && window.shownResult()->mapping);
        QCOMPARE(window.shownResult()->mapping->devices.size(), std::size_t(2));
        QVERIFY(window.dagView()->hasDevices());

        // A broken file leaves what is shown alone and says why.
        const QString broken = dir_.filePath(QStringLiteral("broken.json"));
        writeText(broken, "{\"format\": \"opsched-mapping\", \"version\": 1, \"model\"");
        const auto shown = window.shownResult();
        QVERIFY(!window.openMappingFile(broken));
        QVERIFY(window.lastError().contains(QStringLiteral("cut short")));
        QCOMPARE(results->rowCount(), 1);
        QCOMPARE(window.shownResult(), shown);

        // Dropping a mapping file reads it as a mapping, not as a model.
        QVERIFY(window.openDroppedUrls({ QUrl::fromLocalFile(file_) }));
        QCOMPARE(results->rowCount(), 2);
        QVERIFY(!window.openDroppedUrls({ QUrl::fromLocalFile(broken) }));
        QVERIFY(window.lastError().contains(QStringLiteral("cut short")));
        QCOMPARE(window.graph()->opCount(), loadModel(kModel, 1).opCount()); // the model stayed open

        // Another model's file.
        QVERIFY(window.openModel(QStringLiteral("zoo:squeezenet")));
        QVERIFY(!window.openMappingFile(file_));
        QVERIFY(window.lastError().contains(QStringLiteral("not the open model squeezenet")));
        QCOMPARE(results->rowCount(), 0);
    }

private:
    bool runCli(QStringList args)
    {
        args.prepend(QStringLiteral("map"));
        QProcess cli;
        cli.start(QStringLiteral(OPSCHED_CLI_PATH), args);
        if (!cli.waitForFinished(120000) || cli.exitStatus() != QProcess::NormalExit || cli.exitCode() != 0) {
            qWarning() << "opsched-cli" << args << "failed:" << cli.readAllStandardError();
            return false;
        }
        return true;
    }

    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TstMappingFileResult)
#include "tst_mappingfileresult.moc"
