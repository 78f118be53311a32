// A throughput mapping file written by the real opsched-cli (simulated T4 and A100, 8 inputs)
// shown by the window: a row per device with a span per batch ("op ×n"), the makespan the file
// says, a flow per transfer the evaluator counts, the DAG coloured by each op's majority device;
// broken throughput files are refused with a message naming the problem.
#include "dag/dag_view.h"
#include "engine/results/mapping_file_result.h"
#include "engine/results/throughput_mapping_result.h"
#include "mapping_file_support.h"
#include "schedules/schedule_panel.h"
#include "window/main_window.h"

#include "map/files/throughput_mapping_file.h"
#include "model/model_ref.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace opsched;

using test::readJson;
using test::refusal;
using test::writeText;
const char* const kModel = test::kMappedModel;

class TstThroughputMappingResult : public QObject {
    Q_OBJECT

    // A device's entry for an op in a throughput file: a count (one batch) or a list of batches.
    static std::size_t batchesIn(const nlohmann::json& entry) { return entry.is_array() ? entry.size() : 1; }
    static std::int64_t inputsPerBatch(const nlohmann::json& entry)
    {
        return entry.is_array() ? entry.at(0).get<std::int64_t>() : entry.get<std::int64_t>();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        test::isolateFromTheUser(QStringLiteral("tst_throughputmappingresult"), dir_);
        file_ = dir_.filePath(QStringLiteral("throughput.json"));
        QProcess cli;
        cli.start(QStringLiteral(OPSCHED_CLI_PATH),
            { QStringLiteral("map"), QString::fromLatin1(kModel), QStringLiteral("--devices"),
                QStringLiteral("sim:t4,sim:a100"), QStringLiteral("--objective"), QStringLiteral("throughput"),
                QStringLiteral("--inputs"), QStringLiteral("8"), QStringLiteral("--mapper"), QStringLiteral("greedy"),
                QStringLiteral("-o"), file_ });
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(
            cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, cli.readAllStandardError().constData());
    }

    void showsTheFileTheCliWrote()
    {
        const Graph graph = loadModel(kModel, 1);
        const nlohmann::json file = readJson(file_);
        const auto result = loadMappingResult(graph, file_.toStdString());
        QVERIFY(result->mapping);
        QCOMPARE(result->mapping->devices, (std::vector<std::string> { "sim:t4", "sim:a100" }));
        QVERIFY(!result->mapping->colouring.empty());

        // One op row per device, named after it, with one span per batch the file lists there;
        // the row under it says "op ×n" for each.
        const TimelineData& t = *result->timeline;
        std::vector<std::string> rows;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r) {
            if (t.rowKind(r) != TimelineRowKind::Ops)
                continue;
            const std::string& device = t.rowNames[r];
            rows.push_back(device);
            const auto& order = file.at("order").at(device);
            QCOMPARE(t.rows.row(r).size(), order.size());
            std::size_t batches = 0;
            for (const auto& op : order)
                batches += batchesIn(file.at("mapping").at(op.get<std::string>()).at(device));
            QCOMPARE(t.rows.row(r + 1).size(), batches);
            for (const TimelineSpan& s : t.rows.row(r + 1)) {
                const TimelineKernel& batch = t.kernels.at(s.id);
                const std::string& op = graph.ops()[batch.op].name;
                const auto& n = file.at("mapping").at(op).at(device);
                QCOMPARE(batch.name, op + " ×" + std::to_string(inputsPerBatch(n)));
                QVERIFY2(batch.launch.find(" of 8") != std::string::npos, batch.launch.c_str());
            }
        }
        QCOMPARE(rows, (std::vector<std::string> { "sim:t4", "sim:a100" }));

        // The makespan is the batched evaluation of the file's mapping, what the CLI wrote.
        const double fileMs = file.at("makespan_ms").get<double>();
        QVERIFY2(std::abs(result->latency * 1e3 - fileMs) <= 1e-9 * fileMs,
            qPrintable(QStringLiteral("%1 vs %2").arg(result->latency * 1e3).arg(fileMs)));
        QVERIFY(!result->output.params.contains("file_makespan_ms"));
        // A flow per transfer the evaluator makes (the file's count, and the evaluator's here).
        const auto doc = map::throughputMappingFromJson(graph, file);
        const auto times = map::evaluate(doc.problem, doc.mapping);
        QCOMPARE(t.flows.size(), times.transfers);
        QCOMPARE(t.flows.size(), file.at("transfers").get<std::size_t>());
        QVERIFY(times.transfers > 0); // the test needs some: greedy splits head.sum here

