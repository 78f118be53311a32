// A mapping computed in the window: its timeline has a row per device named after it, a span per
// op at the mapper's times, a flow per transfer; the DAG colours ops by device; the Schedules
// panel offers the mappers and refuses a single device clearly.
#include "common/byte_format.h"
#include "common/export.h"
#include "dag/dag_view.h"
#include "engine/results/mapping_file_result.h"
#include "engine/results/mapping_result.h"
#include "engine/timeline/range_stats.h"
#include "schedules/schedule_panel.h"
#include "timeline/range_stats_model.h"

#include "map/registry/mappers.h"
#include "util/error.h"
#include "zoo/zoo.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace opsched;

namespace {

ScheduleRequest mapRequest(const char* mapper, const char* devices)
{
    ScheduleRequest request;
    request.scheduler = mapper;
    request.device = devices;
    return request;
}

} // namespace

class TstMappingResult : public QObject {
    Q_OBJECT

private slots:
    void timelineHasARowPerDeviceAndTheTransfers()
    {
        const Graph graph = zoo::build("rwnn?modules=2&n=6&res=64&width=32", 1);
        const ScheduleRequest request = mapRequest("map:heft", "sim:xeon,sim:t4,sim:a100");
        const auto result = computeMappingResult(graph, request);
        QVERIFY(result->mapping);
        QCOMPARE(result->mapping->devices.size(), std::size_t(3));
        QCOMPARE(result->output.plan.streams, 3u);
        const TimelineData& t = *result->timeline;
        std::size_t opRows = 0, spans = 0;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r) {
            if (t.rowKind(r) != TimelineRowKind::Ops)
                continue;
            ++opRows;
            spans += t.rows.row(r).size();
            QVERIFY2(t.rowNames[r].rfind("sim:", 0) == 0, t.rowNames[r].c_str());
        }
        QCOMPARE(opRows, std::size_t(3));
        QCOMPARE(spans, graph.opCount());
        QCOMPARE(t.latency, result->latency);
        // Every op's span sits on the row of its device.
        std::size_t crossing = 0;
        for (const Op& op : graph.ops())
            for (std::uint32_t s : graph.successors(op.id))
                crossing += result->mapping->deviceOf[op.id.value()] != result->mapping->deviceOf[s];
        QCOMPARE(t.flows.size(), crossing);
        QVERIFY(!t.criticalPath.empty());
        QCOMPARE(t.rows.lastEnd(), result->latency);

