#include "window/start_page.h"

#include "engine/catalog.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace opsched {

QString modelDisplayName(const QString& ref, const QString& graphName)
{
    if (ref.startsWith(QStringLiteral("zoo:")))
        return graphName;
    const QFileInfo file(ref);
    if (file.completeBaseName().compare(QStringLiteral("model"), Qt::CaseInsensitive) == 0) {
        const QString folder = file.absoluteDir().dirName();
        if (!folder.isEmpty() && folder != QStringLiteral("."))
            return folder;
    }
    if (graphName.isEmpty() || graphName.compare(QStringLiteral("model"), Qt::CaseInsensitive) == 0)
        return file.completeBaseName().isEmpty() ? graphName : file.completeBaseName();
    return graphName;
}

StartPage::StartPage(QWidget* parent)
    : QWidget(parent)
{
    auto* title = new QLabel(tr("<h2>opsched</h2>"
                                "<p>Open a neural network to see its operators, schedule them over GPU streams and "
                                "analyse the timeline; or open a results database written by "
                                "<tt>opsched-cli profile</tt>.</p>"
                                "<p>File &gt; Open (Ctrl+O) takes <tt>.onnx</tt> models and <tt>.db</tt> "
                                "databases; you can also drop a file on the window.</p>"));
    title->setWordWrap(true);
    title->setTextFormat(Qt::RichText);
    auto* open = new QPushButton(tr("Open a Model or Database..."));
    open->setObjectName(QStringLiteral("startOpen"));
    connect(open, &QPushButton::clicked, this, &StartPage::openDialogRequested);

    recent_ = new QListWidget;
    recent_->setObjectName(QStringLiteral("startRecent"));
    networks_ = new QListWidget;
    networks_->setObjectName(QStringLiteral("startNetworks"));
    for (const auto& e : engine::builtInNetworks()) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2").arg(QString::fromStdString(e.name), QString::fromStdString(e.summary)),
            networks_);
        item->setData(Qt::UserRole, QStringLiteral("zoo:") + QString::fromStdString(e.name));
        item->setToolTip(QString::fromStdString(e.summary));
    }
    for (QListWidget* list : { recent_, networks_ }) {
        // Long paths and summaries wrap (or lose their middle) instead of scrolling sideways.
        list->setWordWrap(true);
        list->setTextElideMode(Qt::ElideMiddle);
        list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        connect(list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit openRequested(item->data(Qt::UserRole).toString()); });
    }

    auto* recentColumn = new QVBoxLayout;
    recentColumn->addWidget(new QLabel(tr("<b>Recent files</b> (double-click to open)")));
    recentColumn->addWidget(recent_);
    auto* networkColumn = new QVBoxLayout;
    networkColumn->addWidget(new QLabel(tr("<b>Built-in networks</b> (no file needed)")));
    networkColumn->addWidget(networks_);
    auto* lists = new QHBoxLayout;
    lists->addLayout(recentColumn, 1);
    lists->addLayout(networkColumn, 1);
    auto* buttonRow = new QHBoxLayout;
    buttonRow->addWidget(open);
    buttonRow->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->addWidget(title);
    layout->addLayout(buttonRow);
    layout->addLayout(lists, 1);
    setRecentFiles({});
}

void StartPage::setRecentFiles(const QStringList& refs)
{
    recent_->clear();
    for (const QString& ref : refs) {
        auto* item = new QListWidgetItem(ref, recent_);
        item->setData(Qt::UserRole, ref);
        item->setToolTip(ref);
    }
    if (refs.isEmpty()) {
        auto* none = new QListWidgetItem(tr("(none yet)"), recent_);
        none->setFlags(Qt::NoItemFlags);
    }
}

} // namespace opsched
