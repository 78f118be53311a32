#include "window/user_guide.h"

#include <QDir>
#include <QFileInfo>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

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

UserGuide::UserGuide(const QString& docsFolder, const QString& page, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("opsched User Guide"));
    browser_ = new QTextBrowser;
    browser_->setObjectName(QStringLiteral("userGuide"));
    browser_->setOpenExternalLinks(true); // web links in a browser; pages of the docs here
    browser_->setSearchPaths({ docsFolder });
    // Markdown, so links between pages (mapping.md#throughput) resolve in the docs folder.
    browser_->setSource(QUrl::fromLocalFile(QDir(docsFolder).filePath(page)), QTextDocument::MarkdownResource);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(browser_);
    resize(900, 700);
}

} // namespace opsched
