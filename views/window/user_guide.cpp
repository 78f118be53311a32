#include "window/user_guide.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace opsched {

QString findDocsFolder(const QString& start)
{
    const QString fromEnv = qEnvironmentVariable("OPSCHED_DOCS");
    if (!fromEnv.isEmpty())
        return QFileInfo(QDir(fromEnv).filePath(QStringLiteral("gui.md"))).exists() ? QDir(fromEnv).absolutePath()
                                                                                    : QString();
    QDir dir(start);
    for (int up = 0; up < 8; ++up) {
        for (const char* sub : { "docs", "share/doc/opsched" }) {
            const QString candidate = dir.filePath(QString::fromUtf8(sub));
            if (QFileInfo(QDir(candidate).filePath(QStringLiteral("gui.md"))).isFile())
                return QDir(candidate).absolutePath();
        }
        if (!dir.cdUp())
            break;
    }
    return {};
}

QVariant GuideBrowser::loadResource(int type, const QUrl& name)
{
    QVariant resource = QTextBrowser::loadResource(type, name);
    if (type != QTextDocument::ImageResource)
        return resource;
    QImage image
        = resource.typeId() == QMetaType::QImage ? resource.value<QImage>() : QImage::fromData(resource.toByteArray());
    // The page's width: the viewport's once laid out, else (the first page loads before the dialog
    // is shown) the window's less the frame and margins. Pictures keep that width if the window is
    // narrowed later.
    const int page = isVisible() ? viewport()->width() : std::max(viewport()->width(), window()->width() - 24);
    const int room = std::max(200, page - 2 * static_cast<int>(document()->documentMargin()) - 8);
    if (!image.isNull() && image.width() > room)
        return image.scaledToWidth(room, Qt::SmoothTransformation);
    return image.isNull() ? resource : QVariant(image);
}

UserGuide::UserGuide(const QString& docsFolder, const QString& page, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("opsched User Guide"));
    resize(900, 700); // before the page loads: its pictures are scaled to this width
    browser_ = new GuideBrowser(this);
    browser_->setObjectName(QStringLiteral("userGuide"));
    browser_->setOpenExternalLinks(true); // web links in a browser; pages of the docs here
    browser_->setSearchPaths({ docsFolder });
    auto button = [this](const QString& text, const QString& name, const QString& tip) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setObjectName(name);
        b->setToolTip(tip);
        return b;
    };
    back_ = button(tr("Back"), QStringLiteral("guideBack"), tr("The page before (Alt+Left)"));
    auto* forward = button(tr("Forward"), QStringLiteral("guideForward"), tr("The page after (Alt+Right)"));
    auto* home = button(tr("Contents"), QStringLiteral("guideHome"), tr("The guide's first page"));
    back_->setShortcut(QKeySequence::Back);
    forward->setShortcut(QKeySequence::Forward);
    back_->setEnabled(false);
    forward->setEnabled(false);
    connect(back_, &QToolButton::clicked, browser_, &QTextBrowser::backward);
    connect(forward, &QToolButton::clicked, browser_, &QTextBrowser::forward);
    connect(home, &QToolButton::clicked, browser_, &QTextBrowser::home);
    connect(browser_, &QTextBrowser::backwardAvailable, back_, &QToolButton::setEnabled);
    connect(browser_, &QTextBrowser::forwardAvailable, forward, &QToolButton::setEnabled);
    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(6, 4, 6, 0);
    tools->addWidget(back_);
    tools->addWidget(forward);
    tools->addWidget(home);
    tools->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(tools);
    layout->addWidget(browser_);
    // Markdown, so links between pages (mapping.md#throughput) resolve in the docs folder.
    browser_->setSource(QUrl::fromLocalFile(QDir(docsFolder).filePath(page)), QTextDocument::MarkdownResource);
}

} // namespace opsched
