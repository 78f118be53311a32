// Timeline repaint time with 100k spans: whole run visible (folding does the work) and zoomed in
// (binary search does). Renders offscreen into a QImage; prints medians of 50 repaints.
#include "timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
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
        data->rows.addSpan(static_cast<std::size_t>(i % kRows), {t, t + d, static_cast<std::uint32_t>(i),
                                                                  static_cast<std::uint32_t>(i % 13)});
        if (i % kRows == kRows - 1)
            t += d;
    }
    data->rows.finish();
    for (int r = 0; r < kRows; ++r)
        data->rowNames.push_back("stream " + std::to_string(r));
    data->latency = data->rows.lastEnd();

    TimelineView view;
    view.resize(1600, 400);
    view.setData(data, [](std::uint32_t id) { return QStringLiteral("op %1").arg(id); });
    QImage image(1600, 400, QImage::Format_ARGB32_Premultiplied);
    auto paint = [&] {
        QPainter p(&image);
        view.render(p, image.size());
    };
    const double whole = medianMs(paint);
    view.setAxis(TimeAxis(data->latency * 0.5, data->latency * 0.5 + 200e-6, 1520));
    const double zoomed = medianMs(paint);
    std::printf("timeline, %d spans on %d rows, 1600x400 offscreen:\n", kSpans, kRows);
    std::printf("  whole run visible: %.2f ms per repaint (median of 50)\n", whole);
    std::printf("  200 us visible:    %.2f ms per repaint (median of 50)\n", zoomed);
    return 0;
}
