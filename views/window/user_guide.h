// Help > User Guide: the project's own docs (docs/gui.md and the pages it links to) rendered in a
// window, offline. The docs folder is found from $OPSCHED_DOCS, else by walking up from the
// executable's folder (a build tree inside the source, or an install with share/doc/opsched).
#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace opsched {

// The folder holding gui.md, searched from `start` upwards (docs/, share/doc/opsched/); empty
// when there is none. $OPSCHED_DOCS, when set, is used as it is.
QString findDocsFolder(const QString& start);

class UserGuide : public QDialog {
    Q_OBJECT
public:
    // Shows `page` (e.g. "gui.md") from `docsFolder`; links to other pages open here too.
    UserGuide(const QString& docsFolder, const QString& page, QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }

private:
    QTextBrowser* browser_;
};

} // namespace opsched