        // The DAG colour is the device with most of the op's inputs.
        for (const Op& op : graph.ops()) {
            const auto& split = file.at("mapping").at(op.name);
            const std::string& shown = result->mapping->devices[result->mapping->deviceOf[op.id.value()]];
            for (const auto& [device, n] : split.items())
                QVERIFY(split.at(shown).get<std::int64_t>() >= n.get<std::int64_t>());
        }
        const auto& params = result->output.params;
        QCOMPARE(params.at("mapper").get<std::string>(), std::string("greedy"));
        QCOMPARE(params.at("objective").get<std::string>(), std::string("throughput"));
        QCOMPARE(params.at("inputs").get<std::int64_t>(), std::int64_t(8));
        QCOMPARE(params.at("status").get<std::string>(), file.at("status").get<std::string>());
        const double throughput = file.at("throughput_per_s").get<double>();
        QVERIFY(std::abs(params.at("throughput_per_s").get<double>() - throughput) <= 1e-9 * throughput);
        QCOMPARE(result->request.scheduler, std::string("map:greedy"));
        QCOMPARE(result->request.device, std::string("sim:t4,sim:a100"));
        QCOMPARE(result->output.plan.streams, 2u);
    }

    void drawsEveryBatchOfAPipelinedOp()
    {
        // The same file with one op's inputs on one device run as batches of 2 (a list in the
        // file): one span per batch, one after another, each naming its inputs.
        const Graph graph = loadModel(kModel, 1);
        nlohmann::json j = readJson(file_);
        std::string op, device;
        std::int64_t n = 0;
        for (const auto& [name, split] : j.at("mapping").items())
            for (const auto& [d, count] : split.items())
                if (count.is_number() && count.get<std::int64_t>() >= 4 && op.empty()) {
                    op = name;
                    device = d;
                    n = count.get<std::int64_t>();
                }
        QVERIFY(!op.empty());
        j["mapping"][op][device] = std::vector<std::int64_t>(static_cast<std::size_t>(n / 2), 2);
        const QString path = dir_.filePath(QStringLiteral("pipelined.json"));
        writeText(path, j.dump());
        const auto result = loadMappingResult(graph, path.toStdString());
        const TimelineData& t = *result->timeline;
        std::vector<std::pair<double, std::string>> spans;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r)
            if (t.rowKind(r) == TimelineRowKind::Ops && t.rowNames[r] == device)
                for (const TimelineSpan& s : t.rows.row(r + 1))
                    if (graph.ops()[t.kernels.at(s.id).op].name == op) {
                        QCOMPARE(t.kernels.at(s.id).name, op + " ×2");
                        spans.emplace_back(s.start, t.kernels.at(s.id).launch);
                    }
        QCOMPARE(spans.size(), static_cast<std::size_t>(n / 2));
        for (std::size_t b = 0; b < spans.size(); ++b) {
            QVERIFY2(spans[b].second.find("batch " + std::to_string(b + 1) + " of ") != std::string::npos,
                spans[b].second.c_str());
            if (b > 0)
                QVERIFY(spans[b].first > spans[b - 1].first);
        }
    }

    void readsItForAModelOpenedAtAnotherBatch()
    {
        const auto result = loadMappingResult(loadModel(kModel, 4), file_.toStdString());
        QCOMPARE(result->batch, std::int64_t(1));
        const double fileMs = readJson(file_).at("makespan_ms").get<double>();
        QVERIFY(std::abs(result->latency * 1e3 - fileMs) <= 1e-9 * fileMs);
    }

    void refusesBrokenFiles()
    {
        const Graph graph = loadModel(kModel, 1);
        const nlohmann::json good = readJson(file_);
        const QString path = dir_.filePath(QStringLiteral("edited.json"));
        auto refused = [&](const nlohmann::json& j, const QString& expected) {
            writeText(path, j.dump());
            const QString message = refusal(graph, path);
            QVERIFY2(message.contains(expected), qPrintable(message));
            QVERIFY(message.contains(path));
        };
        nlohmann::json j = good;
        j["mapping"]["stem1"] = { { "sim:t4", 2 }, { "sim:a100", 2 } };
        refused(j, QStringLiteral("the batches of op stem1 add up to 4 inputs, not the file's 8"));
        j = good;
        j["mapping"].erase("stem2");
        refused(j, QStringLiteral("op stem2 is not mapped"));
        j = good;
        j["devices"] = { "sim:t4", "sim:v100" };
        refused(j, QStringLiteral("device \"sim:a100\" is not in \"devices\""));
        j = good;
        j.erase("costs");
        refused(j, QStringLiteral("missing \"costs\""));
        const std::string text = good.dump();
        writeText(path, text.substr(0, text.size() / 2));
        QVERIFY(refusal(graph, path).contains(QStringLiteral("cut short")));
        QVERIFY(
            refusal(loadModel("zoo:squeezenet", 1), file_).contains(QStringLiteral("not the open model squeezenet")));
    }

    void theWindowOpensIt()
    {
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(window.openModel(QString::fromLatin1(kModel)));
        QVERIFY2(window.openMappingFile(file_), qPrintable(window.lastError()));
        QVERIFY(window.shownResult() && window.shownResult()->mapping);
        QCOMPARE(window.shownResult()->output.params.at("objective").get<std::string>(), std::string("throughput"));
        QVERIFY(window.dagView()->hasDevices());
        QCOMPARE(window.schedulePanel()->results()->rowCount(), 1);
    }

private:
    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TstThroughputMappingResult)
#include "tst_throughputmappingresult.moc"