        // Under each device, the results arriving there: one span per transfer on the receiving
        // device's row, from the producer's end to the arrival, with its bytes.
        QVERIFY(!t.hasKernelRows());
        std::size_t transferSpans = 0;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r) {
            if (t.rowKind(r) != TimelineRowKind::Transfers)
                continue;
            QCOMPARE(QString::fromStdString(t.rowNames[r]).trimmed(), QStringLiteral("transfers in"));
            const std::string& device = t.rowNames[r - 1];
            for (const TimelineSpan& span : t.rows.row(r)) {
                ++transferSpans;
                const TimelineTransfer& x = t.transfers.at(span.id);
                QCOMPARE(x.toDevice, device);
                QVERIFY(x.fromDevice != x.toDevice);
                QVERIFY(x.bytes > 0);
                QVERIFY(span.end > span.start);
                QVERIFY(graph.successors(OpId(x.fromOp)).size() > 0);
            }
        }
        QCOMPARE(transferSpans, crossing);

        // The whole run's statistics count transfers and say kernels are n/a, not 0.
        const RangeStats whole = rangeStats(t, 0, t.latency);
        QVERIFY(!whole.hasKernels);
        QCOMPARE(whole.transfers, crossing);
        QCOMPARE(whole.streams.size(), std::size_t(3)); // the transfer rows are not devices
        QCOMPARE(whole.ops, graph.opCount());
        const QString text = describeRange(whole);
        QVERIFY2(
            text.contains(QStringLiteral("transfer")) && !text.contains(QStringLiteral("kernels")), qPrintable(text));
    }

    void formatsBytes_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("bytes") << 12.0 << "12 B";
        QTest::newRow("kilo") << 4096.0 << "4.10 kB";
        QTest::newRow("rounds up a unit") << 999.7e3 << "1.00 MB";
        QTest::newRow("mega") << 1.2345e6 << "1.23 MB";
        QTest::newRow("tens") << 45.67e6 << "45.7 MB";
        QTest::newRow("hundreds") << 456.7e9 << "457 GB";
        QTest::newRow("zero") << 0.0 << "0 B";
    }

    void formatsBytes()
    {
        QFETCH(double, bytes);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatBytes(bytes)), text);
    }

    void dagIsColouredByDevice()
    {
        auto graph = std::make_shared<const Graph>(zoo::build("rwnn?modules=1&n=6&res=64&width=32", 1));
        const ScheduleRequest request = mapRequest("map:greedy", "sim:t4,sim:a100");
        const auto result = computeMappingResult(*graph, request);
        DagView dag;
        dag.setGraph(graph);
        dag.setDevices(result->mapping->deviceOf, result->mapping->devices);
        QVERIFY(dag.hasDevices());
        QVERIFY(!dag.hasSchedule());
        for (const Op& op : graph->ops())
            for (const Op& other : graph->ops()) {
                const bool same
                    = result->mapping->deviceOf[op.id.value()] == result->mapping->deviceOf[other.id.value()];
                QCOMPARE(dag.opColour(op.id) == dag.opColour(other.id), same);
            }
        dag.setSchedule(nullptr);
        QVERIFY(!dag.hasDevices());
    }

    void anIdleDeviceKeepsItsRow()
    {
        // bd puts every op on the one best device: the other's row is there, empty.
        const Graph graph = zoo::build("rwnn?modules=1&n=6&res=64&width=32", 1);
        const ScheduleRequest request = mapRequest("map:bd", "sim:t4,sim:a100");
        const auto result = computeMappingResult(graph, request);
        const TimelineData& t = *result->timeline;
        std::vector<std::string> rows;
        std::size_t empty = 0;
        for (std::size_t r = 0; r < t.rows.rowCount(); ++r)
            if (t.rowKind(r) == TimelineRowKind::Ops) {
                rows.push_back(t.rowNames[r]);
                empty += t.rows.row(r).empty();
            }
        QCOMPARE(rows, (std::vector<std::string> { "sim:t4", "sim:a100" }));
        QCOMPARE(empty, std::size_t(1));
        QCOMPARE(t.rows.rowCount(), t.rowNames.size());
    }

    void aCalibratedDeviceFileIsADeviceLikeAPreset()
    {
        // Every name the CLI takes: sim:FILE.json (from `calibrate`) beside a preset.
        const Graph graph = zoo::build("rwnn?modules=1&n=6&res=64&width=32", 1);
        const std::string file = OPSCHED_TEST_DATA_DIR "/sim_devices/h100_fitted.json";
        const auto result = computeMappingResult(graph, mapRequest("map:heft", ("sim:" + file + ",sim:t4").c_str()));
        QVERIFY(result->mapping);
        QCOMPARE(result->mapping->devices, (std::vector<std::string> { "sim:" + file, "sim:t4" }));
        QVERIFY(result->latency > 0);
    }

    void oneDeviceOrAMeasuredOneIsRefused()
    {
        const Graph graph = zoo::build("rwnn?modules=1&n=6&res=64&width=32", 1);
        ScheduleRequest request = mapRequest("map:milp-split", "sim:h100");
        QVERIFY_THROWS_EXCEPTION(Error, computeMappingResult(graph, request));
        request.device = "cpu:0,cpu:1";
        try {
            computeMappingResult(graph, request);
            QFAIL("measured devices accepted");
        } catch (const Error& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("opsched-cli map")));
        }
    }

    // File > Export of a mapping: Schedule writes the mapping file (`map -o`'s), which File > Open
    // Mapping reads back to the same mapping and `evaluate` refuses by name; Chrome Trace and
    // Kernels CSV write the predicted timeline (the device list is no simulated device to rerun).
    void mappingExportsAsItsFileAndItsTimeline()
    {
        const Graph graph = zoo::build("rwnn?modules=2&n=6&res=64&width=32", 1);
        const ScheduleRequest request = mapRequest("map:heft", "sim:xeon,sim:t4,sim:a100");
        const auto result = computeMappingResult(graph, request);
        QVERIFY(result->mappingFile);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("m.json"));
        QCOMPARE(exportSchedule(file, &graph, *result), QString());
        const auto reread = loadMappingResult(graph, file.toStdString());
        QCOMPARE(reread->mapping->deviceOf, result->mapping->deviceOf);
        QCOMPARE(reread->latency, result->latency);
        const QString trace = dir.filePath(QStringLiteral("t.json")), csv = dir.filePath(QStringLiteral("k.csv"));
        QCOMPARE(exportTrace(trace, TraceExport::ChromeTrace, &graph, QStringLiteral("zoo:rwnn"), *result), QString());
        QCOMPARE(exportTrace(csv, TraceExport::KernelsCsv, &graph, QStringLiteral("zoo:rwnn"), *result), QString());
        QFile t(trace);
        QVERIFY(t.open(QIODevice::ReadOnly));
        const QByteArray text = t.readAll();
        QVERIFY(text.contains(QByteArray::fromStdString(graph.ops().front().name)));
        QVERIFY(text.contains("sim:xeon,sim:t4,sim:a100"));
        QFile k(csv);
        QVERIFY(k.open(QIODevice::ReadOnly));
        QCOMPARE(k.readAll().count('\n'), static_cast<qsizetype>(graph.opCount() + 1)); // a header, an op each
    }

    void panelOffersTheMappersWithADeviceList()
    {
        SchedulePanel panel;
        auto* scheduler = panel.findChild<QComboBox*>(QStringLiteral("schedulerCombo"));
        auto* device = panel.findChild<QComboBox*>(QStringLiteral("deviceCombo"));
        QVERIFY(scheduler && device);
        for (const auto& m : map::mappers())
            QVERIFY(scheduler->findText(QString::fromStdString("map:" + m.name)) >= 0);
        scheduler->setCurrentText(QStringLiteral("map:milp-split"));
        QVERIFY(device->currentText().contains(QLatin1Char(',')));
        scheduler->setCurrentText(QStringLiteral("ios"));
        QVERIFY(!device->currentText().contains(QLatin1Char(',')));
    }
};

QTEST_MAIN(TstMappingResult)
#include "tst_mappingresult.moc"
