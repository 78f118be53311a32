#include "common/tool_row_page.h"

#include <QMargins>
#include <QVBoxLayout>
#include <QWidget>

namespace opsched {

QWidget* toolRowPage(QLayout* tools, QWidget* content, const QMargins& margins)
{
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(margins);
    layout->addLayout(tools);
    layout->addWidget(content);
    return page;
}

} // namespace opsched
