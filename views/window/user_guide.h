// Help > User Guide: the project's own docs (docs/gui.md and the pages it links to) rendered in a
// window, offline, with Back, Forward and Home as in a browser, and pictures scaled to the window's
// width. The docs folder is found from $OPSCHED_DOCS, else by walking up from the executable's
// folder (a build tree inside the source, or an install with share/doc/opsched).
#pragma once

#include <QDialog>
#include <QString>
#include <QTextBrowser>

class QToolButton;

namespace opsched {

// The folder holding gui.md, searched from `start` upwards (docs/, share/doc/opsched/); empty
// when there is none. $OPSCHED_DOCS, when set, is used as it is.
QString findDocsFolder(const QString& start);

// A text browser whose pictures are never wider than its viewport (a screenshot at full size made
// the guide scroll sideways).
class GuideBrowser : public QTextBrowser {
    Q_OBJECT
public:
    using QTextBrowser::QTextBrowser;
    QVariant loadResource(int type, const QUrl& name) override;
};

class UserGuide : public QDialog {
    Q_OBJECT
public:
    // Shows `page` (e.g. "gui.md") from `docsFolder`; links to other pages open here too.
    UserGuide(const QString& docsFolder, const QString& page, QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }
    QToolButton* backButton() const { return back_; }

private:
    GuideBrowser* browser_;
    QToolButton* back_;
};

} // namespace opsched
