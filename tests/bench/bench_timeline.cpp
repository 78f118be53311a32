// Timeline repaint time with 100k spans, the time ruler, a selected range and 10k flow arrows:
// whole run visible (folding does the work) and zoomed in (binary search does), and 100 streams
// scrolled to the middle. Renders offscreen into a QImage; prints medians of 50 repaints against
// the 16 ms frame budget.
#include "engine/timeline/range_stats.h"
#include "timeline/kernel_stats.h"
#include "timeline/timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

using namespace opsched;

namespace {

double medianMs(const std::function<void()>& f)
{
    std::vector<double> t;
    for (int i = 0; i < 50; ++i) {
        const auto s = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    constexpr int kRows = 8, kSpans = 100000;
    auto data = std::make_shared<TimelineData>();
    double t = 0;
    for (int i = 0; i < kSpans; ++i) {
        const double d = 1e-6 * (1 + (i * 7919) % 50); // 1..50 us
        data->rows.addSpan(static_cast<std::size_t>(i % kRows),
            { t, t + d, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i % 13) });
        if (i % kRows == kRows - 1)
            t += d;
    }
    data->rows.finish();
    for (int r = 0; r < kRows; ++r)
        data->rowNames.push_back("stream " + std::to_string(r));
    data->latency = data->rows.lastEnd();
    // A flow from every tenth span to the next stream's span that starts after it ends.
    for (int r = 0; r < kRows; ++r) {
        const auto& from = data->rows.row(static_cast<std::size_t>(r));
        const auto& to = data->rows.row(static_cast<std::size_t>((r + 1) % kRows));
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (i % 10 != 0)
                continue;
            auto it = std::lower_bound(
                to.begin(), to.end(), from[i].end, [](const TimelineSpan& s, double t) { return s.start < t; });
            if (it != to.end())
                data->flows.push_back({ from[i].end, it->start, static_cast<std::uint32_t>(r),
                    static_cast<std::uint32_t>((r + 1) % kRows) });
        }
    }
    std::sort(data->flows.begin(), data->flows.end(),
        [](const TimelineFlow& a, const TimelineFlow& b) { return a.from < b.from; });

    TimelineView view;
    view.resize(1600, 400);
    view.setData(data, [](std::uint32_t id) { return QStringLiteral("op %1").arg(id); });
    QImage image(1600, 400, QImage::Format_ARGB32_Premultiplied);
    auto paint = [&] {
        QPainter p(&image);
        view.render(p, image.size());
    };
    const double plain = medianMs(paint);
    view.setShowFlows(true);
    view.setSelection(data->latency * 0.3, data->latency * 0.6);
    const double whole = medianMs(paint);
    view.setAxis(TimeAxis(data->latency * 0.5, data->latency * 0.5 + 200e-6, 1520));
    const double zoomed = medianMs(paint);

    // 100 streams with a kernel row each (100k spans again), scrolled to the middle.
    auto many = std::make_shared<TimelineData>();
    StreamRowsBuilder builder(*many, [] {
        std::vector<std::int64_t> s(100);
        for (int i = 0; i < 100; ++i)
            s[static_cast<std::size_t>(i)] = i;
        return s;
    }());
    t = 0;
    for (int i = 0; i < kSpans / 2; ++i) {
        const double d = 1e-6 * (1 + (i * 7919) % 50);
        const int stream = i % 100;
        builder.addOp(stream, t, t + d, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i % 13));
        builder.addKernel(stream, t, t + d, static_cast<std::uint32_t>(i % 13),
            { "kernel_" + std::to_string(i % 1000), static_cast<std::uint32_t>(i), 64, {} });
        if (stream == 99)
            t += d;
    }
    many->rows.finish();
    many->latency = many->rows.lastEnd();
    TimelineView tall;
    tall.resize(1600, 400);
    tall.setData(many, [](std::uint32_t id) { return QStringLiteral("op %1").arg(id); });
    tall.setAllCollapsed(false);
    tall.setScrollY(tall.maxScrollY() / 2);
    tall.setSelection(many->latency * 0.3, many->latency * 0.6);
    const double scrolled = medianMs([&] {
        QPainter p(&image);
        tall.render(p, image.size());
    });

    // What a drag recomputes on every mouse move: the range statistics and the kernel summary.
    const double statistics = medianMs([&] {
        const RangeStats r = rangeStats(*many, many->latency * 0.2, many->latency * 0.7);
        const auto k = kernelSummary(*many, std::make_pair(many->latency * 0.2, many->latency * 0.7));
        if (r.ops == 0 || k.empty())
            std::abort();
    });

    std::printf("timeline, %d spans on %d rows, %zu flows, 1600x400 offscreen:\n", kSpans, kRows, data->flows.size());
    std::printf("  whole run, ruler only:                %.2f ms per repaint (median of 50)\n", plain);
    std::printf("  whole run, ruler, range, flows shown: %.2f ms per repaint (median of 50)\n", whole);
    std::printf("  200 us visible, flows shown:          %.2f ms per repaint (median of 50)\n", zoomed);
    std::printf("  100 streams + kernel rows, scrolled:  %.2f ms per repaint (median of 50)\n", scrolled);
    std::printf(
        "  range statistics + kernel summary (1000 names), half of 100k spans: %.2f ms (median of 50)\n", statistics);
    const double worst = std::max({ plain, whole, zoomed, scrolled });
    std::printf("  worst median %.2f ms: %s the 16 ms frame budget\n", worst, worst < 16 ? "within" : "OVER");
    return worst < 16 ? 0 : 1;
}
